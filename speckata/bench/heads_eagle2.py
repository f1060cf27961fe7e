"""EAGLE-2's tree (exercise 30) in the heads bench: its decoders, and what one of its rounds costs.

``eagle2_runs`` adds one decoder per (budget, top_k, depth) of ``SETTINGS`` to the heads bench's
table (tokens per pass, speedup, ... beside exercise 28's chain). ``eagle2_report`` prints a third
table: per setting, the nodes the target verifies per round and the head's rows per round
(counted by a RecordingEagleHead on the bench's own prompts, untimed), beside exercise 28's chain
of gamma drafts; then, at the bench's longest context, what a round's parts cost in target passes
of one token (median of 7 interleaved timings, min..max): the target's tree pass over the pending
token and the tree (budget + 1 tokens, the shape grown on a held-out window) against the chain's
pass of gamma + 1, and the head's one call per level (top_k rows, forward_tree) against its one
row per chain step (forward_new).
"""

from __future__ import annotations

import copy

import torch

from speckata.bench._timing import in_units_of, interleaved_seconds
from speckata.heads.eagle import RecordingEagleHead
from speckata.models.pretrained import text_windows
from speckata.real.graded import graded_function

SETTINGS = [(4, 1, 4), (10, 2, 5), (16, 4, 5), (24, 4, 6)]  # (budget, top_k, depth); (4, 1, 4) is a chain of 4


def name_of(budget: int, top_k: int, depth: int) -> str:
    return f"eagle2 b={budget} k={top_k} d={depth}"


def by_depth(result, depth: int, max_new_tokens: int):
    """The result with drafted_per_pass as each round's tree DEPTH (min(depth, tokens missing - 1)), not its
    node count, so that the bench's acceptance by depth reads, for a tree as for a chain, the rounds that
    reached depth d and the share of them that kept d tokens."""
    made, depths = 1, []  # the prompt's pass made the first token
    for accepted in result.accepted_per_pass:
        depths.append(min(depth, max_new_tokens - made - 1))
        made += accepted + 1
    shown = copy.copy(result)
    shown.drafted_per_pass = depths
    return shown


def eagle2_runs(args, target, head) -> dict:
    """name -> run(prompt, generator): exercise 30's decoder at each setting."""
    generate = graded_function("ex30_eagle2_tree", "eagle2_generate", args.target)
    return {name_of(*s): lambda p, g, s=s: by_depth(generate(target, head, p, args.tokens, *s, g, args.temperature),
                                                     s[2], args.tokens) for s in SETTINGS}


def rows_per_round(run, head, sets) -> dict:
    recorder = RecordingEagleHead(head)
    results = [run(recorder, prompt, torch.Generator().manual_seed(seed)) for pairs in sets for prompt, seed in pairs]
    rounds = sum(len(r.drafted_per_pass) for r in results)
    return {"nodes_per_round": sum(sum(r.drafted_per_pass) for r in results) / rounds,
            "head_rows_per_round": (recorder.rows_computed - sum(len(p) for s in sets for p, _ in s)) / rounds}


@torch.no_grad()
def round_costs(args, target, head, context: int, repeats: int = 7, calls: int = 30) -> dict:
    eagle2_tree = graded_function("ex30_eagle2_tree", "eagle2_tree", args.target)
    tree_attention_mask = graded_function("ex18_tree_attention_mask", "tree_attention_mask", args.target)
    tree_position_ids = graded_function("ex18_tree_attention_mask", "tree_position_ids", args.target)
    ids = text_windows("held_out", context + 1, limit=1)[0].tolist()
    target.reset()
    features, _ = target.forward_new_hidden(ids[:context])
    tokens, gamma = torch.tensor(ids[1: context + 1]), args.gamma

    def tree_pass(budget, top_k, depth):
        head.reset()
        shape, nodes = eagle2_tree(target, head, features, tokens, budget, top_k, depth)
        parents = [-1] + [0 if parent == -1 else 1 + parent for parent in shape.parents]
        feed = [ids[context]] + nodes, tree_attention_mask(parents, context), tree_position_ids(parents, context)

        def run():
            target.crop(context)
            target.forward_tree_hidden(*feed)
        return run

    def chain_pass(n):
        def run():
            target.crop(context)
            target.forward_new_hidden(ids[context: context + 1] * n)
        return run

    fused = head.fc(torch.cat([target.token_embedding(tokens), features], dim=-1))

    def head_rows(n):
        mask = torch.ones(n, context + n, dtype=torch.bool)

        def run():
            head.crop(context)
            if n == 1:
                head.forward_new(fused[-1:])
            else:
                head.forward_tree(fused[-n:], mask)
        return run

    steps = {"target pass, 1 token": chain_pass(1), f"target pass, chain of {gamma} (+1)": chain_pass(gamma + 1)}
    steps |= {f"target tree pass, b={b} (+1)": tree_pass(b, k, d) for b, k, d in SETTINGS}
    steps |= {f"head call, {k} row(s)": head_rows(k) for k in sorted({k for _, k, _ in SETTINGS})}
    head.reset()
    head.forward_new(fused)
    seconds = interleaved_seconds(steps, repeats, calls)
    target.reset()
    return in_units_of("target pass, 1 token", seconds)


def eagle2_report(args, target, head, sets, context: int) -> dict:
    """Prints the rows per round and the costs of a round's parts; returns them for the JSON record."""
    chain = graded_function("ex28_eagle_head_cache", "eagle_cached_generate", args.target)
    generate = graded_function("ex30_eagle2_tree", "eagle2_generate", args.target)
    T, n = args.temperature, args.tokens
    rounds = {f"eagle cached g={args.gamma}": rows_per_round(
        lambda h, p, g: chain(target, h, p, n, args.gamma, g, T), head, sets)}
    rounds |= {name_of(*s): rows_per_round(lambda h, p, g, s=s: generate(target, h, p, n, *s, g, T), head, sets)
               for s in SETTINGS}
    costs = round_costs(args, target, head, context)
    print("\nper round (all seed sets): the nodes the target verifies, and the head's rows (the prompts' own excluded)")
    for name, row in rounds.items():
        print(f"  {name:32} {row['nodes_per_round']:6.2f} nodes  {row['head_rows_per_round']:6.2f} head rows")
    print(f"what a round's parts cost, in target passes of one token at a context of {context} (median of 7, min..max):")
    for name, cost in costs.items():
        low, high = cost["spread"]
        print(f"  {name:32} {cost['passes']:6.3f} target passes   {low:.3f}..{high:.3f}")
    return {"rounds": rounds, "costs": costs, "settings": SETTINGS}
