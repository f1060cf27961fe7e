"""``python -m speckata.bench adaptive``: exercise 27's adaptive draft length against every fixed gamma, in table cost.

On the committed target and draft, for each batch size (``--batch-sizes``, default 1 and 16 rows)
and each seed set (``--seed-sets``, default 5: seed set s takes the held-out
windows of ``--prompt-length`` characters s·B .. s·B + B - 1 as prompts, and generator seed s), exercise 27's decoder runs with
every fixed gamma 1 .. ``--max-gamma`` (no rules: exercise 25's decoder), with rule (a) alone
(``--threshold``), rule (b) alone (the cost table) and both rules. Plain decoding is one target pass
of one token per row per token.

The figure is tokens per millisecond of TABLE COST, not of this machine's clock: a round with A
active rows and k drafts costs c(A, k + 1, L) + k · d(A, L), read from exercise 26's pass-cost
table (``--costs``, default speckata/bench/results/cost-shipped.json, ``python -m speckata.bench cost``)
at the context column ``--context`` (default its first), the rows between two measured batch sizes
interpolated linearly. The prompts' first pass is charged to nobody (every decoder makes it).
Rule (b) reads the same table's column. Each decoder's figure is the median over the seed sets with
the spread (min .. max); an adaptive decoder's gain is, per seed set, its figure over the best fixed
gamma's (the fixed gamma with the best median), as median (min .. max). ``--json PATH`` writes it all.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np
import torch

from speckata.bench._record import report_and_record
from speckata.manifest import repo_root
from speckata.models.pretrained import load_draft, load_target, text_windows
from speckata.real.graded import graded_function

COST_FILE = "speckata/bench/results/cost-shipped.json"  # committed by exercise 26's bench


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m speckata.bench adaptive", description=__doc__.split("\n\n")[0])
    parser.add_argument("--costs", type=Path, default=Path(COST_FILE), help=f"pass-cost table (default {COST_FILE})")
    parser.add_argument("--context", type=int, help="the table's context length to read (default its first)")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 16], metavar="B")
    parser.add_argument("--tokens", type=int, default=64, help="new tokens per row (default 64)")
    parser.add_argument("--prompt-length", type=int, default=32, help="characters per prompt (default 32)")
    parser.add_argument("--seed-sets", type=int, default=5, help="prompt and seed sets (default 5)")
    parser.add_argument("--max-gamma", type=int, default=8, help="fixed gammas 1 .. this; the rules' cap (default 8)")
    parser.add_argument("--threshold", type=float, default=0.3, help="rule (a)'s threshold (default 0.3)")
    add_rule_and_run_arguments(parser)
    return parser.parse_args(argv)


def add_rule_and_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The options both adaptive benches end with (this one and adaptive_mixed), in this order."""
    parser.add_argument("--beta", type=float, default=0.5)
    parser.add_argument("--initial-alpha", type=float, default=0.5)
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--target", default="solutions", help="folder holding exercise 27 (default solutions)")
    parser.add_argument("--json", type=Path, help="write the figures and the command here")


def load_costs(path: Path, context: int | None) -> dict:
    """target (num_B, N) and draft (num_B,) in ms at one context column, the batch sizes and the record's provenance."""
    record = json.loads((path if path.is_absolute() else repo_root() / path).read_text())
    contexts = list(record["context_lengths"])
    column = 0 if context is None else contexts.index(context)
    return {"target": np.array(record["target_cost"]["median"])[:, :, column] * 1e3,
            "draft": np.array(record["draft_cost"]["median"])[:, column] * 1e3,
            "batch_sizes": [int(b) for b in record["batch_sizes"]], "context": contexts[column],
            "source": {"file": str(path), "command": record.get("command"), "machine": record.get("machine")}}


def round_cost(costs: dict, active: int, k: int) -> float:
    """c(A, k + 1, L) + k · d(A, L), linear in A between the table's batch sizes (flat beyond its ends)."""
    sizes = costs["batch_sizes"]
    return float(np.interp(active, sizes, costs["target"][:, k]) + k * np.interp(active, sizes, costs["draft"]))


