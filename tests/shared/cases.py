"""Random probability rows and verify-step cases for the grading suites (minitorch's strategies.py).

Every suite that grades on generated distributions draws them here, from a numpy Generator that
the suite seeds through ``case_rng(base)``, so each run and each machine sees the same cases (and
``--streams SEED``, a hidden suite, fresh ones: speckata/grading/streams.py). The styles cover
what a real target and draft produce: peaked rows (one token holds most of the mass), flat rows,
sparse rows (zeros, which is where residuals and supports go wrong), and drafts close to the
target (long accepted runs) or disjoint from it (nothing accepted).
"""

from __future__ import annotations

import numpy as np

from speckata.grading.streams import case_seed

CONCENTRATION = {"peaked": 0.1, "flat": 10.0, "sparse": 1.0}  # Dirichlet parameter per row style
ROW_STYLES = tuple(CONCENTRATION)
ZEROED_SHARE = 0.4  # in a "sparse" row each token is zeroed with this chance
PAIR_STYLES = ("peaked", "flat", "sparse", "close", "disjoint")


def case_rng(base: int) -> np.random.Generator:
    """The generator of a generated case whose committed seed is ``base`` (fresh under ``--streams``).
    Statistical tests do not use it: their fixed seeds are part of their margin gates."""
    return np.random.default_rng(case_seed(base))


def random_rows(gen: np.random.Generator, count: int, vocab: int, concentration: float, sparsity: float = 0.0) -> np.ndarray:
    """``count`` probability rows over ``vocab`` tokens: Dirichlet(concentration) draws whose
    entries are then zeroed with chance ``sparsity`` (a row left empty keeps one random token)."""
    rows = gen.dirichlet(np.full(vocab, concentration), size=count)
    if sparsity and vocab > 1:
        rows[gen.random(rows.shape) < sparsity] = 0.0
        empty = np.flatnonzero(rows.sum(axis=1) == 0)
        if len(empty):
            rows[empty, gen.integers(vocab, size=len(empty))] = 1.0
    return rows / rows.sum(axis=1, keepdims=True)


def styled_rows(gen: np.random.Generator, count: int, vocab: int, style: str) -> np.ndarray:
    """``count`` rows of one of ROW_STYLES."""
    return random_rows(gen, count, vocab, CONCENTRATION[style], ZEROED_SHARE if style == "sparse" else 0.0)


def random_pair(gen: np.random.Generator, vocab: int, style: str) -> tuple[np.ndarray, np.ndarray]:
    """A target row p and a draft row q over ``vocab`` tokens, related as ``style`` (one of
    PAIR_STYLES) says."""
    one = lambda concentration, sparsity=0.0, size=vocab: random_rows(gen, 1, size, concentration, sparsity)[0]
    if style in ("peaked", "flat"):
        return one(CONCENTRATION[style]), one(CONCENTRATION[style])
    if style == "sparse":
        return one(1.0, 0.5), one(1.0, 0.5)
    if style == "close":  # a good draft: q is mostly p
        p = one(1.0)
        q = 0.9 * p + 0.1 * one(1.0)
        return p, q / q.sum()
    if style == "disjoint" and vocab >= 2:  # the supports share no token
        split = int(gen.integers(1, vocab))
        order = gen.permutation(vocab)
        p, q = np.zeros(vocab), np.zeros(vocab)
        p[order[:split]] = one(1.0, size=split)
        q[order[split:]] = one(1.0, size=vocab - split)
        return p, q
    return random_pair(gen, vocab, "flat")


def random_verify_batch(gen: np.random.Generator, batch: int, gamma: int, vocab: int, close_share: float = 0.4):
    """(p, q, drafts) as a real target and draft give them: p of shape (batch, γ+1, V), q of shape
    (batch, γ, V), and drafts (batch, γ) sampled from q. Each p and q takes one random row style;
    a ``close_share`` of the rows get a draft close to the target (long accepted runs)."""
    style_p, style_q = gen.choice(ROW_STYLES, size=2)
    p = styled_rows(gen, batch * (gamma + 1), vocab, style_p).reshape(batch, gamma + 1, vocab)
    q = styled_rows(gen, batch * gamma, vocab, style_q).reshape(batch, gamma, vocab)
    close = gen.random(batch) < close_share
    q[close] = 0.9 * p[close, :gamma] + 0.1 * q[close]
    drafts = np.array([[gen.choice(vocab, p=row) for row in rows] for rows in q], dtype=np.int64).reshape(batch, gamma)
    return p, q, drafts


def random_verify_case(gen: np.random.Generator, vocab: int, max_gamma: int = 6):
    """One verify step's (p, q, draft) for exercises 01 and 07: γ from 0 to ``max_gamma``, p of
    shape (γ+1, V), q of shape (γ, V), and the draft tokens (plain ints) sampled from q."""
    gamma = int(gen.integers(0, max_gamma + 1))
    p, q, drafts = random_verify_batch(gen, 1, gamma, vocab, close_share=0.3)
    return p[0], q[0], drafts[0].tolist()
