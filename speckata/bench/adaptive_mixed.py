"""``python -m speckata.bench adaptive_mixed``: exercise 27's rules on a mixed workload, in table cost.

Where acceptance moves. A seed set's workload is several batches run one after another, each a
call of exercise 27's decoder (exercise 25's contract: one max_new_tokens for all rows):
for each size B in ``--batch-sizes`` (default 1 8 16), B = 1 gives two batches (one underline
row, one prose row) and B > 1 one batch of B // 2 underline rows beside B - B // 2 prose rows.
A prose row's prompt is a held-out window of 32 characters; an underline row's is a held-out
window of 16 characters, a newline and 15 asterisks, the way the corpus underlines its headings:
both models continue the underline (drafts kept) and then write prose (drafts rejected), so its
acceptance drifts within the row, and such rows finish in fewer rounds than the prose beside them,
so the active rows fall. The figure of a decoder is the workload's tokens over its table cost
(speckata/bench/adaptive.py: c(A, k + 1, L) + k d(A, L) per round, from the committed table).

Every fixed gamma 0 .. ``--max-gamma`` (0: plain decoding, charged one pass of one token per row
per token) is one setting for the whole workload; the best in hindsight is, per seed set, the one
with that seed set's highest figure. Each adaptive decoder's settings (rule (a)'s threshold, the
probe's probe_every) are chosen on ``--holdout-sets`` seed sets (prompts and seeds the evaluation
never uses) as the best median gain there; the evaluation's ``--seed-sets`` then report each
decoder's gain over that seed set's best fixed gamma and over plain, median (min .. max).
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
from pathlib import Path

import torch

from speckata.bench._record import report_and_record
from speckata.bench.adaptive import COST_FILE, add_rule_and_run_arguments, load_costs, round_cost, spread, table_cost
from speckata.models.pretrained import char_tokenizer, load_draft, load_target, text_windows
from speckata.real.graded import graded_function

UNDERLINE = "\n" + "*" * 15  # 16 characters: with a 16-character title, a 32-character prompt


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m speckata.bench adaptive_mixed", description=__doc__.split("\n\n")[0])
    parser.add_argument("--costs", type=Path, default=Path(COST_FILE), help=f"pass-cost table (default {COST_FILE})")
    parser.add_argument("--context", type=int, help="the table's context length to read (default its first)")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 8, 16], metavar="B")
    parser.add_argument("--tokens", type=int, default=40, help="new tokens per row (default 40)")
    parser.add_argument("--seed-sets", type=int, default=5, help="evaluation seed sets (default 5)")
    parser.add_argument("--holdout-sets", type=int, default=2, help="seed sets that choose the settings (default 2)")
    parser.add_argument("--max-gamma", type=int, default=8, help="fixed gammas 0 .. this; the rules' cap (default 8)")
    parser.add_argument("--thresholds", type=float, nargs="+", default=[0.1, 0.3], help="rule (a)'s candidates")
    parser.add_argument("--probe-every", type=int, nargs="+", default=[2, 8], help="the probe's candidates")
    add_rule_and_run_arguments(parser)
    return parser.parse_args(argv)


def workload(args, seed_set: int) -> list[list[list[int]]]:
    """The batches of one seed set (a list of prompt lists); seed sets never share a window."""
    rows = sum(2 if B == 1 else B for B in args.batch_sizes)
    half = [B // 2 if B > 1 else 1 for B in args.batch_sizes]
    prose = text_windows("held_out", 32)
    titles = text_windows("held_out", 16)
    tokenizer = char_tokenizer()
    first = seed_set * rows
    if first + rows > min(len(prose), len(titles) // 2):
        raise SystemExit(f"{seed_set + 1} seed sets of {rows} rows need more held-out windows than the text has")
    prose_rows = iter(row.tolist() for row in prose[first : first + rows])
    # titles from the text's second half, so an underline row never repeats a prose row's words
    underline_rows = iter(row.tolist() + tokenizer.encode(UNDERLINE) for row in titles[len(titles) - first - rows : len(titles) - first])
    batches = []
    for B, u in zip(args.batch_sizes, half):
        if B == 1:
            batches += [[next(underline_rows)], [next(prose_rows)]]
        else:
            kinds = [next(underline_rows) for _ in range(u)], [next(prose_rows) for _ in range(B - u)]
            batches.append([row for pair in itertools.zip_longest(*kinds) for row in pair if row is not None])
    return batches


def candidates(args, costs: dict) -> dict[str, list[dict]]:
    """decoder -> its candidate settings (keyword arguments of adaptive_speculative_generate)."""
    table = {"costs": (costs["target"].tolist(), costs["draft"].tolist(), costs["batch_sizes"]),
             "beta": args.beta, "initial_alpha": args.initial_alpha}
    fixed = {f"fixed g={g}": [{"max_gamma": g}] for g in range(1, args.max_gamma + 1)}
    top = {"max_gamma": args.max_gamma}
    return {**fixed,
            "rule (a)": [{**top, "threshold": t} for t in args.thresholds],
            "rule (b)": [{**top, **table}],
            "rule (b) + probe": [{**top, **table, "probe_every": n} for n in args.probe_every],
            "rules (a)+(b)": [{**top, **table, "threshold": t} for t in args.thresholds],
            "rules (a)+(b) + probe": [{**top, **table, "threshold": t, "probe_every": n}
                                      for t in args.thresholds for n in args.probe_every]}


def run_workload(generate, models, args, costs: dict, seed_set: int, settings: dict | None) -> float:
    """Tokens per ms of table cost over the seed set's batches (settings None: plain decoding)."""
    tokens = cost = 0.0
    for index, prompts in enumerate(workload(args, seed_set)):
        tokens += len(prompts) * args.tokens
        if settings is None:
            cost += args.tokens * round_cost(costs, len(prompts), 0)
            continue
        result = generate(*models, prompts, args.tokens, generator=torch.Generator().manual_seed(1000 * seed_set + index),
                          temperature=args.temperature, **settings)
        cost += table_cost(costs, result)
    return tokens / cost


