"""``python -m speckata.bench real``: speculative decoding on SmolLM2-135M, ours against transformers'.

Needs the optional extra (``bash scripts/setup-real.sh``). On the fixed prompts of
``speckata.real.prompts`` (copying, summarising, code, free chat), greedy and sampled (temperature
1, no top-k/top-p), every decoder of ``speckata.real.decoders`` makes ``--tokens`` new tokens, for
each of ``--tokens`` (e.g. 64,96,128) and ``--threads`` (e.g. 1,2). The tiny-draft decoders run
only at ``--tiny-temperatures`` on ``--tiny-prompts`` and only once the draft is trained
(``python -m speckata.real.train_draft``). The EAGLE head's decoder (``--eagle-gamma`` tokens drafted
per round, acceptance by depth printed beside it) runs on every prompt once its committed head is
there (``python -m trainers.train_smollm2_eagle``), and beside it EAGLE-2's tree on the same head
(``--eagle2-budget`` nodes, ``--eagle2-top-k`` per expansion, ``--eagle2-depth`` levels). Every row also
gives its paired speedup over ``plain (ours)`` (round by round, the same LeanLlama one pass per token).

Measurement: after one untimed 4-token run of each decoder, ``--repeats`` rounds in which the
decoders take turns (the order rotating each round); each decoder is summarised by the median of
its runs and their min-max spread (``speckata.real.spread``). Every round repeats the same work:
sampled cases draw with the same seed (``--seed``) in every round, so a decoder samples the same
text each time and its spread is the machine's noise, not the luck of its texts (two decoders
sample different texts from the same distribution: another ``--seed`` compares other texts).
Ours is "ahead" of its transformers counterpart only where the spreads do not overlap (every run
of ours faster than every run of theirs), "behind" in the mirror case, else "within noise";
beside it, the per-round (paired) speedup span and whether ours was faster in every round. The cost model (ms per cached target
pass over 1, 2, 3, 5, 9, 17 new tokens) is measured first, for each thread count, printed beside
the table, and is what our lookup decoder plans its proposal lengths with. ``--json PATH`` writes
everything (``speckata/real/results/bench.json`` is the committed run notebook 13 reads).

``--equality N`` instead checks greedy decoding token for token: our decoders against
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

from speckata.real.spread import PAIRS, paired, rotated, speedup_span, summary, verdict


def parse(argv):
    parser = argparse.ArgumentParser(prog="python -m speckata.bench real", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", default="64", help="new tokens per prompt, comma-separated (default 64)")
    parser.add_argument("--threads", default="1", help="torch threads, comma-separated (default 1)")
    parser.add_argument("--repeats", type=int, default=5, help="timed rounds of every decoder (default 5)")
    parser.add_argument("--gamma", type=int, default=16, help="prompt lookup (ours): most tokens proposed (default 16)")
    parser.add_argument("--hf-gamma", type=int, default=10,
                        help="prompt lookup (hf): prompt_lookup_num_tokens passed to generate, which switches "
                             "transformers' prompt lookup on; proposals stop at the end of the context (default 10, "
                             "its candidate generator's own default)")
    parser.add_argument("--n", type=int, default=16, help="prompt lookup (ours): longest n-gram matched (default 16)")
    parser.add_argument("--min-match", type=int, default=2,
                        help="prompt lookup (ours): never propose after a match shorter than this (default 2)")
    parser.add_argument("--draft-gamma", type=int, default=3, help="tiny draft: tokens drafted per round (default 3)")
    parser.add_argument("--eagle-gamma", type=int, default=2, help="EAGLE head: tokens drafted per round (default 2)")
    parser.add_argument("--eagle2-budget", type=int, default=8, help="EAGLE-2 tree: nodes verified per pass (default 8)")
    parser.add_argument("--eagle2-top-k", type=int, default=4, help="EAGLE-2 tree: nodes expanded per level, "
                        "children per expansion (default 4)")
    parser.add_argument("--eagle2-depth", type=int, default=5, help="EAGLE-2 tree: levels grown (default 5)")
    parser.add_argument("--decoders", default="", help="comma-separated decoders to run (default all usable)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every round of a sampled case (default 0)")
    parser.add_argument("--temperatures", default="0,1", help="comma-separated (default 0,1)")
    parser.add_argument("--prompts", default="", help="comma-separated kinds to run (default all)")
    parser.add_argument("--json", default=None, help="write the results to this file")
    parser.add_argument("--target", default="solutions", help="folder holding the exercises' files (default solutions)")
    parser.add_argument("--tiny-temperatures", default="0", help="where the tiny-draft decoders run (default 0)")
    parser.add_argument("--tiny-prompts", default="copy,chat", help="prompts on which they run (default copy,chat)")
    parser.add_argument("--equality-decoders",
                        default="plain (ours),lookup (ours),tiny (ours),lookup (hf),eagle (ours),eagle2 (ours)")
    parser.add_argument("--equality", type=int, default=0, metavar="N", help="greedy equality check on N prompts instead")
    return parser.parse_args(argv)


def numbers(text: str, kind=int) -> list:
    return [kind(part) for part in text.split(",") if part.strip()]


def one_case(setup, prompt, tokens, temperature, decoders, args, warmed: set) -> dict:
    """Every decoder ``args.repeats`` times on one prompt, taking turns; seconds and counts per decoder,
    and whether its rounds made the same tokens (``same_every_round``: they should, with one seed)."""
    for decoder in decoders:  # the first calls pay one-off costs: not timed
        if (decoder, temperature) not in warmed:
            setup.run(decoder, prompt, 4, temperature, args, 0)
            warmed.add((decoder, temperature))
    record = {d: {"seconds": []} for d in decoders}
    first: dict[str, list[int]] = {}
    for repeat in range(args.repeats):
        for decoder in rotated(list(decoders), repeat):
            started = time.perf_counter()
            out, alpha, passes = setup.run(decoder, prompt, tokens, temperature, args, args.seed)
            record[decoder]["seconds"].append(round(time.perf_counter() - started, 4))
            if repeat:
                record[decoder]["same_every_round"] &= out == first[decoder]
            else:
                first[decoder] = out
                record[decoder].update(tokens_per_pass=round(len(out) / passes, 3), new_tokens=len(out),
                                       acceptance_rate=None if alpha is None else round(alpha, 3),
                                       text=setup.tokenizer.decode(out), same_every_round=True)
                if decoder == "eagle2 (ours)":
                    last = setup.last_result
                    record[decoder]["accepted_per_pass"] = round(sum(last.accepted_per_pass) / len(last.accepted_per_pass), 3)
                if decoder == "eagle (ours)":
                    from speckata.real.eagle_head import acceptance_by_depth

                    last = setup.last_result
                    record[decoder]["acceptance_by_depth"] = acceptance_by_depth(last.accepted_per_pass,
                                                                                 last.drafted_per_pass)
    return record


def rows_of(record: dict, case: dict) -> list[dict]:
    baseline = record["plain (hf)"]["seconds"]
    rows = []
    for decoder, entry in record.items():
        median, worst, best = speedup_span(baseline, entry["seconds"])
        row = {**case, "decoder": decoder, **{k: round(v, 4) for k, v in summary(entry["seconds"]).items()},
               "speedup": round(median, 3), "speedup_span": [round(worst, 3), round(best, 3)], **entry}
        if "plain (ours)" in record:
            plain = record["plain (ours)"]["seconds"]
            row["over_plain_ours"] = {"median": round(speedup_span(plain, entry["seconds"])[0], 3),
                                      **paired(entry["seconds"], plain)}
        theirs = PAIRS.get(decoder)
        if theirs in record:
            row["versus"], row["verdict"] = theirs, verdict(entry["seconds"], record[theirs]["seconds"])
            row.update(paired(entry["seconds"], record[theirs]["seconds"]))
        rows.append(row)
    return rows


def show_case(rows: list[dict]) -> None:
    for row in rows:
        alpha = "" if row["acceptance_rate"] is None else f"α {row['acceptance_rate']:.2f}"
        low, high = row["speedup_span"]
        phrase = {"ahead": "ahead of", "behind": "behind", "within noise": "within noise of"}.get(row.get("verdict"))
        versus = f"  {phrase} {row['versus']}" if phrase else ""
        if phrase:
            low_pair, high_pair = row["paired_span"]
            versus += f" (per round x{low_pair:.2f}-{high_pair:.2f}: {row['paired_verdict']})"
        print(f"{row['prompt']:<10} T={row['temperature']:<3g} {row['decoder']:<14} {row['median']:6.2f} s "
              f"[{row['min']:.2f}-{row['max']:.2f}]  x{row['speedup']:<5.2f} [{low:.2f}-{high:.2f}]  "
              f"{row['tokens_per_pass']:5.2f} tok/pass {alpha:<6}{versus}"
              + (f"  by depth {row['acceptance_by_depth']}" if "acceptance_by_depth" in row else "")
              + (f"  over plain (ours) x{row['over_plain_ours']['median']:.2f} per round "
                 f"{row['over_plain_ours']['paired_span']}" if "over_plain_ours" in row else ""), flush=True)


def benchmark(setup, args) -> dict:
    from speckata.real.decoders import DECODERS, forward_costs
    from speckata.real.prompts import BENCH_PROMPTS, chat_ids

    kinds = [k for k in BENCH_PROMPTS if not args.prompts or k in args.prompts.split(",")]
    temperatures, tiny_temperatures = numbers(args.temperatures, float), numbers(args.tiny_temperatures, float)
    results = {"forward_ms": {}, "rows": []}
    for threads in numbers(args.threads):
        torch.set_num_threads(threads)
        setup.pass_ms = forward_costs(setup.target)
        results["forward_ms"][str(threads)] = setup.pass_ms
        costs = ", ".join(f"{j}: {ms:.1f}" for j, ms in setup.pass_ms.items())
        print(f"\n{threads} thread(s). Cost model, ms per cached target pass over j new tokens: {costs} "
              f"(9 / 1 = {setup.pass_ms[9] / setup.pass_ms[1]:.2f})", flush=True)
        if setup.usable("eagle2 (ours)") and (not args.decoders or "eagle2 (ours)" in args.decoders.split(",")):
            from speckata.real.eagle2_costs import round_costs

            costs = round_costs(setup.features, setup.eagle_head, chat_ids(setup.tokenizer, BENCH_PROMPTS["chat"]),
                                args.eagle2_budget, args.eagle2_top_k, args.eagle2_depth)
            results.setdefault("eagle2_costs", {})[str(threads)] = costs
            print(f"EAGLE-2 round, in one-token passes: tree pass {costs['tree_pass_passes']:.2f}, "
                  f"head's tree {costs['draft_passes']:.2f} ({costs['tree_nodes']} nodes)", flush=True)
        warmed: set = set()
        for tokens in numbers(args.tokens):
            print(f"-- {tokens} new tokens, {args.repeats} rounds; median seconds [min-max], speedup over plain (hf) "
                  f"at the medians [worst-best]", flush=True)
            for kind in kinds:
                prompt = chat_ids(setup.tokenizer, BENCH_PROMPTS[kind])
                for temperature in temperatures:
                    tiny = temperature in tiny_temperatures and kind in args.tiny_prompts.split(",")
                    decoders = [d for d in DECODERS if setup.usable(d) and (tiny or ("tiny" not in d and "assisted" not in d))
                                and (not args.decoders or d in args.decoders.split(","))]
                    record = one_case(setup, prompt, tokens, temperature, decoders, args, warmed)
                    case = {"threads": threads, "tokens": tokens, "prompt": kind, "temperature": temperature,
                            "prompt_tokens": len(prompt)}
                    rows = rows_of(record, case)
                    show_case(rows)
                    results["rows"] += rows
    return results


def tally(rows: list[dict]) -> None:
    verdicts = [row for row in rows if "verdict" in row]
    for decoder in PAIRS:
        mine = [row["verdict"] for row in verdicts if row["decoder"] == decoder]
        if mine:
            counts = ", ".join(f"{mine.count(v)} {v}" for v in ("ahead", "within noise", "behind"))
            rounds = [row["paired_verdict"] for row in verdicts if row["decoder"] == decoder]
            won = rounds.count("ahead every round")
            print(f"{decoder} against {PAIRS[decoder]}: {counts} (of {len(mine)} cases); "
                  f"faster in every round in {won} of {len(mine)}")


def equality(setup, args) -> dict:
    from speckata.real.prompts import EQUALITY_PROMPTS, chat_ids

    tokens = numbers(args.tokens)[0]
    report = {"prompts": args.equality, "tokens": tokens, "mismatches": []}
    for index, message in enumerate(EQUALITY_PROMPTS[: args.equality]):
        prompt = chat_ids(setup.tokenizer, message)
        expected = setup.hf_generate(prompt, tokens, 0)
        for decoder in args.equality_decoders.split(","):
            if not setup.usable(decoder):
                continue
            out, _, _ = setup.run(decoder, prompt, tokens, 0, args, args.seed)
            same = out == expected
            first = None if same else next((i for i, (a, b) in enumerate(zip(out, expected)) if a != b), len(out))
            print(f"prompt {index:2d} {decoder:<14} {'equal' if same else f'DIFFERS at token {first}'}", flush=True)
            if not same:
                report["mismatches"].append({"prompt": index, "decoder": decoder, "first_difference": first})
    return report


def main(argv) -> int:
    from speckata.real.load import RealModelMissing

    args = parse(argv)
    torch.set_num_threads(numbers(args.threads)[0])
    try:
        from speckata.real.decoders import Setup

        setup = Setup(args.target)
    except RealModelMissing as error:
        print(f"speckata bench real: {error}", file=sys.stderr)
        return 2
    started = time.time()
    if args.equality:
        results = {"equality": equality(setup, args)}
        ours = [m for m in results["equality"]["mismatches"] if "ours" in m["decoder"]]
        print(f"greedy equality: {args.equality} prompts x {results['equality']['tokens']} tokens, "
              f"our mismatches: {len(ours)}")
    else:
        results = benchmark(setup, args)
        tally(results["rows"])
    results["settings"] = {**{k: v for k, v in vars(args).items() if k != "json"}, "python": platform.python_version(),
                           "torch": torch.__version__, "seconds": round(time.time() - started, 1)}
    print(f"{results['settings']['seconds']:.0f} s in all")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
        print(f"wrote {args.json}")
    return 1 if args.equality and any("ours" in m["decoder"] for m in results["equality"]["mismatches"]) else 0
