"""Record which tokens prompt lookup drafted and the target kept, for notebook 13's coloured text.

``python -m speckata.real.record_trace`` decodes the benchmark's copy and chat prompts greedily
with SmolLM2-135M and exercise 13's reference lookup (the benchmark's settings: at most 16 tokens
proposed, n-grams up to 16, the proposal length from the typical CPU cost model), and writes, pass
by pass, the text of each kept proposal and of the token the target added itself (a correction
after a rejected proposal, a bonus after an accepted one, or a plain step when nothing was
proposed) to speckata/real/results/trace.json. Greedy decoding, so the run is deterministic.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

from speckata.real.lean_llama import LeanLlama
from speckata.real.load import load_target, load_tokenizer
from speckata.real.lookup import lookup_generate
from speckata.real.prompts import BENCH_PROMPTS, chat_ids

OUTPUT = Path(__file__).resolve().parent / "results" / "trace.json"


def passes(tokenizer, result) -> list[dict]:
    """One entry per target pass: the kept proposal's text and the target's own token's text."""
    out, start = [], 0
    for accepted, proposed in zip(result.accepted_per_pass, result.drafted_per_pass):
        kept = result.tokens[start : start + accepted]
        own = result.tokens[start + accepted]
        kind = "plain" if proposed == 0 else ("bonus" if accepted == proposed else "correction")
        out.append({"kept": tokenizer.decode(kept), "own": tokenizer.decode([own]), "kind": kind})
        start += accepted + 1
    return out


def main(argv: list[str]) -> int:
    torch.set_num_threads(1)
    tokenizer, target = load_tokenizer(), LeanLlama(load_target())
    record = {"settings": {"tokens": 64, "gamma": 16, "n": 16, "temperature": 0}, "prompts": {}}
    for name in ("copy", "chat"):
        result = lookup_generate(target, chat_ids(tokenizer, BENCH_PROMPTS[name]), 64, 16,
                                 torch.Generator().manual_seed(0), temperature=0.0, n=16)
        record["prompts"][name] = {"passes": passes(tokenizer, result), "target_passes": result.target_passes}
    OUTPUT.write_text(json.dumps(record, indent=1, ensure_ascii=False))
    print("wrote", OUTPUT)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