def table_cost(costs: dict, result) -> float:
    """Sum over the rounds of a BatchedSpeculativeResult; row b is active in its first len(accepted_per_row[b]) rounds."""
    taken = [len(rounds) for rounds in result.accepted_per_row]
    return sum(round_cost(costs, sum(t > r for t in taken), k) for r, k in enumerate(result.drafted_per_round))


def decoders(args, costs: dict) -> dict:
    """name -> keyword arguments of adaptive_speculative_generate (max_gamma among them)."""
    table = (costs["target"].tolist(), costs["draft"].tolist(), costs["batch_sizes"])
    runs = {f"fixed g={g}": {"max_gamma": g} for g in range(1, args.max_gamma + 1)}
    runs[f"rule (a) t={args.threshold:g}"] = {"max_gamma": args.max_gamma, "threshold": args.threshold}
    runs["rule (b)"] = {"max_gamma": args.max_gamma, "costs": table}
    runs["rules (a)+(b)"] = {"max_gamma": args.max_gamma, "threshold": args.threshold, "costs": table}
    for settings in runs.values():
        if "costs" in settings:
            settings.update(beta=args.beta, initial_alpha=args.initial_alpha)
    return runs


def spread(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def measure(args) -> dict:
    torch.set_num_threads(args.threads)
    costs = load_costs(args.costs, args.context)
    generate = graded_function("ex27_adaptive_draft_length", "adaptive_speculative_generate", args.target)
    target, draft = load_target(), load_draft()
    runs = decoders(args, costs)
    windows = text_windows("held_out", args.prompt_length, args.seed_sets * max(args.batch_sizes))
    if len(windows) < args.seed_sets * max(args.batch_sizes):
        raise SystemExit(f"the held-out text holds {len(windows)} windows of {args.prompt_length} characters; "
                         f"{args.seed_sets} seed sets of {max(args.batch_sizes)} rows need more")
    figures = {}
    for B in args.batch_sizes:
        per_decoder = {"plain": [B * args.tokens / (args.tokens * round_cost(costs, B, 0))] * args.seed_sets}
        per_decoder.update({name: [] for name in runs})
        for s in range(args.seed_sets):
            prompts = [row.tolist() for row in windows[s * B : (s + 1) * B]]
            for name, settings in runs.items():
                result = generate(target, draft, prompts, args.tokens, generator=torch.Generator().manual_seed(s),
                                  temperature=args.temperature, **settings)
                per_decoder[name].append(B * args.tokens / table_cost(costs, result))
        best = max((name for name in per_decoder if name.startswith("fixed") or name == "plain"),
                   key=lambda name: statistics.median(per_decoder[name]))
        figures[str(B)] = {"tokens_per_ms": per_decoder, "best_fixed": best,
                           "gain": {name: [a / b for a, b in zip(per_decoder[name], per_decoder[best])]
                                    for name in per_decoder if name.startswith("rule")}}
    return {"command": "python -m speckata.bench adaptive " + " ".join(sys.argv[2:] if sys.argv[1:2] == ["adaptive"] else []),
            "settings": {key: (str(value) if isinstance(value, Path) else value) for key, value in vars(args).items()},
            "costs": {"context": costs["context"], "batch_sizes": costs["batch_sizes"], **costs["source"],
                      "target_ms": costs["target"].tolist(), "draft_ms": costs["draft"].tolist()},
            "figures": figures}


def report(record: dict) -> None:
    settings = record["settings"]
    print(f"{settings['tokens']} new tokens per row, temperature {settings['temperature']:g}, {settings['seed_sets']} seed "
          f"sets; cost: table {record['costs']['file']} at L = {record['costs']['context']} (ms)")
    for B, figure in record["figures"].items():
        print(f"\nB = {B} rows: tokens per ms of table cost, median (min .. max) over seed sets")
        for name, values in figure["tokens_per_ms"].items():
            s = spread(values)
            gain = figure["gain"].get(name)
            extra = f"   gain over {figure['best_fixed']}: x{spread(gain)['median']:.3f} ({min(gain):.3f} .. {max(gain):.3f})" \
                if gain else ("   <- best fixed" if name == figure["best_fixed"] else "")
            print(f"  {name:18} {s['median']:8.3f} ({s['min']:.3f} .. {s['max']:.3f}){extra}")


def main(argv: list[str]) -> int:
    args = parse(argv)
    return report_and_record(args, measure(args), report)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
