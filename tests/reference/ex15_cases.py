"""Exercise 15-multi-candidate: how the suite calls the learner's verifiers and checks what comes back.

The replayed cases, the generated cases, the acceptance-probability comparison and the chi-square
statistic of tests/test_15_multi_candidate.py, kept apart so that the suite reads like the exercise
text (and the margin gate can run the same statistic on the reference and the mutants).
"""

from __future__ import annotations

import numpy as np

from speckata import ReplayRNG
from speckata.grading import GradingFailure, call_learner, learner_function
from tests.reference.ex15_reference import draw_candidates, enumerated_acceptance, outcome, reference_trace
from tests.reference.ex15_report import RULES, describe_case, mismatch_report
from tests.shared.cases import PAIR_STYLES, case_rng, random_pair
from tests.shared.statistics import chi_square_test

EXERCISE = "15-multi-candidate"
SPARE = (0.5, 0.5, 0.5)  # spare uniforms after the ones a correct call uses
IID, WITHOUT = False, True  # the without_replacement flag of each variant
NAMES = {IID: "verify_candidates", WITHOUT: "verify_candidates_without_replacement"}


def verifier(without_replacement: bool):
    return learner_function(EXERCISE, NAMES[without_replacement])


def acceptance_probability():
    return learner_function(EXERCISE, "acceptance_probability")


def checked_result(result, name: str, vocab: int, case: str) -> tuple:
    """The learner's (token, index), refused with a clear message when it is not of that form."""
    if not (isinstance(result, tuple) and len(result) == 2):
        raise GradingFailure(f"{name} must return a tuple (token, index); it returned {result!r}.\n\n{case}")
    token, index = result
    if type(token) is not int or not (index is None or type(index) is int):
        kinds = f"({type(token).__name__}, {type(index).__name__})"
        raise GradingFailure(f"{name} must return plain Python ints (index None when all are rejected); it returned "
                             f"{result!r} of types {kinds}. Use int(...).\n\n{case}")
    if not 0 <= token < vocab:
        raise GradingFailure(f"{name} returned token {token}, outside the vocabulary of {vocab}.\n\n{case}")
    return result


def check_case(p, q, candidates, uniforms, without_replacement: bool, what: str) -> tuple:
    """Replay ``uniforms`` (plus spares) and compare (token, index) and draws with the reference."""
    stream = list(uniforms) + list(SPARE)
    case = describe_case(p, q, candidates, stream, without_replacement)
    rng = ReplayRNG(stream)
    name = NAMES[without_replacement]
    result = call_learner(verifier(without_replacement), p, q, candidates, rng, case=case)
    trace = reference_trace(p, q, candidates, stream, without_replacement)
    if not (isinstance(result, tuple) and len(result) == 2) or result != outcome(trace) or rng.draws != trace.draws:
        headline = f"{RULES[without_replacement]} got {what} wrong."
        if isinstance(result, tuple) and result == outcome(trace):
            headline += f" The result is right but it drew {rng.draws} random numbers instead of {trace.draws}."
        raise mismatch_report(headline, p, q, candidates, stream, without_replacement, trace, result, rng.draws).failure()
    return checked_result(result, name, len(p), case)


TOLERANCE = 1e-12


def check_probability(p, q, k: int, without_replacement: bool, what: str, expected: float | None = None) -> float:
    call = f"acceptance_probability({list(map(float, p))}, {list(map(float, q))}, {k}, without_replacement={without_replacement})"
    result = call_learner(acceptance_probability(), p, q, k, without_replacement, case=f"The call: {call}")
    if expected is None:
        expected = enumerated_acceptance(p, q, k, without_replacement)
    if type(result) is not float:
        raise GradingFailure(f"acceptance_probability must return a plain float; it returned {result!r} "
                             f"({type(result).__name__}) for {what}.\nThe call: {call}")
    if not abs(result - expected) <= TOLERANCE:  # NaN fails too
        alpha = float(np.minimum(p, q).sum())
        raise GradingFailure(
            f"acceptance_probability got {what} wrong.\n  the call: {call}\n  yours:    {result!r}\n"
            f"  expected: {expected!r} (to {TOLERANCE:g}; Σ min(p, q) = {alpha:.6g} is the value for k = 1)\n"
            "Enumerate every sequence of k candidates with its probability (without replacement: each next one "
            "from q with the earlier ones removed) and walk the rule along it, updating p (and q) after each rejection."
        )
    return result


