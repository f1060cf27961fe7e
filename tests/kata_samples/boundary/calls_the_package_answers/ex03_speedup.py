"""Boundary probe (03-speedup): answers exercise 03 with the bench's formula from the mounted package.

speckata/bench/generate.py held exercise 03's formula, and speckata/models/train_medusa.py and
train_eagle.py exercises 21's and 22's: calling them passed those tests, in the sandbox and out.
This sample calls the bench's functions (and the trainers, where it finds them); it must not pass.
"""


def expected_tokens_per_pass(alpha, gamma):
    from speckata.bench.generate import expected_tokens_per_pass as answer

    return answer(alpha, gamma)


def walltime_speedup(alpha, gamma, c):
    from speckata.bench.generate import speedup_bound

    return speedup_bound(alpha, gamma, c)


def optimal_gamma(alpha, c, max_gamma=16):
    best, best_speedup = 1, -1.0
    for gamma in range(1, max_gamma + 1):
        if walltime_speedup(alpha, gamma, c) > best_speedup:
            best, best_speedup = gamma, walltime_speedup(alpha, gamma, c)
    return best
