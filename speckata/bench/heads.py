"""``python -m speckata.bench heads``: the drafts that live in the target (exercises 21-23) beside plain
decoding and a separate draft (exercise 10), on the committed character-level target.

Decoders, each on the same held-out prompts (the first ``--prompt-length`` characters of held-out
windows): plain decoding; exercise 10 with the committed independent draft and with exercise 11's
distilled draft; exercise 21's Medusa heads (greedy only: skipped at T > 0); exercise 22's EAGLE
head; exercise 23's early exit after two choices of k layers. For each: tokens per target pass,
acceptance by depth (of the rounds that drafted at least d tokens, the share that kept at least d),
the target's layer computations per new token (early exit's drafts are the target's own layers), the
drafts' parameter counts (to compare budgets), and wall
clock per run as the median over ``--repeats`` interleaved repeats with the spread (min .. max),
with the speedup over plain decoding at the medians. One torch thread by default; compare ratios
within one run, never absolute times across runs. Each decoder draws from one seed per prompt, the
same in every repeat, so the repeats redo the same work and their spread measures the machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import torch

from speckata.models.decoding import autoregressive_generate
from speckata.models.eagle import load_distilled_draft, load_eagle_head
from speckata.models.medusa import load_medusa_heads
from speckata.models.pretrained import load_draft, load_target, text_windows
from speckata.real.graded import graded_function


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m speckata.bench heads", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=64, help="new tokens per prompt (default 64)")
    parser.add_argument("--prompts", type=int, default=4, help="held-out prompts (default 4)")
    parser.add_argument("--prompt-length", type=int, default=24, help="characters per prompt (default 24)")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved timed repeats (default 3)")
    parser.add_argument("--gamma", type=int, default=4, help="drafts per round for 10, 22 and 23 (default 4)")
    parser.add_argument("--exits", type=int, nargs=2, default=[2, 4], metavar="K",
                        help="two exit layers for exercise 23 (default 2 4)")
    parser.add_argument("--temperature", type=float, default=0.0, help="default 0 (Medusa's heads decode greedily)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--target", default="solutions", help="folder holding exercises 10 and 21-23 (default solutions)")
    return parser.parse_args(argv)


def decoders(args) -> dict:
    """name -> run(prompt, generator) returning a SpeculativeResult, or a list of tokens for plain."""
    target, T, gamma, n = load_target(), args.temperature, args.gamma, args.tokens
    ex10 = graded_function("ex10_speculative_generate", "speculative_generate", args.target)
    medusa = graded_function("ex21_medusa_heads", "medusa_generate", args.target)
    eagle = graded_function("ex22_eagle_head", "eagle_generate", args.target)
    early = graded_function("ex23_early_exit", "early_exit_generate", args.target)
    draft, distilled, heads, head = load_draft(), load_distilled_draft(), load_medusa_heads(), load_eagle_head()
    runs = {
        "plain": lambda p, g: autoregressive_generate(target, p, n, g, T),
        f"ex10 draft g={gamma}": lambda p, g: ex10(target, draft, p, n, gamma, g, T),
        f"ex10 distilled g={gamma}": lambda p, g: ex10(target, distilled, p, n, gamma, g, T),
    }
    if T == 0:
        runs[f"medusa {heads.num_heads} heads"] = lambda p, g: medusa(target, heads, p, n)
    runs[f"eagle g={gamma}"] = lambda p, g: eagle(target, head, p, n, gamma, g, T)
    for k in args.exits:
        runs[f"early exit k={k} g={gamma}"] = lambda p, g, k=k: early(target, p, n, k, gamma, g, T)
    sizes = {"draft": draft, "distilled": distilled, "medusa heads": heads, "eagle head": head}
    return runs, target, {name: sum(t.numel() for t in model.parameters()) for name, model in sizes.items()}


def acceptance_by_depth(results) -> list[float]:
    drafted = [d for r in results for d in r.drafted_per_pass]
    accepted = [a for r in results for a in r.accepted_per_pass]
    depths = range(1, max(drafted, default=0) + 1)
    return [sum(a >= d for a, k in zip(accepted, drafted) if k >= d) / max(1, sum(k >= d for k in drafted))
            for d in depths]


def main(argv: list[str]) -> int:
    args = parse(argv)
    torch.set_num_threads(args.threads)
    runs, target, parameters = decoders(args)
    prompts = [row[: args.prompt_length].tolist() for row in text_windows("held_out", 128, args.prompts)]
    seconds = {name: [] for name in runs}
    first: dict[str, list] = {}  # each decoder's results of the first repeat
    layers: dict[str, int] = {}
    for repeat in range(args.repeats):
        for name, run in runs.items():  # interleaved: every decoder once per repeat
            before, start = target.layer_computations, time.perf_counter()
            results = [run(prompt, torch.Generator().manual_seed(index)) for index, prompt in enumerate(prompts)]
            seconds[name].append(time.perf_counter() - start)
            if repeat == 0:  # the prompts' own passes excluded: every decoder runs all layers over them
                prompt_layers = sum(len(prompt) for prompt in prompts) * target.num_layers
                first[name], layers[name] = results, target.layer_computations - before - prompt_layers
    plain = statistics.median(seconds["plain"])
    made = len(prompts) * args.tokens
    print(f"{len(prompts)} held-out prompts of {args.prompt_length} characters x {args.tokens} new tokens, "
          f"temperature {args.temperature:g}, {args.threads} thread(s), {args.repeats} interleaved repeats; "
          f"target: {target.num_layers} layers, {sum(t.numel() for t in target.parameters()):,} parameters")
    print("parameters of the drafts: " + ", ".join(f"{name} {count:,}" for name, count in parameters.items()))
    print("layers/tok: the target's layer computations per new token (tokens x layers, the prompt's excluded)")
    print(f"{'decoder':24} {'tok/pass':>8} {'layers/tok':>10} {'median s':>9} {'spread s':>15} {'speedup':>8}  "
          "acceptance by depth 1, 2, ...")
    for name, results in first.items():
        passes = made if name == "plain" else sum(r.target_passes for r in results)
        per_layer = f"{layers[name] / made:10.2f}"
        times = seconds[name]
        middle = statistics.median(times)
        depth = "" if name == "plain" else ", ".join(f"{a:.2f}" for a in acceptance_by_depth(results))
        print(f"{name:24} {made / passes:8.2f} {per_layer} {middle:9.3f} "
              f"{f'{min(times):.3f} .. {max(times):.3f}':>15} {plain / middle:8.2f}  {depth}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
