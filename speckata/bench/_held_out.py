"""The held-out prompts the heads and early exit benches decode: their options and their seed sets.
The leading underscore keeps it out of ``python -m speckata.bench``'s list."""

from __future__ import annotations

import argparse

from speckata.models.pretrained import text_windows


def add_held_out_arguments(parser: argparse.ArgumentParser) -> None:
    """--tokens, --prompts, --seed-sets, --prompt-length and --repeats, with the defaults both benches use."""
    parser.add_argument("--tokens", type=int, default=64, help="new tokens per prompt (default 64)")
    parser.add_argument("--prompts", type=int, default=4, help="held-out prompts per seed set (default 4)")
    parser.add_argument("--seed-sets", type=int, default=3, help="sets of prompts and seeds (default 3)")
    parser.add_argument("--prompt-length", type=int, default=24, help="characters per prompt (default 24)")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved timed repeats (default 3)")


def seed_sets(args) -> list[list[tuple[list[int], int]]]:
    """Per seed set, its (prompt, generator seed) pairs: different held-out windows, seeds 1000 s + i."""
    windows = text_windows("held_out", 128, args.prompts * args.seed_sets)
    if windows.shape[0] < args.prompts * args.seed_sets:
        raise SystemExit(f"the held-out text holds {windows.shape[0]} windows, fewer than --prompts x --seed-sets")
    return [[(windows[s * args.prompts + i, : args.prompt_length].tolist(), 1000 * s + i) for i in range(args.prompts)]
            for s in range(args.seed_sets)]
