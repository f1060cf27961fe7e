"""``python -m speckata.bench verify``: how fast is the batched verifier (exercise 08)?

For B sequences of γ drafts over a V-token vocabulary (default B = 64, V = 32000, float32,
γ = 2, 4, 8, 16) it times, in one run, taking the minimum over repeats:

- batched:  exercise 08's reference solution, solutions/ex08_batched_verifier.py, on the batch;
- loop:     exercise 07's reference solution called once per row in a Python loop (and the same
            loop with exercise 07's input checks switched off, since they read every row);
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
    exercise_07 = load_solution("ex07_torch_step")
    per_row = exercise_07.speculative_decode_step
    generator = torch.Generator(device=args.device).manual_seed(args.seed)

    floor_input = torch.rand((args.batch, args.vocab), generator=generator, dtype=dtype, device=args.device)
    batches = {gamma: make_batch(args.batch, gamma, args.vocab, dtype, args.device, generator) for gamma in gammas}
    accepted = {
        gamma: float(batched(*batch, generator).num_accepted.double().mean()) for gamma, batch in batches.items()
    }

    def verify(gamma):
        return lambda: batched(*batches[gamma], generator)

    def loop(gamma):
        target_probs, draft_probs, draft_tokens = batches[gamma]
        return lambda: [per_row(draft_probs[b], target_probs[b], draft_tokens[b], generator) for b in range(args.batch)]

    def loop_unchecked(gamma):
        """The same loop with exercise 07's input checks switched off: they read every row of
        every input, which the batched verifier's checks (O(B·γ)) do not."""
        def run():
            checks = exercise_07.check_torch_step_inputs
            exercise_07.check_torch_step_inputs = lambda *inputs: None
            try:
                loop(gamma)()
            finally:
                exercise_07.check_torch_step_inputs = checks
        return run

    # Every measurement takes turns with the others, round after round, so a burst of load on
    # a shared machine slows all of them alike and the minima stay comparable.
    fast = best_times({"cumsum": lambda: torch.cumsum(floor_input, dim=-1)}
                      | {("batched", g): verify(g) for g in gammas}, args.repeats, args.device)
    fast |= best_times({("loop", g): loop(g) for g in gammas} | {("unchecked", g): loop_unchecked(g) for g in gammas},
                       args.loop_repeats, args.device)

    print(f"B = {args.batch}, V = {args.vocab}, {args.dtype}, {args.device}, torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads; minima over {args.repeats} calls (loop: {args.loop_repeats} passes)")
    print(f"floor: torch.cumsum over ({args.batch}, {args.vocab}) = {fast['cumsum']:.3f} ms\n")
    print(f"{'γ':>3}  {'accepted/row':>12}  {'batched ms':>10}  {'loop ms':>8}  {'loop/batched':>12}  "
          f"{'unchecked loop ms':>17}  {'its ratio':>9}  {'batched/cumsum':>14}")
    for gamma in gammas:
        verify_ms, loop_ms, unchecked_ms = fast[("batched", gamma)], fast[("loop", gamma)], fast[("unchecked", gamma)]
        print(f"{gamma:>3}  {accepted[gamma]:>12.2f}  {verify_ms:>10.3f}  {loop_ms:>8.1f}  {loop_ms / verify_ms:>11.1f}x  "
              f"{unchecked_ms:>17.1f}  {unchecked_ms / verify_ms:>8.1f}x  {verify_ms / fast['cumsum']:>13.2f}x")
    low, high = min(gammas), max(gammas)
    print(f"\nbatched(γ = {high}) / batched(γ = {low}) = {fast[('batched', high)] / fast[('batched', low)]:.2f}")
    return 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
