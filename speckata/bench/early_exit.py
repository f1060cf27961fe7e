"""``python -m speckata.bench early_exit``: exercise 23's early exit at every exit layer, on both committed
targets, the shipped one (never trained to exit early) and its LayerSkip twin (trained to).

For each target: plain decoding and early exit after k = 1 .. 5 layers, on the same held-out
prompts (``--seed-sets`` sets of ``--prompts`` prompts, one generator seed per prompt), every
decoder of both targets run once per set per repeat, interleaved; each set's time is the median
of ``--repeats``. Per decoder: tokens per verification pass, the acceptance rate (kept drafts over
drafts tested), the target's layer computations per new token (the prompt's excluded) and the
speedup over the same target's plain decoding, each over all sets, then min..max across them.

The second table is the cost model (``speckata.bench.early_exit_steps``): one shallow draft step
and one verification pass at each k, in plain decoding steps, and the speedup they predict from
the measured tokens per pass, tau / (drafts per pass x step + verification). One torch thread
by default; compare ratios within one run, never absolute times across runs. ``--json PATH``
writes every figure and the command (speckata/bench/results/early-exit.json is the committed run
page 23 reads).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

from speckata.bench._held_out import add_held_out_arguments, seed_sets
from speckata.bench._record import write_record
from speckata.bench.early_exit_steps import step_costs
from speckata.bench.heads import spread
from speckata.decoding.baseline import autoregressive_generate
from speckata.models.pretrained import load_layerskip_target, load_target
from speckata.real.graded import graded_function

TARGETS = {"shipped": load_target, "layerskip": load_layerskip_target}


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m speckata.bench early_exit", description=__doc__.split("\n\n")[0])
    add_held_out_arguments(parser)
    parser.add_argument("--gamma", type=int, default=4, help="drafts per round (default 4)")
    parser.add_argument("--temperature", type=float, default=0.0, help="default 0 (greedy)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", type=Path, help="write the figures and the command here")
    parser.add_argument("--target", default="solutions", help="folder holding exercise 23 (default solutions)")
    return parser.parse_args(argv)


def decoders(args, model) -> dict:
    """name -> run(prompt, generator): plain decoding, then early exit after every k = 1 .. L - 1."""
    early = graded_function("ex23_early_exit", "early_exit_generate", args.target)
    runs = {"plain": lambda p, g: autoregressive_generate(model, p, args.tokens, g, args.temperature)}
    for k in range(1, model.num_layers):
        runs[f"exit k={k}"] = lambda p, g, k=k: early(model, p, args.tokens, k, args.gamma, g, args.temperature)
    return runs


def measure(args, models, sets) -> dict:
    """Per (target, decoder): per seed set, the first repeat's results and layer computations, and every repeat's time."""
    runs = {name: decoders(args, model) for name, model in models.items()}
    cells = {(t, d): {"results": [], "layers": [], "seconds": [[] for _ in sets]} for t in runs for d in runs[t]}
    for repeat in range(args.repeats):
        for index, pairs in enumerate(sets):
            for target, model in models.items():
                for name, run in runs[target].items():  # interleaved: both targets, every decoder, once per set
                    cell, before, start = cells[target, name], model.layer_computations, time.perf_counter()
                    results = [run(prompt, torch.Generator().manual_seed(seed)) for prompt, seed in pairs]
                    cell["seconds"][index].append(time.perf_counter() - start)
                    if repeat == 0:  # the prompts' own passes excluded: every decoder runs all layers over them
                        cell["results"].append(results)
                        prompt_layers = sum(len(prompt) for prompt, _ in pairs) * model.num_layers
                        cell["layers"].append(model.layer_computations - before - prompt_layers)
    return cells


def figures(args, cells) -> dict:
    made = args.prompts * args.tokens  # new tokens per seed set
    rows = {}
    for (target, name), cell in cells.items():
        plain = [statistics.median(times) for times in cells[target, "plain"]["seconds"]]
        mine = [statistics.median(times) for times in cell["seconds"]]
        flat = [r for results in cell["results"] for r in results]
        passes = [made if name == "plain" else sum(r.target_passes for r in results) for results in cell["results"]]
        drafted = sum(sum(min(d, a + 1) for a, d in zip(r.accepted_per_pass, r.drafted_per_pass)) for r in flat) if name != "plain" else 0
        rows[f"{target} {name}"] = {
            "tokens_per_pass": made * len(passes) / sum(passes), "tokens_per_pass_per_set": [made / p for p in passes],
            "acceptance": sum(sum(r.accepted_per_pass) for r in flat) / drafted if drafted else None,
            "drafts_per_pass": sum(r.draft_passes for r in flat) / sum(passes) if name != "plain" else 0.0,
            "layers_per_token": sum(cell["layers"]) / (made * len(passes)),
            "speedup": sum(plain) / sum(mine), "speedup_per_set": [p / m for p, m in zip(plain, mine)],
        }
    return rows


def predicted(rows, steps, target: str, k: int) -> float:
    """The cost model: tau plain steps of output for (drafts per pass) shallow steps and one verification."""
    row, cost = rows[f"{target} exit k={k}"], steps[k]
    return row["tokens_per_pass"] / (row["drafts_per_pass"] * cost["shallow_step"] + cost["verification"])


def main(argv: list[str]) -> int:
    args = parse(argv)
    torch.set_num_threads(args.threads)
    models = {name: load() for name, load in TARGETS.items()}
    rows = figures(args, measure(args, models, seed_sets(args)))
    steps = step_costs(models["layerskip"], args.prompt_length + args.tokens, args.gamma, args.temperature)
    print(f"{args.seed_sets} seed sets of {args.prompts} held-out prompts of {args.prompt_length} characters x "
          f"{args.tokens} new tokens, gamma {args.gamma}, temperature {args.temperature:g}, {args.threads} thread(s), "
          f"{args.repeats} interleaved repeats; each figure over all seed sets, then min..max across them")
    print(f"{'target, decoder':20} {'tok/pass':>8} {'spread':>10} {'accept':>6} {'layers/tok':>10} {'speedup':>7} "
          f"{'spread':>10} {'predicted':>9}")
    for name, row in rows.items():
        target, _, decoder = name.partition(" ")
        guess = f"{predicted(rows, steps, target, int(decoder[-1])):9.2f}" if decoder != "plain" else " " * 9
        accept = f"{row['acceptance']:6.2f}" if row["acceptance"] is not None else " " * 6
        print(f"{name:20} {row['tokens_per_pass']:8.2f} {spread(row['tokens_per_pass_per_set']):>10} {accept} "
              f"{row['layers_per_token']:10.2f} {row['speedup']:7.2f} {spread(row['speedup_per_set']):>10} {guess}")
    print(f"\nthe cost model's steps, in plain decoding steps (one token through all layers, its q and sample), "
          f"at a context of {args.prompt_length + args.tokens} (median of 7 interleaved timings, min..max):")
    for k, cost in steps.items():
        print(f"  k={k}: shallow draft step {cost['shallow_step']:.3f} ({spread(cost['shallow_spread'], 3)}), "
              f"verification of {args.gamma} drafts {cost['verification']:.3f} ({spread(cost['verification_spread'], 3)})")
    if args.json:
        record = {"command": "python -m speckata.bench early_exit " + " ".join(argv),
                  "settings": vars(args) | {"json": None}, "rows": rows, "step_costs": steps,
                  "predicted": {f"{t} exit k={k}": predicted(rows, steps, t, k) for t in TARGETS for k in steps}}
        write_record(args.json, record)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
