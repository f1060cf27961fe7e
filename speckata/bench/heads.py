"""``python -m speckata.bench heads``: the drafts that live in the target (exercises 21-23, 28-30) beside plain
decoding and a separate draft (exercise 10), on the committed character-level target.

Decoders, each on the same held-out prompts (the first ``--prompt-length`` characters of held-out
windows): plain decoding; exercise 10 with the committed independent draft and with exercise 11's
distilled draft; exercise 21's Medusa heads (greedy only: skipped at T > 0); exercise 22's EAGLE
head, which recomputes its layer over the sequence at every draft step, and exercise 28's, which
keeps its layer's cache, and exercise 30's EAGLE-2 tree on it; exercise 23's early exit after two
choices of k layers. For each: tokens per target pass, acceptance by depth (of the rounds that
drafted at least d tokens, the share that kept at least d; a tree's depths, not its node count),
the target's layer computations per new token (early exit's drafts are the target's own layers),
where the time goes per new token (inside the target's calls, and
everything else: the draft, the sampling, the verify rule), in units of plain decoding's time per
token, the drafts' parameter counts (to compare budgets), and the speedup over plain decoding.

``--model deep`` runs the same decoders on the shipped target's 24-layer twin (the same width,
recipe and data; ``load_deep_target``) with the heads, the distilled draft and the trees trained on
it (``python -m trainers.train_medusa --on deep``, ``... train_eagle --on deep``): EAGLE's setting,
where the head's one layer is a small part of a target pass (speckata/bench/results/heads-deep.json
is its committed run, which page 28 reads).

Exercise 29's Medusa tree, at 8, 16 and 32 nodes, greedy or sampled, comes from
speckata/bench/heads_medusa_tree.py, which also times its tree passes beside Medusa's chain pass.

``--seed-sets`` sets of ``--prompts`` prompts each (different held-out windows, and one generator
seed per prompt): every figure is given over all of them, with its spread (min .. max across the
sets). Each set's time is the median of ``--repeats`` interleaved repeats (every decoder on every
set once per repeat). One torch thread by default; compare ratios within one run, never absolute
times across runs. ``--json PATH`` writes every figure and the command
(speckata/bench/results/heads-shipped.json is the committed run pages 22 and 28 read).
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
from speckata.bench.heads_eagle2 import eagle2_report, eagle2_runs
from speckata.bench.heads_medusa_tree import medusa_tree_runs, tree_pass_costs
from speckata.bench.heads_steps import step_costs
from speckata.decoding.baseline import autoregressive_generate
from speckata.heads.eagle import load_distilled_draft, load_eagle_head
from speckata.heads.medusa import load_medusa_heads
from speckata.models.pretrained import HEAD_TARGETS, load_draft
from speckata.real.graded import graded_function


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m speckata.bench heads", description=__doc__.split("\n\n")[0])
    add_held_out_arguments(parser)
    parser.add_argument("--gamma", type=int, default=4, help="drafts per round for 10, 22, 23 and 28 (default 4)")
    parser.add_argument("--exits", type=int, nargs=2, default=[2, 4], metavar="K",
                        help="two exit layers for exercise 23 (default 2 4)")
    parser.add_argument("--temperature", type=float, default=0.0, help="default 0 (Medusa's heads decode greedily)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--step-timings", type=int, default=7,
                        help="timings of 30 calls of each step in the step table, the median kept (default 7)")
    parser.add_argument("--json", type=Path, help="write the figures and the command here")
    parser.add_argument("--target", default="solutions", help="folder holding exercises 10, 21-23 and 28 (default solutions)")
    parser.add_argument("--model", choices=sorted(HEAD_TARGETS), default="shipped",
                        help="the target and the heads trained on it: the shipped target (6 layers, default) or its "
                             "24-layer twin, deep (EAGLE's setting: a head of one layer beside many)")
    args = parser.parse_args(argv)
    if args.step_timings < 1:
        parser.error(f"--step-timings must be at least 1; got {args.step_timings}")
    return args


class TimedModel:
    """Delegates to ``model``, adding the seconds spent inside its method calls to ``seconds``.

    Its modules (``token_embedding``, ``head``) are handed out untimed: a draft that reads the
    target's head through them is doing the draft's work.
    """

    def __init__(self, model):
        self.model, self.seconds = model, 0.0

    def __getattr__(self, name):
        value = getattr(self.model, name)
        if not callable(value) or isinstance(value, torch.nn.Module):
            return value

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return value(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start
        return timed


def decoders(args, target) -> dict:
    """name -> run(prompt, generator) returning a SpeculativeResult, or a list of tokens for plain."""
    T, gamma, n = args.temperature, args.gamma, args.tokens
    ex10 = graded_function("ex10_speculative_generate", "speculative_generate", args.target)
    medusa = graded_function("ex21_medusa_heads", "medusa_generate", args.target)
    eagle = graded_function("ex22_eagle_head", "eagle_generate", args.target)
    early = graded_function("ex23_early_exit", "early_exit_generate", args.target)
    cached = graded_function("ex28_eagle_head_cache", "eagle_cached_generate", args.target)
    on = args.model
    draft, distilled = load_draft(), load_distilled_draft(on=on)
    heads, head = load_medusa_heads(on=on), load_eagle_head(on=on)
    runs = {
        "plain": lambda p, g: autoregressive_generate(target, p, n, g, T),
        f"ex10 draft g={gamma}": lambda p, g: ex10(target, draft, p, n, gamma, g, T),
        f"ex10 distilled g={gamma}": lambda p, g: ex10(target, distilled, p, n, gamma, g, T),
    }
    if T == 0:
        runs[f"medusa {heads.num_heads} heads"] = lambda p, g: medusa(target, heads, p, n)
    runs.update(medusa_tree_runs(args, target, heads))
    runs[f"eagle g={gamma}"] = lambda p, g: eagle(target, head, p, n, gamma, g, T)
    runs[f"eagle cached g={gamma}"] = lambda p, g: cached(target, head, p, n, gamma, g, T)
    for k in args.exits:
        runs[f"early exit k={k} g={gamma}"] = lambda p, g, k=k: early(target, p, n, k, gamma, g, T)
    runs |= eagle2_runs(args, target, head)  # exercise 30's tree (speckata/bench/heads_eagle2.py)
    sizes = {"draft": draft, "distilled": distilled, "medusa heads": heads, "eagle head": head}
    return runs, {name: sum(t.numel() for t in model.parameters()) for name, model in sizes.items()}


def acceptance_by_depth(results) -> list[float]:
    drafted = [d for r in results for d in r.drafted_per_pass]
    accepted = [a for r in results for a in r.accepted_per_pass]
    # A tree round drafts many nodes but keeps one path: depths past the deepest kept one + 1 say nothing.
    depths = range(1, min(max(drafted, default=0), max(accepted, default=0) + 1) + 1)
    return [sum(a >= d for a, k in zip(accepted, drafted) if k >= d) / max(1, sum(k >= d for k in drafted))
            for d in depths]


def measure(args, runs, target, sets):
    """Per decoder and seed set: the first repeat's results, layer computations, and the times of every repeat."""
    seconds = {name: [[] for _ in sets] for name in runs}  # total, per repeat
    inside = {name: [[] for _ in sets] for name in runs}  # inside the target's calls, per repeat
    first, layers = {name: [] for name in runs}, {name: [] for name in runs}
    for repeat in range(args.repeats):
        for index, pairs in enumerate(sets):
            for name, run in runs.items():  # interleaved: every decoder once per set per repeat
                before, clock, start = target.model.layer_computations, target.seconds, time.perf_counter()
                results = [run(prompt, torch.Generator().manual_seed(seed)) for prompt, seed in pairs]
                seconds[name][index].append(time.perf_counter() - start)
                inside[name][index].append(target.seconds - clock)
                if repeat == 0:  # the prompts' own passes excluded: every decoder runs all layers over them
                    prompt_layers = sum(len(prompt) for prompt, _ in pairs) * target.model.num_layers
                    first[name].append(results)
                    layers[name].append(target.model.layer_computations - before - prompt_layers)
    return first, layers, seconds, inside


