"""Exercise 27-adaptive-draft-length: how one decoder case is run and judged.

check_case runs the learner's adaptive decoder and the reference (tests/reference/
ex27_reference.py) on the same models and seed, both wrapped in RecordingModel, and compares every
row's tokens, every call each model received (exercise 25's comparison: ids, row lengths, mask,
positions, crops, in round order), the statistics and the generator's state. The report adds, per
round, what the rules decided: the estimate, rule (b)'s gamma, the cap and rule (a)'s confidences.
The suite's cost tables are here too.
"""

from __future__ import annotations

import torch

from speckata.roofline import modelled_draft_cost, modelled_target_cost
from tests.reference.ex25_cases import check_result_shape, compare_with_trace
from tests.reference.ex25_replay import replay
from tests.reference.ex25_report import mismatch_report
from tests.reference.ex27_reference import reference_adaptive_generate

# A toy table: one row is free to verify (n costs nothing), two rows pay a little, four rows a lot.
TOY_COSTS = ([[10.0] * 5, [10.0, 12.0, 14.0, 16.0, 18.0], [10.0, 20.0, 30.0, 40.0, 50.0]], [1.0, 1.0, 1.0], [1, 2, 4])
# Modelled H100 costs of Llama-3-8B with a Llama-3.2-1B draft (speckata.roofline) at 1024 cached tokens.
GPU_SIZES = [1, 4, 16, 64, 256]
GPU_COSTS = (modelled_target_cost(GPU_SIZES, 9, [1024])[:, :, 0].tolist(),
             modelled_draft_cost(GPU_SIZES, [1024])[:, 0].tolist(),
             GPU_SIZES)
# Verifying is free for one row and not for two: once a row is done, rule (b) reads the first row.
FINISHING_COSTS = ([[10.0] * 5, [10.0, 12.0, 14.0, 16.0, 18.0]], [1.0, 1.0], [1, 2])
# Drafting pays above alpha 0.5 for one row, 0.7 for two, never for four: rule (b) often says 0.
PROBE_COSTS = ([[10.0, 14.0, 18.0, 22.0, 26.0], [10.0, 16.0, 22.0, 28.0, 34.0], [10.0, 20.0, 30.0, 40.0, 50.0]],
               [1.0, 1.0, 1.0], [1, 2, 4])

# A stop decision closer to the threshold than this may go either way with float rounding (a
# float32 draft's probabilities multiplied in float32 or float64): such a case is a bad case.
MIN_THRESHOLD_GAP = {torch.float32: 1e-5, torch.float64: 1e-9}


def describe(models: str, prompts, max_new_tokens, max_gamma, seed, temperature, rules: dict) -> str:
    settings = "".join(f", {name}={value!r}" for name, value in rules.items())
    return (f"The case: adaptive_speculative_generate(target, draft, prompts={[list(p) for p in prompts]}, "
            f"max_new_tokens={max_new_tokens}, max_gamma={max_gamma}, generator=torch.Generator().manual_seed({seed}), "
            f"temperature={temperature}{settings})\n  models: {models}")


def rules_lines(trace, around: int | None = None, shown: int = 8) -> list[str]:
    """The rules' decisions, round by round: the rounds up to `around` (the first differing round), or the first ones."""
    first = 0 if around is None else max(0, min(around + 1, len(trace.rounds)) - shown)
    lines = ["The rules' decisions in the reference (ema before the round, rule (b)'s gamma, the cap, k after rule (a)):"]
    for round_ in trace.rounds[first : first + shown]:
        confidences = "; ".join("[" + ", ".join(f"{c:.3f}" for c in pass_) + "]" for pass_ in round_.confidences)
        gamma = f"{round_.gamma} (a probe)" if round_.probe else f"{round_.gamma}"
        lines.append(f"  round {round_.number}: {len(round_.rows)} active rows, ema {round_.ema:.4f}, gamma {gamma}, most {round_.most}, "
                     f"k {round_.k}; path confidences after each draft pass: {confidences or 'none'}")
    return lines


def check_case(function, models: str, target, draft, prompts, max_new_tokens, max_gamma, seed, temperature=1.0, **rules):
    """Run the learner and the reference on the same models and seed; compare everything."""
    case = describe(models, prompts, max_new_tokens, max_gamma, seed, temperature, rules)

    def run_reference(ref_target, ref_draft, generator):
        return reference_adaptive_generate(ref_target, ref_draft, prompts, max_new_tokens, max_gamma, generator,
                                           temperature, **rules)

    run = replay("adaptive_speculative_generate", function, run_reference, target, draft, prompts, seed, case,
                 max_new_tokens, max_gamma, temperature=temperature, **rules)
    check_result_shape(run.result, len(prompts), max_new_tokens)
    trace = run.trace
    gap = min([round_.closest for round_ in trace.rounds] + [float("inf")])
    dtype = next(draft.parameters()).dtype if hasattr(draft, "parameters") else torch.float64
    assert gap > MIN_THRESHOLD_GAP[dtype], f"a path confidence within {gap:.1e} of the threshold: pick another case"

    def fail(headline):
        report = mismatch_report(headline, case, trace, run.result.tokens, run.call_difference)
        report.add("", *rules_lines(trace, None if run.first is None else run.first.round))
        raise report.failure()

    compare_with_trace("adaptive_speculative_generate", run, fail)
    return run.result, trace
