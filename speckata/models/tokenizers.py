"""Two tokenizers over the same text, so that exercise 12 can draft across them.

- :class:`CharTokenizer`, the target's: one id per character of a fixed alphabet (newline and the
  95 printable ASCII characters). No special tokens. A character outside the alphabet has no id.
- :class:`WordTokenizer`, the cross-tokenizer draft's: text is cut into pieces (a word or a number
  with the space before it, one punctuation mark with the space before it, or one whitespace
  character); a frequent piece has its own id, a rarer one is spelled with single-character ids,
  and a character it has never seen becomes ``<unk>``. ``encode`` puts ``<bos>`` in front unless
  told not to, as many real tokenizers do; ``decode`` writes ``<bos>`` as nothing and ``<unk>`` as
  U+FFFD, a character no target id exists for.

>>> chars = CharTokenizer()
>>> chars.encode("Hi!"), chars.decode([41, 74, 2])
([41, 74, 2], 'Hi!')
>>> words = WordTokenizer([" the", " cat"])          # ids 0-1 specials, 2-97 characters
>>> words.pieces(" the cat sat")
[' the', ' cat', ' sat']
>>> words.encode(" the cat sat"), words.encode(" cat", add_bos=False)   # " sat" is spelled out
([0, 98, 99, 3, 86, 68, 87], [99])
>>> words.decode([0, 99, 1])
' cat\\ufffd'
>>> [words.vocabulary[i] for i in words.ids_starting_with(" c")]
[' cat']
"""

from __future__ import annotations

import collections
import re

from speckata.models.corpus import ALPHABET

PIECE = re.compile(r" ?[A-Za-z]+| ?[0-9]+| ?[^A-Za-z0-9\s]|\s")


class CharTokenizer:
    def __init__(self, alphabet: str = ALPHABET):
        self.alphabet = alphabet
        self.index = {ch: i for i, ch in enumerate(alphabet)}
        self.vocab_size = len(alphabet)

    def has(self, ch: str) -> bool:
        return ch in self.index

    def encode(self, text: str) -> list[int]:
        missing = sorted({ch for ch in text if ch not in self.index})
        if missing:
            raise ValueError(f"characters not in the target's vocabulary: {missing!r}")
        return [self.index[ch] for ch in text]

    def decode(self, ids) -> str:
        return "".join(self.alphabet[int(i)] for i in ids)


class WordTokenizer:
    BOS, UNK = 0, 1
    SPECIALS = ("<bos>", "<unk>")

    def __init__(self, frequent_pieces, alphabet: str = ALPHABET):
        """Ids: the specials, then every single character of ``alphabet``, then ``frequent_pieces``."""
        singles = list(alphabet)
        extra = [p for p in frequent_pieces if p not in set(singles)]
        self.vocabulary = list(self.SPECIALS) + singles + extra
        self.index = {piece: i for i, piece in enumerate(self.vocabulary)}
        self.vocab_size = len(self.vocabulary)

    @classmethod
    def train(cls, text: str, vocab_size: int, alphabet: str = ALPHABET) -> "WordTokenizer":
        """Keep the most frequent multi-character pieces of ``text`` (ties: alphabetical)."""
        counts = collections.Counter(p for p in PIECE.findall(text) if len(p) > 1)
        room = vocab_size - len(cls.SPECIALS) - len(alphabet)
        ranked = sorted(counts, key=lambda piece: (-counts[piece], piece))[: max(room, 0)]
        return cls(ranked, alphabet)

    @staticmethod
    def pieces(text: str) -> list[str]:
        return PIECE.findall(text)

    def encode(self, text: str, add_bos: bool = True) -> list[int]:
        ids = [self.BOS] if add_bos else []
        for piece in self.pieces(text):
            if piece in self.index:
                ids.append(self.index[piece])
            else:
                ids.extend(self.index.get(ch, self.UNK) for ch in piece)
        return ids

    def ids_starting_with(self, prefix: str) -> list[int]:
        """The ids of every piece (specials excluded) whose text starts with ``prefix``, ascending."""
        return [i for i, piece in enumerate(self.vocabulary) if i >= len(self.SPECIALS) and piece.startswith(prefix)]

    def decode(self, ids) -> str:
        out = []
        for i in ids:
            i = int(i)
            out.append("" if i == self.BOS else "\ufffd" if i == self.UNK else self.vocabulary[i])
        return "".join(out)
