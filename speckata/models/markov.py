"""Toy models whose next-token distributions are known exactly: Markov chains behind the model interface.

A chain of order k over V tokens is a table ``transitions`` of shape (V,)*k + (V,):
``transitions[a, b, ...]`` is the distribution of the next token after the k tokens a, b, ....
A history shorter than k is padded on the left with token 0. The model's "cache" is simply the
history of tokens it was fed, so it obeys ``forward_new`` / ``cache_length`` / ``crop`` / ``reset``
exactly like the real models (``speckata.models.interface``), and a decoder that forgets to roll
back sees different distributions, as it would with a real KV cache. ``forward_tree`` /
``keep_path`` (speckata.models.tree_pass) work the same way: a tree token's distribution follows
the tokens its mask row lets it see. The ragged batch of exercise 25 (``reset_rows``,
``forward_rows``, ``crop_rows``, speckata.models.ragged) keeps one history per row.

Because the truth is a table, tests can compute the exact probability of any generated sequence
(:meth:`MarkovModel.sequence_probability`) and compare a sampler's frequencies with it.

>>> chain = MarkovModel([[0.9, 0.1], [0.2, 0.8]])
>>> chain.order, chain.vocab_size
(1, 2)
>>> round(chain.sequence_probability([0], [0, 1, 1]), 6)   # 0.9 * 0.1 * 0.8
0.072
"""

from __future__ import annotations

import itertools

import torch

from speckata.models.interface import TokenIds, check_new_ids
from speckata.models.ragged import MarkovRows, RaggedBatchModel
from speckata.models.tree_pass import PendingTree, check_tree_feed


class MarkovModel(RaggedBatchModel):
    def __init__(self, transitions, context: int | None = None):
        table = torch.as_tensor(transitions, dtype=torch.float64)
        if table.dim() < 2 or len(set(table.shape)) != 1:
            raise ValueError(f"transitions must have shape (V,)*k + (V,) with k >= 1; got {tuple(table.shape)}")
        if torch.isnan(table).any() or (table < 0).any():
            raise ValueError("transitions must be non-negative probabilities without NaN")
        if not torch.allclose(table.sum(-1), torch.ones((), dtype=torch.float64), atol=1e-9):
            raise ValueError("every row of transitions must sum to 1")
        self.transitions = table
        self._log_transitions = table.log()  # what forward_new returns, computed once (log 0 = -inf)
        self.vocab_size = table.shape[-1]
        self.order = table.dim() - 1
        self.history: list[int] = []
        self._tree = PendingTree()  # tree tokens fed by forward_tree sit in history until keep_path
        self.context = context  # the most tokens a row of the ragged batch may hold (None: unlimited)
        self._rows = MarkovRows()  # the ragged batch (exercise 25, speckata.models.ragged)

    # The truth ----------------------------------------------------------------------------------

    def next_distribution(self, history) -> torch.Tensor:
        """The exact distribution of the token after ``history`` (a list of ids)."""
        return self.transitions[self._context(history)]

    def log_next_distribution(self, history) -> torch.Tensor:
        """The log of next_distribution (log 0 = -inf): what forward_new returns after ``history``."""
        return self._log_transitions[self._context(history)]

    def _context(self, history) -> tuple[int, ...]:
        """The last ``order`` tokens of ``history``, padded on the left with token 0."""
        tail = [int(t) for t in history[-self.order :]]
        return tuple([0] * (self.order - len(tail)) + tail)

    def sequence_probability(self, prompt, continuation) -> float:
        """The exact probability that sampling at temperature 1 continues ``prompt`` with ``continuation``."""
        history, probability = list(prompt), 1.0
        for token in continuation:
            probability *= float(self.next_distribution(history)[token])
            history.append(int(token))
        return probability

    def all_continuations(self, length: int):
        """Every sequence of ``length`` tokens, in lexicographic order."""
        return list(itertools.product(range(self.vocab_size), repeat=length))

    # The model interface ------------------------------------------------------------------------

    @property
    def cache_length(self) -> int:
        return len(self.history)

    def reset(self) -> None:
        self.crop(0)

    def crop(self, length: int) -> None:
        del self.history[self._tree.cropped(length, len(self.history)) :]

    def forward_new(self, ids: TokenIds) -> torch.Tensor:
        ids = check_new_ids(ids, self.vocab_size)
        self._tree.refuse_forward_new()
        rows = []
        for token in ids.tolist():
            self.history.append(token)
            rows.append(self._log_transitions[self._context(self.history)])
        return torch.stack(rows)  # a copy: a caller that edits the logits leaves the chain as it was

    def forward_tree(self, ids: TokenIds, attention_mask, position_ids) -> torch.Tensor:
        """Row i: the log-distribution after the tokens tree token i sees, in cache order (positions
        only checked: a chain has no notion of them)."""
        ids, mask, _ = check_tree_feed(ids, attention_mask, position_ids, len(self.history), self.vocab_size)
        self._tree.grow(len(self.history))
        self.history += ids.tolist()
        seen = [[self.history[column] for column in row.nonzero().flatten().tolist()] for row in mask]
        return torch.stack([self.next_distribution(tokens).log() for tokens in seen])

    def keep_path(self, nodes) -> None:
        start, nodes = self._tree.kept(nodes, len(self.history))
        self.history[start:] = [self.history[start + node] for node in nodes]


def random_markov_model(vocab_size: int, order: int, seed: int, sharpness: float = 1.0) -> MarkovModel:
    """A chain whose rows are softmax(sharpness * standard normal), reproducible from ``seed``.

    Larger ``sharpness`` gives peakier rows (a more predictable chain).
    """
    generator = torch.Generator().manual_seed(seed)
    shape = (vocab_size,) * (order + 1)
    scores = torch.randn(shape, generator=generator, dtype=torch.float64)
    return MarkovModel(torch.softmax(sharpness * scores, dim=-1))


def blend(a: MarkovModel, b: MarkovModel, weight_a: float) -> MarkovModel:
    """The chain whose every row is weight_a * a + (1 - weight_a) * b (same vocabulary and order)."""
    if a.transitions.shape != b.transitions.shape:
        raise ValueError("blend needs two chains of the same vocabulary and order")
    return MarkovModel(weight_a * a.transitions + (1 - weight_a) * b.transitions)
