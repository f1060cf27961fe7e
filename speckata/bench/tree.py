"""``python -m speckata.bench tree``: exercise 20's tree decoder against a chain, plain decoding and exercise 10.

One run on the committed character-level target and draft. For each node budget n (4, 8, 16) it
decodes the same prompts with exercise 20's tree_speculative_generate on a chain of n nodes and on
a tree of n nodes (two children at the top, the rest a chain under the first), and with exercise
10's speculative_generate at γ = n, beside autoregressive_generate. It prints tokens per target
pass (chain vs tree: the same node budget, one pass per round) and wall-clock time per run, as
the median over ``--repeats`` interleaved repeats with the spread (min .. max), on one torch
thread by default. Compare ratios within one run: timings on a busy machine are noisy.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import torch

from speckata.models.decoding import autoregressive_generate
from speckata.models.pretrained import char_tokenizer, load_draft, load_target
from speckata.models.tree_shapes import TreeShape, chain
from speckata.real.graded import graded_function

PROMPTS = ["The ", "def speculative_step(", "If the exception ", "A class definition "]
BUDGETS = (4, 8, 16)


def two_at_the_top(n: int) -> TreeShape:
    """Two children of the newest token, the other n - 2 nodes a chain under the first."""
    return TreeShape([(0,), (1,)] + [(0,) * depth for depth in range(2, n)])


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m speckata.bench tree", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=100, help="new tokens per prompt (default 100)")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved timed repeats (default 3)")
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--target", default="solutions", help="folder holding exercises 10, 18 and 20 (default solutions)")
    parser.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS))
    parser.add_argument("--children", choices=("sampled", "top_k"), default="sampled",
                        help="how the tree decoder picks children (default sampled: a chain is then exercise 10's rule)")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse(argv)
    torch.set_num_threads(args.threads)
    tree_generate = graded_function("ex20_tree_verification", "tree_speculative_generate", args.target)
    chain_generate = graded_function("ex10_speculative_generate", "speculative_generate", args.target)
    target, draft, tokenizer = load_target(), load_draft(), char_tokenizer()
    prompts = [tokenizer.encode(prompt) for prompt in PROMPTS]
    runs = {"plain": lambda g: (autoregressive_generate(target, p, args.tokens, g, args.temperature), None)}
    for n in args.budgets:
        runs[f"ex10 gamma={n}"] = lambda g, n=n: chain_generate(target, draft, p, args.tokens, n, g, args.temperature)
        runs[f"chain n={n}"] = lambda g, n=n: tree_generate(target, draft, p, args.tokens, chain(n), g, args.temperature,
                                                            args.children)
        runs[f"tree n={n}"] = lambda g, n=n: tree_generate(target, draft, p, args.tokens, two_at_the_top(n), g,
                                                           args.temperature, args.children)
    seconds = {name: [] for name in runs}
    made = {name: [0, 0] for name in runs}  # tokens, target passes (first repeat)
    for repeat in range(args.repeats):
        for name, run in runs.items():  # interleaved: every decoder once per repeat
            start = time.perf_counter()
            for index, p in enumerate(prompts):
                result = run(torch.Generator().manual_seed(index))
                if repeat == 0:
                    made[name][0] += args.tokens
                    made[name][1] += args.tokens if name == "plain" else result.target_passes
            seconds[name].append(time.perf_counter() - start)
    plain = statistics.median(seconds["plain"])
    print(f"{len(prompts)} prompts x {args.tokens} new tokens, temperature {args.temperature}, {args.children} children, "
          f"{args.threads} thread(s), {args.repeats} interleaved repeats")
    print(f"{'decoder':16} {'tok/pass':>8} {'median s':>9} {'spread s':>15} {'speedup':>8}")
    for name in runs:
        times = seconds[name]
        middle = statistics.median(times)
        print(f"{name:16} {made[name][0] / made[name][1]:8.2f} {middle:9.3f} "
              f"{f'{min(times):.3f} .. {max(times):.3f}':>15} {plain / middle:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