def figures(generate, models, args, costs, seed_sets, chosen: dict) -> dict:
    """decoder -> tokens per ms per seed set; plain and the fixed gammas, then each decoder's chosen settings."""
    runs = {"fixed g=0": [run_workload(generate, models, args, costs, s, None) for s in seed_sets]}
    for name, settings in chosen.items():
        runs[name] = [run_workload(generate, models, args, costs, s, settings) for s in seed_sets]
    return runs


def gains(runs: dict) -> dict:
    """Per adaptive decoder: per seed set, its figure over the best fixed gamma's in hindsight and over plain."""
    fixed = [name for name in runs if name.startswith("fixed")]
    best = [max(fixed, key=lambda name: runs[name][s]) for s in range(len(runs["fixed g=0"]))]
    return {"best_fixed": best,
            "over_best_fixed": {name: [v / runs[b][s] for s, (v, b) in enumerate(zip(values, best))]
                                for name, values in runs.items() if not name.startswith("fixed")},
            "over_plain": {name: [v / p for v, p in zip(values, runs["fixed g=0"])]
                           for name, values in runs.items() if not name.startswith("fixed")}}


def measure(args) -> dict:
    torch.set_num_threads(args.threads)
    costs = load_costs(args.costs, args.context)
    generate = graded_function("ex27_adaptive_draft_length", "adaptive_speculative_generate", args.target)
    models = (load_target(), load_draft())
    options = candidates(args, costs)
    holdout = list(range(args.seed_sets, args.seed_sets + args.holdout_sets))
    every = {f"{name} #{i}": settings for name, group in options.items() for i, settings in enumerate(group)}
    held = figures(generate, models, args, costs, holdout, every)
    held_gain = gains(held)["over_best_fixed"]
    chosen = {name: group[0] if len(group) == 1 else
              group[max(range(len(group)), key=lambda i: statistics.median(held_gain[f"{name} #{i}"]))]
              for name, group in options.items()}
    evaluation = figures(generate, models, args, costs, list(range(args.seed_sets)), chosen)
    printable = {name: {k: (v if k != "costs" else "the table") for k, v in settings.items()} for name, settings in chosen.items()}
    return {"command": "python -m speckata.bench adaptive_mixed " + " ".join(sys.argv[2:] if sys.argv[1:2] == ["adaptive_mixed"] else []),
            "settings": {key: (str(value) if isinstance(value, Path) else value) for key, value in vars(args).items()},
            "costs": {"context": costs["context"], "batch_sizes": costs["batch_sizes"], **costs["source"]},
            "workload": [[len(batch) for batch in workload(args, 0)]],
            "holdout": {"tokens_per_ms": held, "gain_over_best_fixed": held_gain},
            "chosen": printable,
            "evaluation": {"tokens_per_ms": evaluation, **gains(evaluation)}}


def report(record: dict) -> None:
    settings, evaluation = record["settings"], record["evaluation"]
    print(f"mixed workload: batches of {record['workload'][0]} rows, {settings['tokens']} new tokens per row, temperature "
          f"{settings['temperature']:g}; cost: table {record['costs']['file']} at L = {record['costs']['context']}")
    print(f"settings chosen on {settings['holdout_sets']} hold-out seed sets: "
          + "; ".join(f"{name}: {', '.join(f'{k}={v}' for k, v in s.items() if k in ('threshold', 'probe_every')) or '-'}"
                      for name, s in record["chosen"].items() if not name.startswith("fixed")))
    print(f"\n{settings['seed_sets']} evaluation seed sets: tokens per ms of table cost, median (min .. max)")
    for name, values in evaluation["tokens_per_ms"].items():
        s = spread(values)
        line = f"  {name:22} {s['median']:7.3f} ({s['min']:.3f} .. {s['max']:.3f})"
        if name in evaluation["over_best_fixed"]:
            a, p = spread(evaluation["over_best_fixed"][name]), spread(evaluation["over_plain"][name])
            line += (f"   over the best fixed: x{a['median']:.3f} ({a['min']:.3f} .. {a['max']:.3f})"
                     f"   over plain: x{p['median']:.3f} ({p['min']:.3f} .. {p['max']:.3f})")
        print(line)
    print("  best fixed gamma in hindsight, per seed set: " + ", ".join(evaluation["best_fixed"]))


def main(argv: list[str]) -> int:
    args = parse(argv)
    return report_and_record(args, measure(args), report)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
