"""``python -m speckata.real.compare_heads --old OLD.safetensors --old-settings OLD.json --json PATH``: two EAGLE heads on
the bench prompts (never in either head's training text), greedy: tokens per target pass of the
chain (``eagle_generate``, ``--gamma`` drafts a round) and of EAGLE-2's tree (``eagle2_generate``),
the old head (the files given) against the committed one. No timing: tokens per pass at
temperature 0 depend only on the weights, so the comparison needs no quiet machine.

The trainer's held-out agreement cannot compare two heads trained on different data: the new run's
held-out windows may have been training windows of the old head. These prompts were in neither.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch


def tokens_per_pass(target, head, prompt, tokens: int, gamma: int, tree: tuple[int, int, int]) -> dict:
    from speckata.real.eagle2_tree import eagle2_generate
    from speckata.real.eagle_head import eagle_generate

    chain = eagle_generate(target, head, prompt, tokens, gamma, torch.Generator().manual_seed(0), 0)
    grown = eagle2_generate(target, head, prompt, tokens, *tree, torch.Generator().manual_seed(0), 0)
    if chain.tokens != grown.tokens:  # both are greedy decoding
        raise RuntimeError("the chain and the tree made different tokens at temperature 0")
    return {"chain": round(tokens / chain.target_passes, 3), "tree": round(tokens / grown.target_passes, 3)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m speckata.real.compare_heads", description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", dest="old_weights", required=True, help="the old head's safetensors")
    parser.add_argument("--old-settings", dest="old_settings", required=True, help="the old head's JSON")
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--gamma", type=int, default=2)
    parser.add_argument("--tree", default="8,4,5", help="budget,top_k,depth (default 8,4,5)")
    parser.add_argument("--prompts", default="chat,code")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    from speckata.real.eagle_head import FeatureTarget, load_head
    from speckata.real.lean_llama import LeanLlama
    from speckata.real.load import load_target, load_tokenizer
    from speckata.real.prompts import BENCH_PROMPTS, chat_ids

    torch.set_num_threads(1)
    tokenizer, target = load_tokenizer(), FeatureTarget(LeanLlama(load_target()))
    tree = tuple(int(part) for part in args.tree.split(","))
    heads = {"old": load_head(Path(args.old_weights), Path(args.old_settings)), "committed": load_head()}
    record = {"settings": {k: v for k, v in vars(args).items() if k != "json"}, "rows": {}}
    for kind in args.prompts.split(","):
        prompt = chat_ids(tokenizer, BENCH_PROMPTS[kind])
        for name, head in heads.items():
            record["rows"][f"{kind} {name}"] = tokens_per_pass(target, head, prompt, args.tokens, args.gamma, tree)
            print(kind, name, record["rows"][f"{kind} {name}"], flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
