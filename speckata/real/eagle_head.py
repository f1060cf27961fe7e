"""EAGLE's head for SmolLM2-135M, with a reduced draft vocabulary, and the decoder that drafts with it.

The head is exercise 22's, at SmolLM2's width (576): ``fc`` = Linear(2 x 576, 576) over
cat(embedding of the token one step ahead, the target's feature), then one decoder layer
(``speckata.heads.eagle.DecoderLayer``: pre-norm attention and MLP, no position embedding, the
features carry the position). The feature is SmolLM2's last hidden state after its final norm,
what its own output layer reads. A predicted feature becomes a draft distribution through
SmolLM2's frozen output matrix, but only through its rows for the K tokens of ``token_map``, the K
most frequent tokens of the training text (FR-Spec's frequency-ranked draft vocabulary): 49152 rows
would cost the head 28 M multiply-adds per drafted token, about a fifth of a target pass.

Exactness: q is a distribution over the K mapped tokens, zero everywhere else, so a token outside
the map is never drafted and exercise 01's rule (accept x with min(1, p(x) / q(x)), else sample
max(0, p - q)) stays exact with q written out over the full vocabulary. At temperature 0 p and q
are one-hot and the rule keeps the target's argmax: the tokens of plain greedy decoding.

Weights (float16, ``weights/eagle_head.safetensors``, a few MB) come from ``python -m
trainers.train_smollm2_eagle``; the output rows are taken from the target at load time, not saved.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from speckata.checks.decoding import check_count, check_prompt, check_temperature
from speckata.decoding.results import SpeculativeResult
from speckata.decoding.sampling import GeneratorRNG, next_token_probabilities, sample_token
from speckata.heads.eagle import DecoderLayer

WEIGHTS = Path(__file__).with_name("weights")
WEIGHTS_FILE = WEIGHTS / "eagle_head.safetensors"
SETTINGS_FILE = WEIGHTS / "eagle_head.json"


class RealEagleHead(nn.Module):
    """fc and one decoder layer for a target of hidden width ``width``; ``token_map``: the K draft tokens."""

    def __init__(self, width: int = 576, vocab: int = 4096, heads: int = 4, inner: int = 256, mlp_width: int = 1024):
        super().__init__()
        self.shape = {"width": width, "vocab": vocab, "heads": heads, "inner": inner, "mlp_width": mlp_width}
        self.fc = nn.Linear(2 * width, width)
        self.layer = DecoderLayer(width, heads, inner, mlp_width)
        self.register_buffer("token_map", torch.zeros(vocab, dtype=torch.int64))

    def forward(self, embedded: torch.Tensor, features: torch.Tensor) -> torch.Tensor:
        """Predicted next features for every row of a window (training): (..., T, width)."""
        return self.layer(self.fc(torch.cat([embedded, features], dim=-1)))


def save_head(head: RealEagleHead, settings: dict) -> None:
    from safetensors.torch import save_file

    WEIGHTS.mkdir(parents=True, exist_ok=True)
    state = {k: (v.to(torch.float16) if v.is_floating_point() else v.to(torch.int32)).contiguous()
             for k, v in head.state_dict().items()}
    save_file(state, WEIGHTS_FILE)
    SETTINGS_FILE.write_text(json.dumps({**settings, "shape": head.shape}, indent=1) + "\n")


def load_head(weights: Path = WEIGHTS_FILE, settings: Path = SETTINGS_FILE) -> RealEagleHead:
    from safetensors.torch import load_file

    settings = json.loads(Path(settings).read_text())
    head = RealEagleHead(**settings["shape"])
    state = load_file(weights)
    head.load_state_dict({k: (v.to(torch.float32) if v.is_floating_point() else v.to(torch.int64))
                          for k, v in state.items()})
    return head.eval()


class FeatureTarget:
    """A ``LeanLlama`` that also returns its features (the final norm's output) for the rows of a pass."""

    def __init__(self, lean):
        self.lean = lean
        self.width = int(lean.embed.shape[1])
        self._eye = torch.eye(self.width)  # exact: each output is one feature times 1 plus zeros

    @property
    def cache_length(self) -> int:
        return self.lean.cache_length

    def reset(self) -> None:
        self.lean.reset()

    def crop(self, length: int) -> None:
        self.lean.crop(length)

    @torch.inference_mode()
    def forward_hidden(self, ids, rows: int) -> tuple[torch.Tensor, torch.Tensor]:
        """(features of every new token (n, width), logits of the last ``rows`` of them (rows, V))."""
        output = self.lean.output
        self.lean.output = self._eye  # LeanLlama's last step is F.linear(normed h, output)
        try:
            hidden = self.lean.forward_new(ids)
        finally:
            self.lean.output = output
        return hidden, F.linear(hidden[-rows:], output)

    @torch.inference_mode()
    def forward_tree_hidden(self, ids, attention_mask, position_ids) -> torch.Tensor:
        """The features (n, width) of a tree pass (``LeanLlama.forward_tree``); no logits: a decoder
        computes them for the rows it reads (one row costs a fifth of a one-token pass)."""
        output = self.lean.output
        self.lean.output = self._eye
        try:
            return self.lean.forward_tree(ids, attention_mask, position_ids)
        finally:
            self.lean.output = output

    def keep_path(self, nodes) -> None:
        self.lean.keep_path(nodes)


class HeadRunner:
    """The head on one sequence with its own key/value cache (rows computed from the target's features)."""

    def __init__(self, head: RealEagleHead, target: FeatureTarget):
        self.head, self.layer = head, head.layer
        self.embed = target.lean.embed
        self.rows = target.lean.output[head.token_map]  # (K, width): the frozen output layer, reduced
        self.token_map = head.token_map.tolist()
        self.heads = self.layer.heads
        self.keys = self.values = None
        self.length = 0

    def reset(self) -> None:
        self.length = 0

    def _step(self, features: torch.Tensor, tokens: list[int], mask: torch.Tensor | None = None) -> torch.Tensor:
        """Append rows cat(embed(token), feature); the predicted next features of those rows. Each row
        sees the cache and the rows before it, or (``mask``, (n, cache rows + n)) what its mask row allows."""
        layer, n = self.layer, features.shape[0]
        x = self.head.fc(torch.cat([self.embed[tokens], features], dim=-1))  # (n, width)
        q, k, v = (t.view(n, self.heads, -1).transpose(0, 1) for t in layer.qkv(layer.norm1(x)).chunk(3, dim=-1))
        start, end = self.length, self.length + n
        if self.keys is None or end > self.keys.shape[1]:
            size = max(end, 2 * (0 if self.keys is None else self.keys.shape[1]), 256)
            keys, values = torch.zeros(self.heads, size, k.shape[-1]), torch.zeros(self.heads, size, k.shape[-1])
            if self.keys is not None:
                keys[:, :start], values[:, :start] = self.keys[:, :start], self.values[:, :start]
            self.keys, self.values = keys, values
        self.keys[:, start:end], self.values[:, start:end] = k, v
        if mask is None and n > 1 and start > 0:
            mask = torch.ones(n, end, dtype=torch.bool).tril(diagonal=start)
        y = F.scaled_dot_product_attention(q, self.keys[:, :end], self.values[:, :end], attn_mask=mask,
                                           is_causal=mask is None and n > 1)
        x = x + layer.proj(y.transpose(0, 1).reshape(n, -1))
        self.length = end
        return x + layer.mlp(layer.norm2(x))

    @torch.inference_mode()
    def draft(self, features, tokens, gamma, generator, temperature):
        """Feed the verified rows (target features, next tokens), then draft ``gamma`` tokens on the
        head's own features; the cache is rolled back to the verified rows. Returns (drafts, rows of
        q over the map (gamma, K), the drafts' indices in the map)."""
        verified = self.length + features.shape[0]
        feature = self._step(features, tokens)[-1]
        drafts, q, picked = [], [], []
        for j in range(gamma):
            probs = next_token_probabilities(F.linear(feature, self.rows), temperature)
            index = sample_token(probs, generator)
            drafts.append(self.token_map[index])
            q.append(probs)
            picked.append(index)
            if j < gamma - 1:
                feature = self._step(feature[None], [drafts[-1]])[-1]
        self.length = verified
        return drafts, torch.stack(q), picked


def full_q(q_small: torch.Tensor, token_map: torch.Tensor, vocab: int) -> torch.Tensor:
    """q written out over the whole vocabulary: zero outside the map."""
    q = torch.zeros(q_small.shape[0], vocab, dtype=torch.float64)
    q[:, token_map] = q_small
    return q


@torch.inference_mode()
def eagle_generate(target: FeatureTarget, head: RealEagleHead, prompt_ids, max_new_tokens: int, gamma: int,
                   generator: torch.Generator, temperature: float = 1.0, speculative_step=None) -> SpeculativeResult:
    """``max_new_tokens`` tokens from the target, drafting ``gamma`` per round with the head,
    verified with exercise 01's ``speculative_step`` (from ``solutions/`` by default)."""
    from speckata.real.lookup import probabilities

    if speculative_step is None:
        from speckata.real.graded import graded_function

        speculative_step = graded_function("ex01_speculative_step", "speculative_step")
    vocab = target.lean.vocab_size
    sequence = check_prompt(prompt_ids, vocab)
    check_count("max_new_tokens", max_new_tokens, 0)
    check_count("gamma", gamma, 1)
    check_temperature(temperature)
    runner, result = HeadRunner(head, target), SpeculativeResult()
    if max_new_tokens == 0:
        return result
    pending = first_token(target, sequence, generator, temperature, result)
    while len(result.tokens) < max_new_tokens:
        k = min(gamma, max_new_tokens - len(result.tokens) - 1)
        if k:
            drafts, q_small, _ = runner.draft(pending, sequence[runner.length + 1:], k, generator, temperature)
            q = full_q(q_small, head.token_map, vocab)
        else:
            drafts, q = [], torch.empty((0, vocab), dtype=torch.float64)
        hidden, logits = target.forward_hidden(sequence[target.cache_length:] + drafts, rows=k + 1)
        p = probabilities(logits, temperature)
        tokens = speculative_step(p.numpy(), q.numpy(), drafts, GeneratorRNG(generator))
        accepted = len(tokens) - 1
        pending = hidden[: accepted + 1]  # the target's features of the tokens it kept
        sequence += tokens
        result.tokens += tokens
        if target.cache_length > len(sequence) - 1:
            target.crop(len(sequence) - 1)
        result.accepted_per_pass.append(accepted)
        result.drafted_per_pass.append(k)
        result.target_passes += 1
        result.draft_passes += k
    return result


def first_token(target: FeatureTarget, sequence: list[int], generator, temperature: float, result) -> torch.Tensor:
    """The prompt in one pass from an empty cache; its first new token appended to ``sequence`` and
    ``result``. Returns the prompt's features (the head's first true rows)."""
    from speckata.real.lookup import probabilities

    target.reset()
    features, logits = target.forward_hidden(sequence, rows=1)
    result.target_passes += 1
    token = sample_token(probabilities(logits, temperature)[-1], generator)
    sequence.append(token)
    result.tokens.append(token)
    return features


def acceptance_by_depth(accepted_per_pass: list[int], drafted_per_pass: list[int]) -> list[float]:
    """At depth j: the share of rounds that drafted at least j tokens and kept at least j (given j - 1 kept)."""
    rates = []
    for j in range(1, max(drafted_per_pass, default=0) + 1):
        reached = [a for a, d in zip(accepted_per_pass, drafted_per_pass) if d >= j and a >= j - 1]
        rates.append(round(sum(a >= j for a in reached) / len(reached), 3) if reached else None)
    return rates
