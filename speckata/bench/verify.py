"""``python -m speckata.bench verify``: how fast is the batched verifier (exercise 08)?

For B sequences of γ drafts over a V-token vocabulary (default B = 64, V = 32000, float32,
γ = 2, 4, 8, 16) it times, in one run, taking the minimum over repeats:

- batched:  exercise 08's reference solution, solutions/ex08_batched_verifier.py, on the batch;
- loop:     exercise 07's reference solution called once per row in a Python loop;
- cumsum:   one torch.cumsum over a (B, V) tensor, the floor of drawing one inverse-CDF token
            per row (every verifier must at least do that).

and prints loop / batched (the speedup), batched / cumsum (how far above the floor) and
batched(γ = largest) / batched(γ = smallest) (how flat the cost is in γ). Timings vary from run
to run on a shared machine: compare the ratios, which are measured side by side.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time

import torch

from speckata.manifest import repo_root
from speckata.torch_sampling import sample_rows


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m speckata.bench verify", description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--vocab", type=int, default=32000)
    parser.add_argument("--gammas", default="2,4,8,16", help="comma-separated draft lengths")
    parser.add_argument("--repeats", type=int, default=30, help="timed calls of the batched verifier and cumsum")
    parser.add_argument("--loop-repeats", type=int, default=3, help="timed passes of the per-row loop")
    parser.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (default: torch's choice)")
    return parser.parse_args(argv)


def load_solution(module: str):
    folder = str(repo_root() / "solutions")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return importlib.import_module(module)


def make_batch(batch: int, gamma: int, vocab: int, dtype, device, generator):
    """Softmax rows like a model's; the draft is the target's logits plus noise (acceptance ~0.7)."""
    logits = 2.0 * torch.randn((batch, gamma + 1, vocab), generator=generator, dtype=dtype, device=device)
    target_probs = torch.softmax(logits, dim=-1)
    noise = torch.randn((batch, gamma, vocab), generator=generator, dtype=dtype, device=device)
    draft_probs = torch.softmax(logits[:, :gamma] + 0.6 * noise, dim=-1)
    uniforms = torch.rand((batch * gamma,), generator=generator, dtype=dtype, device=device)
    draft_tokens = sample_rows(draft_probs.reshape(-1, vocab), uniforms).reshape(batch, gamma)
    return target_probs, draft_probs, draft_tokens


def synchronize(device) -> None:
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize()


def seconds(function, device) -> float:
    synchronize(device)
    start = time.perf_counter()
    function()
    synchronize(device)
    return time.perf_counter() - start


def best_times(functions: dict, repeats: int, device) -> dict:
    """The fastest of ``repeats`` calls of each function, in milliseconds, after one warm-up
    call each. The functions take turns, so a burst of load on the machine hits all of them."""
    fastest = {}
    for name, function in functions.items():
        function()
        fastest[name] = float("inf")
    for _ in range(repeats):
        for name, function in functions.items():
            fastest[name] = min(fastest[name], seconds(function, device))
    return {name: value * 1e3 for name, value in fastest.items()}


def main(argv: list[str]) -> int:
    args = parse(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    dtype = getattr(torch, args.dtype)
    gammas = [int(g) for g in args.gammas.split(",")]
    batched = load_solution("ex08_batched_verifier").speculative_step_batched
    per_row = load_solution("ex07_torch_step").speculative_decode_step
    generator = torch.Generator(device=args.device).manual_seed(args.seed)

    floor_input = torch.rand((args.batch, args.vocab), generator=generator, dtype=dtype, device=args.device)

    print(f"B = {args.batch}, V = {args.vocab}, {args.dtype}, {args.device}, torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads; minima over {args.repeats} calls (loop: {args.loop_repeats} passes)\n")
    print(f"{'γ':>3}  {'accepted/row':>12}  {'batched ms':>10}  {'cumsum ms':>9}  {'loop ms':>8}  "
          f"{'loop/batched':>12}  {'batched/cumsum':>14}")
    times = {}
    for gamma in gammas:
        target_probs, draft_probs, draft_tokens = make_batch(args.batch, gamma, args.vocab, dtype, args.device, generator)
        accepted = float(batched(target_probs, draft_probs, draft_tokens, generator).num_accepted.double().mean())

        def loop():
            for row in range(args.batch):
                per_row(draft_probs[row], target_probs[row], draft_tokens[row], generator)

        fast = best_times(
            {
                "batched": lambda: batched(target_probs, draft_probs, draft_tokens, generator),
                "cumsum": lambda: torch.cumsum(floor_input, dim=-1),
            },
            args.repeats, args.device,
        )
        fast["loop"] = best_times({"loop": loop}, args.loop_repeats, args.device)["loop"]
        times[gamma] = fast["batched"]
        print(f"{gamma:>3}  {accepted:>12.2f}  {fast['batched']:>10.3f}  {fast['cumsum']:>9.3f}  {fast['loop']:>8.1f}  "
              f"{fast['loop'] / fast['batched']:>11.1f}x  {fast['batched'] / fast['cumsum']:>13.2f}x")
        del target_probs, draft_probs, draft_tokens
    low, high = min(gammas), max(gammas)
    print(f"\nbatched(γ = {high}) / batched(γ = {low}) = {times[high] / times[low]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
