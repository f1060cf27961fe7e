"""Exercise 27-adaptive-draft-length: the formulas of the two rules with a case's numbers put in.

A failing update_acceptance or next_gamma case is reported with the computation the text asks for,
so the learner sees which term differs, not only the two results:

>>> print(explain_update_acceptance(0.5, [2, 0, 1], 2, 0.5))
  k = 2: each row tested min(a + 1, k) drafts: min(3, 2) + min(1, 2) + min(2, 2) = 2 + 1 + 2 = 5, kept 2 + 0 + 1 = 3
  rate = kept / tested = 3 / 5 = 0.6
  beta·rate + (1 - beta)·ema = 0.5·0.6 + 0.5·0.5 = 0.55
"""

from __future__ import annotations

from tests.reference.ex26_reference import exact_best, exact_throughput
from tests.reference.ex27_reference import reference_table_row


def explain_update_acceptance(ema, accepted, k, beta) -> str:
    if k == 0:
        return f"  k = 0: the round tested no draft, so the estimate stays ema = {ema!r}"
    accepted = [int(a) for a in accepted]
    tested = [min(a + 1, k) for a in accepted]
    rate = sum(accepted) / sum(tested)
    return (f"  k = {k}: each row tested min(a + 1, k) drafts: {' + '.join(f'min({a + 1}, {k})' for a in accepted)}"
            f" = {' + '.join(map(str, tested))} = {sum(tested)}, kept {' + '.join(map(str, accepted))} = {sum(accepted)}\n"
            f"  rate = kept / tested = {sum(accepted)} / {sum(tested)} = {rate:.6g}\n"
            f"  beta·rate + (1 - beta)·ema = {beta:g}·{rate:.6g} + {1 - beta:g}·{ema:g} = {beta * rate + (1 - beta) * ema:.6g}")


def explain_next_gamma(alpha, active_rows, target_cost, draft_cost, batch_sizes) -> str:
    row = reference_table_row(active_rows, batch_sizes)
    below = [int(size) for size in batch_sizes if int(size) <= active_rows]
    why = (f"the largest batch size <= {active_rows} active rows" if below
           else f"no batch size is <= {active_rows} active rows, so the first row")
    c, d, B = [float(x) for x in target_cost[row]], float(draft_cost[row]), int(batch_sizes[row])
    throughput = exact_throughput([[[x] for x in c]], [[d]], [B], alpha)[0]
    best = exact_best([throughput])[0][0][0]
    column = ", ".join(f"g={g}: {float(throughput[g][0]):.6g}" for g in range(len(c)))
    return (f"  table row {row} (batch_sizes[{row}] = {B}: {why})\n"
            f"  throughput B·E(alpha, g) / (c[{row}, g] + g·d[{row}]) at alpha = {alpha!r}, d[{row}] = {d:g}, "
            f"c[{row}] = {c}: {column}\n"
            f"  the best g is the FIRST within a relative 1e-9 of the largest: {best}")
