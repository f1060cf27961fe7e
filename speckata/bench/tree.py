"""``python -m speckata.bench tree``: which tree shape earns the most tokens per target pass, beyond seed luck.

On the committed character-level target and draft, every decoder is exercise 20's
tree_speculative_generate, with both of its children rules: "sampled" (SpecInfer's i.i.d. samples
from q, exercise 15's rule) and "top_k" (the draft's most likely tokens, drawn without replacement,
exercise 16's rule). For each node budget n and rule it decodes with: a chain of n nodes; the
fixed tree of earlier runs (two children at the top, the rest a chain under the first; sampled
only); exercise 24's optimal_tree for the acceptance vector measured here for that rule
(Sequoia's DP); exercise 24's dynamic_tree (EAGLE-2: a new tree every round, tree_dynamic.py;
top_k only, as its ranks are the draft's). The prompts are the first characters of held-out windows; the acceptance vector
is measured on other held-out windows (tree_measures.py). Each of --seed-sets seed sets decodes
every prompt once; tokens per pass is reported as the mean over seed sets with its spread (min ..
max across seed sets), beside the value expected_tokens predicts from the vector. It also times,
on one thread, a target pass over w tokens and a draft pass relative to a one-token target pass,
and the wall clock of plain decoding, the chain and the DP tree (sampled children), interleaved.
The default run takes about 110 s of CPU on one thread here (--seed-sets and --tokens scale it).
--json writes everything printed (the committed copy is speckata/real/results/bench-tree.json).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import torch

from speckata.bench.tree_dynamic import dynamic_generate
from speckata.bench.tree_measures import acceptance_vector, pass_costs, spread, wall_clock
from speckata.decoding.baseline import autoregressive_generate
from speckata.decoding.tree_shapes import TreeShape, chain
from speckata.models.pretrained import load_draft, load_target, text_windows
from speckata.real.graded import graded_function

BUDGETS = (4, 8, 16, 32)
KINDS = {"sampled": ("chain", "fixed", "dp"), "top_k": ("chain", "dp", "dynamic")}  # dynamic: top-k ranks only


def two_at_the_top(n: int) -> TreeShape:
    """Two children of the newest token, the other n - 2 nodes a chain under the first."""
    return TreeShape([(0,), (1,)] + [(0,) * depth for depth in range(2, n)])


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m speckata.bench tree", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=48, help="new tokens per prompt (default 48)")
    parser.add_argument("--prompts", type=int, default=4, help="held-out prompts (default 4)")
    parser.add_argument("--prompt-length", type=int, default=24)
    parser.add_argument("--seed-sets", type=int, default=4, help="seed sets (default 4)")
    parser.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS))
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--children", nargs="+", choices=("sampled", "top_k"), default=["sampled", "top_k"],
                        help="children rules of exercise 20 to bench (default both; the dynamic tree needs top_k)")
    parser.add_argument("--width", type=int, default=8, help="entries of the acceptance vector (default 8)")
    parser.add_argument("--acceptance-windows", type=int, default=40, help="held-out windows of 64 (default 40)")
    parser.add_argument("--top-k", type=int, default=3, help="dynamic tree: children per expanded node (default 3)")
    parser.add_argument("--depth", type=int, default=5, help="dynamic tree: levels expanded (default 5)")
    parser.add_argument("--cost-repeats", type=int, default=30, help="timed pass repeats (default 30; 0: none)")
    parser.add_argument("--walltime-repeats", type=int, default=2,
                        help="interleaved timed repeats of plain decoding, the chain and the DP tree (default 2; 0: none)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--target", default="solutions", help="folder holding exercises 18, 20 and 24")
    parser.add_argument("--json", help="also write the results to this file")
    return parser.parse_args(argv)


def shapes_for(kind: str, n: int, acceptance, optimal_tree):
    return {"chain": chain, "fixed": two_at_the_top, "dp": lambda n: optimal_tree(acceptance, n)}[kind](n)


def tokens_per_pass(args, prompts, seed_set: int, shape, children: str, n: int, decoders) -> float:
    """All prompts decoded once with seed set ``seed_set``: new tokens over target passes."""
    tree_generate, dynamic_tree, target, draft, expander = decoders
    made = passes = 0
    for index, prompt in enumerate(prompts):
        generator = torch.Generator().manual_seed(10_000 * seed_set + index)
        if shape is None:
            result = dynamic_generate(tree_generate, dynamic_tree, target, draft, expander, prompt, args.tokens,
                                      generator, args.temperature, n, args.top_k, args.depth)
        else:
            result = tree_generate(target, draft, prompt, args.tokens, shape.paths, generator, args.temperature,
                                   children)
        made, passes = made + len(result.tokens), passes + result.target_passes
    return made / passes


def main(argv: list[str]) -> int:
    args = parse(argv)
    torch.set_num_threads(args.threads)
    began = time.perf_counter()
    tree_generate = graded_function("ex20_tree_verification", "tree_speculative_generate", args.target)
    mask = graded_function("ex18_tree_attention_mask", "tree_attention_mask", args.target)
    positions = graded_function("ex18_tree_attention_mask", "tree_position_ids", args.target)
    expected_tokens, optimal_tree, dynamic_tree = (graded_function("ex24_tree_shapes", name, args.target)
                                                   for name in ("expected_tokens", "optimal_tree", "dynamic_tree"))
    target, draft, expander = load_target(), load_draft(), load_draft()
    decoders = (tree_generate, dynamic_tree, target, draft, expander)
    windows = text_windows("held_out", 64)
    half = windows.shape[0] // 2
    prompts = windows[: args.prompts, : args.prompt_length].tolist()
    held = windows[half: half + args.acceptance_windows]
    vectors = {rule: acceptance_vector(target, draft, held, args.temperature, args.width, rule) for rule in args.children}
    rows = []
    for n in args.budgets:
        for rule in args.children:
            acceptance = vectors[rule][0]
            for kind in KINDS[rule]:
                shape = None if kind == "dynamic" else shapes_for(kind, n, acceptance, optimal_tree)
                per_set = [tokens_per_pass(args, prompts, seed_set, shape, rule, n, decoders)
                           for seed_set in range(args.seed_sets)]
                rows.append({"decoder": kind, "children": rule, "nodes": n, "tokens_per_pass": spread(per_set),
                             "per_seed_set": per_set, "shape": None if shape is None else shape.paths,
                             "predicted": None if shape is None else expected_tokens(shape, acceptance)})
    costs = {}
    if args.cost_repeats:
        chain_mask = lambda w, start: (mask(list(range(-1, w - 1)), start), positions(list(range(-1, w - 1)), start))
        costs = pass_costs(target, draft, windows[0].tolist(), (1, 5, 9, 17, 33), args.cost_repeats, chain_mask)
    walltime = {}
    if args.walltime_repeats and "sampled" in args.children:
        runs = {"plain": lambda prompt, g: autoregressive_generate(target, prompt, args.tokens, g, args.temperature)}
        for row in rows:
            if row["children"] == "sampled" and row["decoder"] in ("chain", "dp"):
                runs[f"{row['decoder']} sampled n={row['nodes']}"] = (
                    lambda prompt, g, paths=row["shape"]: tree_generate(target, draft, prompt, args.tokens, paths, g,
                                                                        args.temperature, "sampled"))
        walltime = wall_clock(runs, prompts, args.walltime_repeats)
    report = {"settings": {k: v for k, v in vars(args).items() if k not in ("json", "target")},
              "acceptance": {rule: vector for rule, (vector, _) in vectors.items()},
              "acceptance_positions": next(iter(vectors.values()))[1], "rows": rows, "pass_costs": costs,
              "walltime": walltime,
              "seconds": time.perf_counter() - began}
    print_report(report)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(report, out, indent=1)
    return 0


def print_report(report: dict) -> None:
    s = report["settings"]
    print(f"{s['prompts']} held-out prompts x {s['tokens']} new tokens, {s['seed_sets']} seed sets, temperature "
          f"{s['temperature']}, {s['threads']} thread(s); dynamic tree: top_k {s['top_k']}, depth {s['depth']}")
    for rule, vector in report["acceptance"].items():
        print(f"acceptance vector, {rule} children ({report['acceptance_positions']} held-out positions): "
              + " ".join(f"{a:.3f}" for a in vector))
    print(f"{'decoder':22} {'tok/pass':>8} {'spread over seed sets':>22} {'predicted':>9}")
    for row in report["rows"]:
        t = row["tokens_per_pass"]
        predicted = "-" if row["predicted"] is None else f"{row['predicted']:.2f}"
        name, between = f"{row['decoder']} {row['children']} n={row['nodes']}", f"{t['min']:.2f} .. {t['max']:.2f}"
        print(f"{name:22} {t['mean']:8.2f} {between:>22} {predicted:>9}")
    for row in report["rows"]:
        if row["decoder"] == "dp":
            print(f"dp {row['children']} n={row['nodes']}: {row['shape']}")
    if report["pass_costs"]:
        print("pass cost relative to a one-token target pass (median, one thread): "
              + ", ".join(f"target {k} tokens {v:.2f}" for k, v in report["pass_costs"].items() if k != "draft")
              + f", draft 1 token {report['pass_costs']['draft']:.2f}")
    if report["walltime"]:
        print("wall clock (all prompts, one thread), speedup over plain per interleaved repeat: mean (min .. max)")
        for name, timing in report["walltime"].items():
            t = timing["speedup"]
            print(f"  {name:18} {timing['median_s']:7.3f} s   x{t['mean']:.2f} ({t['min']:.2f} .. {t['max']:.2f})")
    print(f"wall time {report['seconds']:.0f} s")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
