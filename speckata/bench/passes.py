"""What a pass and a draft step cost on a given device: ``python -m speckata.bench passes --device cuda``.

The heads bench (``python -m speckata.bench heads``) and SmolLM2's EAGLE-2 bench time whole decoders
on one CPU thread. Whether a draft pays there comes down to a few terms, each in one-token target
passes: a pass over n new tokens (a chain's g + 1, a tree's nodes + 1), one cached EAGLE head step,
Medusa's heads, a distilled draft's step, and for SmolLM2 an EAGLE-2 round's draft and tree pass.
This bench measures those terms on any device torch runs on, so that the papers' condition (a GPU,
where a pass over tens of tokens costs about what a pass over one costs) can be compared with ours
term by term:

- the shipped 6-layer target and its 24-layer twin, with their committed heads and drafts (greedy:
  every step ends with the argmax read back to Python, as a decoder's does);
- a model of SmolLM2-135M's shape (``speckata.real.random_shape``: 30 layers, width 576, through
  ``LeanLlama``) with *random* weights, and the committed SmolLM2 EAGLE head;
  ``speckata.real.eagle2_costs.round_costs`` times an EAGLE-2 round as the SmolLM2 bench does. What
  a pass costs does not depend on the weights' values, so this part needs the real-model extra's
  packages (transformers) but not its 98 MB model file.

Each step is called ``calls`` times per timing (the device synchronised after every call),
``repeats`` timings, interleaved, after ``warmup`` untimed calls. Kept per step: the median time,
and the median and min..max over repeats of its ratio to the one-token pass of the same repeat.
The committed runs are speckata/bench/results/passes-*.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

import torch

PASS_SIZES = (1, 2, 5, 9, 11, 17, 25, 33, 65)
CONTEXT = 64  # tokens in the toy target's cache before each timed pass
CHAT_PROMPT_TOKENS = 43  # the SmolLM2 bench's chat prompt, in SmolLM2's tokens (its cache holds it and 64 more)


def synchronize(device: str) -> None:
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize()


def interleaved(steps: dict, device: str, repeats: int, calls: int, warmup: int) -> dict[str, dict]:
    """name -> {"ms": median ms per call, "passes": median over repeats of (this step / the first step,
    timed in the same repeat), "spread": [min, max] of those ratios}. The ratio is taken within a
    repeat, so a slow stretch of the machine, which falls on the whole repeat, cancels."""
    for step in steps.values():
        for _ in range(warmup):
            step()
    synchronize(device)
    seconds = {name: [] for name in steps}
    for _ in range(repeats):
        for name, step in steps.items():
            start = time.perf_counter()
            for _ in range(calls):
                step()
                synchronize(device)
            seconds[name].append((time.perf_counter() - start) / calls)
    units = next(iter(seconds.values()))
    rows = {}
    for name, times in seconds.items():
        ratios = [time_ / unit for time_, unit in zip(times, units)]
        rows[name] = {"ms": round(statistics.median(times) * 1000, 4), "passes": round(statistics.median(ratios), 4),
                      "spread": [round(min(ratios), 4), round(max(ratios), 4)]}
    return rows


@torch.no_grad()
def toy_steps(on: str, folder: str) -> dict:
    """The heads track's terms on the shipped target (``on="shipped"``) or its 24-layer twin (``"deep"``)."""
    from speckata.bench.heads_steps import filled_caches
    from speckata.heads.eagle import load_distilled_draft, load_eagle_head
    from speckata.heads.medusa import load_medusa_heads
    from speckata.models.pretrained import load_deep_target, load_target, text_windows
    from speckata.real.graded import graded_function

    eagle_head_step = graded_function("ex28_eagle_head_cache", "eagle_head_step", folder)
    medusa_logits = graded_function("ex21_medusa_heads", "medusa_logits", folder)
    target = load_deep_target() if on == "deep" else load_target()
    head, heads, distilled = load_eagle_head(on=on), load_medusa_heads(on=on), load_distilled_draft(on=on)
    ids = text_windows("held_out", CONTEXT + max(PASS_SIZES) + 1, limit=1)[0].tolist()
    features, tokens = filled_caches(target, head, distilled, eagle_head_step, ids, CONTEXT)

    def target_pass(n):
        def step():
            target.crop(CONTEXT)
            _, logits = target.forward_new_hidden(ids[CONTEXT: CONTEXT + n])
            return logits.argmax(-1).tolist()  # greedy verification reads every row's argmax
        return step

    def cached_step():
        head.crop(CONTEXT - 1)
        return int(target.head(eagle_head_step(head, target, features[-1:], tokens[-1:])[-1]).argmax())

    def distilled_step():
        distilled.crop(CONTEXT - 1)
        return int(distilled.forward_new(ids[CONTEXT - 1: CONTEXT])[-1].argmax())

    steps = {f"target pass, {n} tokens": target_pass(n) for n in PASS_SIZES}
    steps["eagle step, cached (ex28)"] = cached_step
    steps["distilled draft step (ex10)"] = distilled_step
    steps["medusa heads, one call (ex21)"] = lambda: medusa_logits(heads, features[-1]).argmax(-1).tolist()
    return steps


