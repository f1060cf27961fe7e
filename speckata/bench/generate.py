"""``python -m speckata.bench generate``: speculative decoding on the trained models, measured.

One run, on the committed character-level target and draft (speckata.models.pretrained), of
exercise 10's speculative_generate (the reference solution in solutions/, or ``--target DIR``)
against autoregressive_generate, for γ = 1, 2, 4, 8. For each γ it prints:

- α          the measured acceptance rate: accepted drafts / drafts tested (a rejection ends a
             round, so the drafts after it are never tested);
- tok/pass   new tokens per target pass, measured, beside (1 − α^(γ+1)) / (1 − α) from that α;
- speedup    wall-clock time of autoregressive_generate over speculative_generate for the same
             tokens, beside the bound (1 − α^(γ+1)) / ((1 − α)(γc + 1)), where c is the measured
             cost of one draft pass over one target pass (each fed one token);
- verify     the measured cost of the target pass that verifies γ drafts (γ + 1 tokens) over a
             one-token pass. The bound assumes 1; on a GPU it is close to 1, on small CPU models
             it is not, and this column says how far the premise holds here.

Every timing is the minimum over ``--repeats`` runs, with baseline and speculative runs
interleaved, on one thread by default (tiny models gain nothing from a second one, and lose a lot
when the machine is busy). Compare ratios, which are measured side by side.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time

import torch

from speckata.decoding.baseline import autoregressive_generate
from speckata.manifest import repo_root
from speckata.models.pretrained import char_tokenizer, load_draft, load_target
from speckata.real.graded import graded_function

PROMPTS = ["The ", "Assignment statements ", "   for_stmt ::= ", "If the exception ", "A class definition "]
GAMMAS = (1, 2, 4, 8)


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m speckata.bench generate", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=200, help="new tokens per prompt (default 200)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs of everything (default 3)")
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--target", default="solutions", help="folder holding ex10_speculative_generate.py (default solutions)")
    return parser.parse_args(argv)


@functools.cache
def exercise_03_reference():
    """Exercise 03's reference solution, loaded from solutions/ (the package never holds an exercise's
    answer; the bench is run from a checkout, which has it)."""
    import importlib.util

    path = repo_root() / "solutions" / "ex03_speedup.py"
    spec = importlib.util.spec_from_file_location("speckata_bench_reference_ex03", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def expected_tokens_per_pass(alpha: float, gamma: int) -> float:
    """Exercise 03's formula, from its reference solution."""
    return exercise_03_reference().expected_tokens_per_pass(alpha, gamma)


def speedup_bound(alpha: float, gamma: int, cost_ratio: float) -> float:
    """Exercise 03's walltime_speedup, from its reference solution."""
    return exercise_03_reference().walltime_speedup(alpha, gamma, cost_ratio)


def pass_seconds(model, new_tokens: int, cached: int = 100, calls: int = 200) -> float:
    """Minimum time of one forward_new of ``new_tokens`` tokens after ``cached`` tokens."""
    model.reset()
    model.forward_new([1] * cached)
    best = float("inf")
    for _ in range(calls):
        started = time.perf_counter()
        model.forward_new([1] * new_tokens)
        best = min(best, time.perf_counter() - started)
        model.crop(cached)
    return best


def measure(tokens: int = 200, repeats: int = 3, temperature: float = 1.0, seed: int = 0, target: str = "solutions",
            gammas=GAMMAS, generate=None) -> dict:
    """Everything the table prints, as a dict (the notebook plots it). The decoder timed is
    ``generate`` when given (notebook 10 passes the reader's), else ``target``'s speculative_generate."""
    speculative_generate = generate or graded_function("ex10_speculative_generate", "speculative_generate", target)
    target_model, draft = load_target(), load_draft()
    prompts = [char_tokenizer().encode(text) for text in PROMPTS]
    one_target, one_draft = pass_seconds(target_model, 1), pass_seconds(draft, 1)
    verify = {gamma: pass_seconds(target_model, gamma + 1) / one_target for gamma in gammas}
    best = {"baseline": float("inf"), **{gamma: float("inf") for gamma in gammas}}
    stats = {}
    for _ in range(repeats):
        started = time.perf_counter()
        for index, prompt in enumerate(prompts):
            autoregressive_generate(target_model, prompt, tokens, torch.Generator().manual_seed(seed + index), temperature)
        best["baseline"] = min(best["baseline"], time.perf_counter() - started)
        for gamma in gammas:
            accepted = tested = emitted = passes = 0
            started = time.perf_counter()
            for index, prompt in enumerate(prompts):
                result = speculative_generate(target_model, draft, prompt, tokens, gamma,
                                              torch.Generator().manual_seed(seed + index), temperature)
                accepted += sum(result.accepted_per_pass)
                tested += sum(min(k, a + 1) for a, k in zip(result.accepted_per_pass, result.drafted_per_pass))
                emitted += len(result.tokens)
                passes += result.target_passes
            best[gamma] = min(best[gamma], time.perf_counter() - started)
            stats[gamma] = {"alpha": accepted / tested, "tokens_per_pass": emitted / passes}
    cost_ratio = one_draft / one_target
    rows = []
    for gamma in gammas:
        alpha = stats[gamma]["alpha"]
        rows.append({"gamma": gamma, "alpha": alpha, "tokens_per_pass": stats[gamma]["tokens_per_pass"],
                     "tokens_per_pass_formula": expected_tokens_per_pass(alpha, gamma),
                     "speedup": best["baseline"] / best[gamma], "speedup_bound": speedup_bound(alpha, gamma, cost_ratio),
                     "verify_cost": verify[gamma]})
    return {"cost_ratio": cost_ratio, "target_ms": one_target * 1e3, "draft_ms": one_draft * 1e3,
            "baseline_s": best["baseline"], "rows": rows, "tokens": tokens * len(prompts)}


def main(argv: list[str]) -> int:
    args = parse(argv)
    torch.set_num_threads(args.threads)
    result = measure(args.tokens, args.repeats, args.temperature, args.seed, args.target)
    print(f"speculative decoding on the committed char-level models: {result['tokens']} new tokens "
          f"({len(PROMPTS)} prompts x {args.tokens}), temperature {args.temperature}, {args.threads} thread(s), "
          f"best of {args.repeats}")
    print(f"one-token pass: target {result['target_ms']:.3f} ms, draft {result['draft_ms']:.3f} ms -> "
          f"c = {result['cost_ratio']:.3f}; autoregressive baseline {result['baseline_s']:.2f} s")
    print(f"{'gamma':>5}  {'alpha':>6}  {'tok/pass':>8}  {'formula':>7}  {'speedup':>7}  {'bound':>6}  {'of bound':>8}  {'verify':>6}")
    for row in result["rows"]:
        print(f"{row['gamma']:>5}  {row['alpha']:>6.3f}  {row['tokens_per_pass']:>8.3f}  {row['tokens_per_pass_formula']:>7.3f}  "
              f"{row['speedup']:>6.2f}x  {row['speedup_bound']:>5.2f}x  {row['speedup'] / row['speedup_bound']:>7.0%}  "
              f"{row['verify_cost']:>5.2f}x")
    print("formula: (1 - a^(g+1)) / (1 - a); bound: formula / (g c + 1); verify: a pass of g+1 tokens over a one-token pass")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
