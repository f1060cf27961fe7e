"""What one EAGLE-2 round costs on SmolLM2, term by term, in one-token target passes.

A round is the head's tree (``draft_tree``: one step over the true rows, then depth - 1 masked steps
of top_k rows, each ranked over the K-token draft vocabulary) and one target tree pass over
budget + 1 tokens. Against plain decoding's one-token pass per token, the tree pays when

    tokens per pass > (draft + tree pass) / one-token pass,

so the bench records the three times (each the fastest of ``calls`` interleaved calls, one thread,
at a context of the chat prompt plus 64 tokens) beside the tokens per pass it measures.
"""

from __future__ import annotations

import time

import torch


@torch.inference_mode()
def round_costs(features_target, head, prompt: list[int], budget: int, top_k: int, depth: int,
                calls: int = 9, synchronize=lambda: None) -> dict:
    """{"one_token_ms", "tree_pass_ms", "draft_ms"} and their ratios to the one-token pass.
    ``synchronize``: called before each clock read (``torch.cuda.synchronize`` on a GPU)."""
    from speckata.real.eagle2_tree import draft_tree
    from speckata.real.eagle_head import HeadRunner
    from speckata.real.graded import graded_function

    mask_of = graded_function("ex18_tree_attention_mask", "tree_attention_mask")
    positions_of = graded_function("ex18_tree_attention_mask", "tree_position_ids")
    lean = features_target.lean
    context = list(prompt) + [prompt[-1]] * 64
    features_target.reset()
    features, _ = features_target.forward_hidden(context, rows=1)
    runner = HeadRunner(head, features_target)
    runner._step(features[:-2], context[1:-1])  # the head's cache holds every true row but the last
    start, head_start = lean.cache_length, runner.length
    shape, tokens, _ = draft_tree(runner, features[-2:-1], context[-1:], budget, top_k, depth)
    parents = [-1] + [0 if parent == -1 else 1 + parent for parent in shape.parents]
    best = {"one_token_ms": float("inf"), "tree_pass_ms": float("inf"), "draft_ms": float("inf")}
    for _ in range(calls):  # the three interleaved, so a slow stretch touches all of them
        for name in best:
            synchronize()
            started = time.perf_counter()
            if name == "one_token_ms":
                lean.forward_new([context[-1]], last=1)
            elif name == "tree_pass_ms":
                lean.forward_tree([context[-1]] + tokens, mask_of(parents, start), positions_of(parents, start),
                                  last=1)
                lean.keep_path([])
            else:
                runner.length = head_start
                draft_tree(runner, features[-2:-1], context[-1:], budget, top_k, depth)
            synchronize()
            best[name] = min(best[name], (time.perf_counter() - started) * 1000)
            lean.crop(start)
        runner.length = head_start
    features_target.reset()
    ratios = {f"{name[:-3]}_passes": round(ms / best["one_token_ms"], 3) for name, ms in best.items()}
    return {**{name: round(ms, 2) for name, ms in best.items()}, **ratios, "tree_nodes": len(shape)}