def smollm2_passes(lean, prompt_tokens: int) -> dict:
    """Passes over n new tokens after the chat prompt and 64 tokens, the output layer on the last row
    only (the EAGLE-2 decoder computes a tree row's logits when its walk reads it)."""
    ids = torch.randint(lean.vocab_size, (prompt_tokens + 64 + max(PASS_SIZES),),
                        generator=torch.Generator().manual_seed(0), device="cpu").tolist()
    context = prompt_tokens + 64
    lean.reset()
    lean.forward_new(ids[:context], last=1)

    def step(n):
        def call():
            lean.crop(context)
            return lean.forward_new(ids[context: context + n], last=1).argmax(-1).tolist()
        return call

    return {f"SmolLM2 pass, {n} tokens": step(n) for n in PASS_SIZES}


def smollm2_results(args) -> dict:
    """The SmolLM2-shaped passes, and EAGLE-2 rounds of three tree sizes (``round_costs``: the fastest
    of 3 x repeats interleaved calls)."""
    from speckata.real.eagle2_costs import round_costs
    from speckata.real.eagle_head import FeatureTarget
    from speckata.real.random_shape import smollm2_shape

    lean, head = smollm2_shape(args.device)
    passes = interleaved(smollm2_passes(lean, CHAT_PROMPT_TOKENS), args.device, args.repeats, args.calls, args.warmup)
    prompt = torch.randint(lean.vocab_size, (CHAT_PROMPT_TOKENS,), generator=torch.Generator().manual_seed(1),
                           device="cpu").tolist()
    sync = lambda: synchronize(args.device)
    rounds = {}
    for budget, top_k, depth in ((8, 4, 5), (24, 4, 6), (60, 10, 6)):
        if args.warmup:
            round_costs(FeatureTarget(lean), head, prompt, budget, top_k, depth, args.warmup, sync)
        rounds[f"b={budget} k={top_k} d={depth}"] = round_costs(FeatureTarget(lean), head, prompt, budget, top_k, depth,
                                                                 3 * args.repeats, sync)
    return {"smollm2": passes, "smollm2 eagle2 rounds": rounds}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m speckata.bench passes", description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="cpu", help="cpu or cuda (default cpu)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads on the CPU (default 1)")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--models", default="shipped,deep,smollm2", help="comma-separated: shipped, deep, smollm2")
    parser.add_argument("--target", default="solutions", help="the folder whose exercises 21 and 28 are timed")
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args(argv)
    models = args.models.split(",")
    for model in models:
        if model not in ("shipped", "deep", "smollm2"):
            parser.error(f"unknown model {model!r}: choose from shipped, deep, smollm2")
    torch.set_num_threads(args.threads)
    torch.set_default_device(args.device)  # every tensor the models and decoders make lands there
    results = {}
    for model in models:
        if model == "smollm2":
            results.update(smollm2_results(args))
        else:
            steps = toy_steps(model, args.target)
            results[model] = interleaved(steps, args.device, args.repeats, args.calls, args.warmup)
        for name, row in results[model].items():
            print(f"{model:8} {name:34} {row['passes']}")
    device_name = torch.cuda.get_device_name() if torch.device(args.device).type == "cuda" else platform.processor()
    record = {"command": " ".join(["python -m speckata.bench passes", *argv]), "device": args.device,
              "device_name": device_name, "threads": args.threads, "torch": torch.__version__,
              "python": platform.python_version(), "repeats": args.repeats, "calls": args.calls,
              "context": CONTEXT, "results": results}
    for name, row in results.get("smollm2 eagle2 rounds", {}).items():
        print(f"smollm2  eagle2 round {name:21} tree pass {row['tree_pass_passes']}  draft {row['draft_passes']}")
    if args.json:
        Path(args.json).write_text(json.dumps(record, indent=1) + "\n")
    return 0