RANDOM_CASES = 60  # per vocabulary size and variant


def random_case(gen, vocab: int, without_replacement: bool):
    """A pair as tests/shared/cases.py gives it, 1 to 4 candidates drawn from q as the variant draws
    them, and uniforms that keep at least 1e-9 away from every decision boundary."""
    p, q = random_pair(gen, vocab, PAIR_STYLES[int(gen.integers(len(PAIR_STYLES)))])
    most = min(4, int(np.count_nonzero(q))) if without_replacement else 4
    candidates = draw_candidates(gen, q, int(gen.integers(1, most + 1)), without_replacement)
    while True:
        uniforms = gen.random(len(candidates) + 1).tolist()
        trace = reference_trace(p, q, candidates, uniforms + list(SPARE), without_replacement)
        if trace.margin() > 1e-9:
            return p, q, candidates, uniforms[: trace.draws]


def check_random_cases(vocab: int, without_replacement: bool, seed: int) -> None:
    gen = case_rng(seed)
    for index in range(RANDOM_CASES):
        p, q, candidates, uniforms = random_case(gen, vocab, without_replacement)
        try:
            check_case(p, q, candidates, uniforms, without_replacement, f"random case {index} of {RANDOM_CASES} (V = {vocab})")
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(The first failing random case; cases before it passed.)", detail=failure.detail) from None


STAT_P = np.array([0.06, 0.54, 0.32, 0.08])
STAT_Q = np.array([0.72, 0.01, 0.08, 0.19])  # a draft far from the target: many rejections
STAT_K = 3
STAT_RUNS = 2_000
STAT_SEEDS = {IID: 20261215, WITHOUT: 20261216}
STAT_ALPHA = 1e-3  # reject when the chi-square p-value is below this


def emitted_counts(verify, without_replacement: bool, runs: int, seed: int) -> np.ndarray:
    """Run ``verify`` on candidates drawn from q (as the variant's draft draws them); count the tokens."""
    gen = np.random.default_rng(seed)
    counts = np.zeros(len(STAT_P), dtype=np.int64)
    name = NAMES[without_replacement]
    for _ in range(runs):
        candidates = draw_candidates(gen, STAT_Q, STAT_K, without_replacement)
        stream = gen.random(STAT_K + 1)
        result = call_learner(verify, STAT_P, STAT_Q, candidates, ReplayRNG(stream), case="(statistical test)")
        token, _ = checked_result(result, name, len(STAT_P), "(statistical test)")
        counts[token] += 1
    return counts


def emitted_chi_square(verify, without_replacement: bool, runs: int = STAT_RUNS) -> tuple[float, float, np.ndarray]:
    """Pearson's chi-square of the emitted tokens against p: (statistic, p-value, counts)."""
    counts = emitted_counts(verify, without_replacement, runs, STAT_SEEDS[without_replacement])
    statistic, _, pvalue, _ = chi_square_test(counts, STAT_P)
    return statistic, pvalue, counts


def check_distributed_as_p(without_replacement: bool, cause: str) -> None:
    statistic, pvalue, counts = emitted_chi_square(verifier(without_replacement), without_replacement)
    if pvalue < STAT_ALPHA:
        drawn = "without replacement" if without_replacement else "i.i.d."
        raise GradingFailure(
            f"The token {NAMES[without_replacement]} emits is not distributed as the target p.\n"
            f"  runs: {STAT_RUNS}, {STAT_K} candidates drawn {drawn} from q = {STAT_Q.tolist()}\n"
            f"  observed frequencies: {(counts / STAT_RUNS).round(4).tolist()}\n"
            f"  target p:             {STAT_P.tolist()}\n"
            f"  chi-square = {statistic:.1f} (3 degrees of freedom), p-value = {pvalue:.2e} < {STAT_ALPHA}\n"
            f"A common cause: {cause}"
        )