def figures(args, first, layers, seconds, inside) -> dict:
    """Per decoder: each figure over all seed sets, and its spread across them."""
    made, median = args.prompts * args.tokens, statistics.median  # new tokens per seed set
    plain = [median(times) for times in seconds["plain"]]
    unit = sum(plain) / (made * len(plain))  # plain decoding's seconds per token
    rows = {}
    for name, per_set in first.items():
        passes = [made if name == "plain" else sum(r.target_passes for r in results) for results in per_set]
        totals, targets = [median(times) for times in seconds[name]], [median(times) for times in inside[name]]
        speedups = [mine / total for mine, total in zip(plain, totals)]
        made_all = made * len(per_set)
        rows[name] = {
            "tokens_per_pass": made_all / sum(passes), "tokens_per_pass_per_set": [made / p for p in passes],
            "layers_per_token": sum(layers[name]) / made_all,
            "target_per_token": sum(targets) / made_all / unit, "draft_per_token": (sum(totals) - sum(targets)) / made_all / unit,
            "speedup": sum(plain) / sum(totals), "speedup_per_set": speedups,
            "acceptance_by_depth": [] if name == "plain" else acceptance_by_depth([r for rs in per_set for r in rs]),
        }
    return rows


def spread(values, digits=2) -> str:
    return f"{min(values):.{digits}f}..{max(values):.{digits}f}"


