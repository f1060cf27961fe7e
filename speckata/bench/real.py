"""``python -m speckata.bench real``: speculative decoding on SmolLM2-135M, ours against transformers'.

Needs the optional extra (``bash scripts/setup-real.sh``). One run, on the fixed prompts of
``speckata.real.prompts`` (copying, summarising, code, free chat), greedy and sampled
(temperature 1, no top-k/top-p), ``--tokens`` new tokens each (end-of-text does not stop anyone:
every decoder makes exactly that many tokens). Decoders, all on the same float32 model:

- ``plain (ours)``    ``autoregressive_generate`` through ``HFCachedModel``: one pass per token;
- ``plain (hf)``      ``model.generate()``: the baseline every speedup is measured against;
- ``lookup (ours)``   ``lookup_generate``: exercise 13's ``ngram_draft`` proposals, verified exactly,
                      made only when the last ``--min-match`` tokens occur earlier;
- ``tiny (ours)``     exercise 10's ``speculative_generate`` with the distilled two-layer draft;
- ``lookup (hf)``     ``generate(prompt_lookup_num_tokens=γ)``;
- ``assisted (hf)``   ``generate(assistant_model=tiny draft)``.

The two tiny-draft decoders run only at ``--tiny-temperatures`` (default greedy only: with the
draft this machine can train in ten minutes they are slow) and only once the draft is trained
(``python -m speckata.real.train_draft``; without it they are skipped, saying so).

Columns: tokens per second, speedup over ``plain (hf)`` on the same prompt and temperature
(and over the decoder's own plain baseline: ``plain (ours)`` for ours, ``plain (hf)`` for hf),
tokens per target pass (target forward calls counted by a hook, the prompt pass included) and,
for our decoders, the acceptance rate (accepted / proposals tested). Timings are the minimum over
``--repeats`` runs with every decoder interleaved, after one untimed 4-token warm-up run of
each, on a machine shared with others: compare
within one run. ``--json PATH`` writes everything (``speckata/real/results/bench.json`` is the
committed run the notebook of exercise 13 reads).

``--equality N`` instead checks greedy decoding token for token: our two decoders against
``generate(do_sample=False)`` on the first N prompts of ``EQUALITY_PROMPTS``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import torch

from speckata.models.decoding import autoregressive_generate

SAMPLED = {"do_sample": True, "temperature": 1.0, "top_k": 0, "top_p": 1.0}
GREEDY = {"do_sample": False}
DECODERS = ("plain (ours)", "plain (hf)", "lookup (ours)", "tiny (ours)", "lookup (hf)", "assisted (hf)")


def parse(argv):
    parser = argparse.ArgumentParser(prog="python -m speckata.bench real", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=96, help="new tokens per prompt (default 96)")
    parser.add_argument("--repeats", type=int, default=2, help="timed runs of everything (default 2)")
    parser.add_argument("--gamma", type=int, default=8, help="prompt lookup: most tokens proposed (default 8)")
    parser.add_argument("--n", type=int, default=3, help="prompt lookup: longest n-gram (default 3)")
    parser.add_argument("--min-match", type=int, default=2,
                        help="prompt lookup (ours): propose only when the last MIN_MATCH tokens occur earlier (default 2)")
    parser.add_argument("--draft-gamma", type=int, default=3, help="tiny draft: tokens drafted per round (default 3)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1: robust on a busy machine)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--temperatures", default="0,1", help="comma-separated (default 0,1)")
    parser.add_argument("--prompts", default="", help="comma-separated kinds to run (default all)")
    parser.add_argument("--json", default=None, help="write the results to this file")
    parser.add_argument("--target", default="solutions", help="folder holding the exercises' files (default solutions)")
    parser.add_argument("--tiny-temperatures", default="0",
                        help="temperatures at which the tiny-draft decoders run (default 0: they are slow here)")
    parser.add_argument("--tiny-prompts", default="copy,chat", help="prompts on which they run (default copy,chat)")
    parser.add_argument("--equality-decoders", default="lookup (ours),tiny (ours),lookup (hf)")
    parser.add_argument("--equality", type=int, default=0, metavar="N", help="greedy equality check on N prompts instead")
    return parser.parse_args(argv)


class Setup:
    """The model, its tokenizer, the tiny draft, our decoders, and a counter of target passes."""

    def __init__(self, folder: str):
        from speckata.real.adapter import HFCachedModel
        from speckata.real.graded import graded_function
        from speckata.real.load import load_target, load_tokenizer
        from speckata.real.lookup import lookup_generate
        from speckata.real.tiny_draft import WEIGHTS_FILE, load_draft

        self.model, self.tokenizer = load_target(), load_tokenizer()
        self.draft_model = load_draft(self.model) if WEIGHTS_FILE.is_file() else None
        if self.draft_model is None:
            print(f"no tiny draft at {WEIGHTS_FILE} (train it: python -m speckata.real.train_draft, ~10 min); "
                  "skipping the tiny-draft decoders")
        self.target = HFCachedModel(self.model)
        self.draft = HFCachedModel(self.draft_model) if self.draft_model is not None else None
        self.lookup_generate = lookup_generate
        self.ngram_draft = graded_function("ex13_ngram_draft", "ngram_draft", folder)
        self.speculative_generate = graded_function("ex10_speculative_generate", "speculative_generate", folder)
        self.passes = 0
        self.model.register_forward_pre_hook(self._count)

    def _count(self, module, args):
        self.passes += 1

    def hf_generate(self, prompt, tokens, temperature, **extra):
        ids = torch.tensor([prompt])
        settings = GREEDY if temperature == 0 else SAMPLED
        out = self.model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=tokens,
                                  eos_token_id=None, pad_token_id=self.tokenizer.eos_token_id, **settings, **extra)
        return out[0, len(prompt):].tolist()

    def run(self, decoder, prompt, tokens, temperature, args, seed):
        """(new tokens, acceptance rate or None); self.passes counts the target's forward calls."""
        generator = torch.Generator().manual_seed(seed)
        torch.manual_seed(seed)  # transformers' sampling draws from the global generator
        if decoder == "plain (ours)":
            return autoregressive_generate(self.target, prompt, tokens, generator, temperature), None
        if decoder == "lookup (ours)":
            result = self.lookup_generate(self.target, prompt, tokens, args.gamma, generator, temperature, args.n,
                                          drafter=self.ngram_draft, min_match=args.min_match)
            return result.tokens, result.acceptance_rate
        if decoder == "tiny (ours)":
            result = self.speculative_generate(self.target, self.draft, prompt, tokens, args.draft_gamma, generator, temperature)
            return result.tokens, result.acceptance_rate
        if decoder == "plain (hf)":
            return self.hf_generate(prompt, tokens, temperature), None
        if decoder == "lookup (hf)":
            return self.hf_generate(prompt, tokens, temperature, prompt_lookup_num_tokens=args.gamma), None
        if decoder == "assisted (hf)":
            return self.hf_generate(prompt, tokens, temperature, assistant_model=self.draft_model), None
        raise ValueError(decoder)