def main(argv: list[str]) -> int:
    args = parse(argv)
    torch.set_num_threads(args.threads)
    target = TimedModel(HEAD_TARGETS[args.model]())
    runs, parameters = decoders(args, target)
    sets = seed_sets(args)
    rows = figures(args, *measure(args, runs, target, sets))
    context = args.prompt_length + args.tokens  # the longest sequence a run reaches
    on = args.model
    steps = step_costs(target.model, load_eagle_head(on=on), load_medusa_heads(on=on), load_distilled_draft(on=on),
                       context, args.gamma, args.target, repeats=args.step_timings)
    steps.update(tree_pass_costs(target.model, context, args.target, on, repeats=args.step_timings))
    model = target.model
    print(f"{args.seed_sets} seed sets of {args.prompts} held-out prompts of {args.prompt_length} characters x "
          f"{args.tokens} new tokens, temperature {args.temperature:g}, {args.threads} thread(s), {args.repeats} "
          f"interleaved repeats; target: {model.num_layers} layers, {model.num_parameters():,} parameters")
    print("parameters of the drafts: " + ", ".join(f"{name} {count:,}" for name, count in parameters.items()))
    print("layers/tok: the target's layer computations per new token (tokens x layers, the prompt's excluded); "
          "target/tok, draft/tok: seconds per new token inside the target's calls and outside them (the draft, "
          "sampling, the verify rule), in plain decoding's seconds per token; each figure over all seed sets, "
          "then min..max across them")
    print(f"{'decoder':24} {'tok/pass':>8} {'spread':>10} {'layers/tok':>10} {'target/tok':>10} {'draft/tok':>9} "
          f"{'speedup':>7} {'spread':>10}  acceptance by depth 1, 2, ...")
    for name, row in rows.items():
        print(f"{name:24} {row['tokens_per_pass']:8.2f} {spread(row['tokens_per_pass_per_set']):>10} "
              f"{row['layers_per_token']:10.2f} {row['target_per_token']:10.2f} {row['draft_per_token']:9.2f} "
              f"{row['speedup']:7.2f} {spread(row['speedup_per_set']):>10}  "
              + ", ".join(f"{a:.2f}" for a in row["acceptance_by_depth"]))
    print(f"\none draft step against one target pass over one new token, at a context of {context} tokens "
          f"(median of 7 interleaved timings, min..max):")
    for name, cost in steps.items():
        print(f"  {name:32} {cost['passes']:6.3f} target passes   {spread(cost['spread'], 3):>12}")
    eagle2 = eagle2_report(args, target.model, load_eagle_head(on=on), sets, context)
    if args.json:
        record = {"command": "python -m speckata.bench heads " + " ".join(argv), "settings": vars(args) | {"json": None},
                  "parameters": parameters, "rows": rows, "context": context, "step_costs": steps, "eagle2": eagle2}
        write_record(args.json, record)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