def warm_up(setup: Setup, prompt, temperature, args, warmed: set) -> None:
    """Run every decoder once on 4 tokens before timing it (the first calls pay one-off costs)."""
    for decoder in DECODERS:
        usable = setup.draft is not None or ("tiny" not in decoder and "assisted" not in decoder)
        if usable and (decoder, temperature) not in warmed:
            setup.run(decoder, prompt, 4, temperature, args, 0)
            warmed.add((decoder, temperature))


def benchmark(setup: Setup, args) -> list[dict]:
    from speckata.real.prompts import BENCH_PROMPTS, chat_ids

    warmed: set = set()
    kinds = [k for k in BENCH_PROMPTS if not args.prompts or k in args.prompts.split(",")]
    temperatures = [float(t) for t in args.temperatures.split(",")]
    rows = []
    for kind in kinds:
        prompt = chat_ids(setup.tokenizer, BENCH_PROMPTS[kind])
        for temperature in temperatures:
            best = {d: float("inf") for d in DECODERS}
            record: dict[str, dict] = {}
            tiny_here = (setup.draft is not None and temperature in [float(t) for t in args.tiny_temperatures.split(",")]
                         and kind in args.tiny_prompts.split(","))
            warm_up(setup, prompt, temperature, args, warmed)
            decoders = [d for d in DECODERS if tiny_here or ("tiny" not in d and "assisted" not in d)]
            for repeat in range(args.repeats):
                for decoder in decoders:
                    setup.passes = 0
                    started = time.perf_counter()
                    tokens, alpha = setup.run(decoder, prompt, args.tokens, temperature, args, args.seed + repeat)
                    seconds = time.perf_counter() - started
                    best[decoder] = min(best[decoder], seconds)
                    record[decoder] = {"passes": setup.passes, "alpha": alpha, "tokens": len(tokens),
                                       "text": setup.tokenizer.decode(tokens) if repeat == 0 else record[decoder]["text"]}
            baseline = best["plain (hf)"]
            for decoder in decoders:
                entry = record[decoder]
                own = best["plain (ours)" if "ours" in decoder else "plain (hf)"]
                row = {"prompt": kind, "temperature": temperature, "decoder": decoder, "seconds": round(best[decoder], 3),
                       "tokens_per_second": round(entry["tokens"] / best[decoder], 2),
                       "speedup": round(baseline / best[decoder], 3),
                       "speedup_over_own_plain": round(own / best[decoder], 3),
                       "tokens_per_pass": round(entry["tokens"] / entry["passes"], 3) if entry["passes"] else None,
                       "acceptance_rate": None if entry["alpha"] is None else round(entry["alpha"], 3),
                       "prompt_tokens": len(prompt), "new_tokens": entry["tokens"], "text": entry["text"]}
                rows.append(row)
                show(row)
    return rows


def forward_costs(setup: Setup, cached: int = 100, calls: int = 15) -> dict:
    """Minimum milliseconds of one cached target pass over n new tokens, after ``cached`` tokens."""
    target, costs = setup.target, {}
    target.reset()
    target.forward_new(list(range(1000, 1000 + cached)))
    for _ in range(calls):
        for n in (1, 2, 5, 9):
            started = time.perf_counter()
            target.forward_new(list(range(2000, 2000 + n)))
            seconds = time.perf_counter() - started
            target.crop(cached)
            costs[n] = min(costs.get(n, float("inf")), seconds * 1e3)
    result = {str(n): round(ms, 1) for n, ms in costs.items()}
    print("target pass, ms (min of %d): %s; 9 tokens / 1 token = %.2f" % (calls, result, costs[9] / costs[1]), flush=True)
    return result


def show(row: dict) -> None:
    alpha = "" if row["acceptance_rate"] is None else f"{row['acceptance_rate']:.2f}"
    print(f"{row['prompt']:<10} T={row['temperature']:<3g} {row['decoder']:<14} {row['tokens_per_second']:7.1f} tok/s"
          f"  x{row['speedup']:<5.2f} (own plain x{row['speedup_over_own_plain']:<5.2f}) {row['tokens_per_pass']:5.2f} tok/pass"
          f"  α {alpha:<5}", flush=True)


def equality(setup: Setup, args) -> dict:
    from speckata.real.prompts import EQUALITY_PROMPTS, chat_ids

    report = {"prompts": args.equality, "tokens": args.tokens, "mismatches": []}
    for index, message in enumerate(EQUALITY_PROMPTS[: args.equality]):
        prompt = chat_ids(setup.tokenizer, message)
        expected = setup.hf_generate(prompt, args.tokens, 0)
        if len(expected) < args.tokens:
            print(f"prompt {index:2d}: generate() stopped after {len(expected)} tokens", flush=True)
        for decoder in args.equality_decoders.split(","):
            if setup.draft is None and decoder == "tiny (ours)":
                continue
            tokens, _ = setup.run(decoder, prompt, args.tokens, 0, args, args.seed)
            same = tokens == expected
            first = None if same else next((i for i, (a, b) in enumerate(zip(tokens, expected)) if a != b), len(tokens))
            print(f"prompt {index:2d} {decoder:<14} {'equal' if same else f'DIFFERS at token {first}'}", flush=True)
            if not same:
                report["mismatches"].append({"prompt": index, "decoder": decoder, "first_difference": first})
    return report


def main(argv) -> int:
    from speckata.real.load import RealModelMissing

    args = parse(argv)
    torch.set_num_threads(args.threads)
    try:
        setup = Setup(args.target)
    except RealModelMissing as error:
        print(f"speckata bench real: {error}", file=sys.stderr)
        return 2
    started = time.time()
    if args.equality:
        results = {"equality": equality(setup, args)}
        ours = [m for m in results["equality"]["mismatches"] if "ours" in m["decoder"]]
        print(f"greedy equality: {args.equality} prompts x {args.tokens} tokens, our mismatches: {len(ours)}")
    else:
        results = {"forward_ms": forward_costs(setup), "rows": benchmark(setup, args)}
    results["settings"] = {**{k: v for k, v in vars(args).items() if k != "json"}, "python": platform.python_version(),
                           "torch": torch.__version__, "seconds": round(time.time() - started, 1)}
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
        print(f"wrote {args.json}")
    return 1 if args.equality and any("ours" in m["decoder"] for m in results["equality"]["mismatches"]) else 0
