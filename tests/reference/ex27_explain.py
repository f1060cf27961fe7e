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


def _near(a, b) -> bool:
    return abs(float(a) - float(b)) <= 1e-12 * max(1.0, abs(float(b)))


def update_acceptance_step(got, ema, accepted, k, beta) -> str:
    """The step of update_acceptance a wrong result points at (the headline's tail), from what it equals."""
    if k == 0:
        return "with k = 0 the round tested no draft: the estimate stays ema unchanged"
    accepted = [int(a) for a in accepted]
    kept, tested = sum(accepted), sum(min(a + 1, k) for a in accepted)
    rate = kept / tested
    wrong = {
        "the blend: that is the round's rate kept / tested alone, not beta·rate + (1 - beta)·ema": rate,
        "the blend's weights: that is beta·ema + (1 - beta)·rate; beta weighs the round's rate":
            beta * ema + (1 - beta) * rate,
        "the tested count: that counts k drafts per row; a row that rejected tested min(a + 1, k)":
            beta * kept / (k * len(accepted)) + (1 - beta) * ema,
        "the tested count: that counts a + 1 drafts per row; a row that kept all k tested k, min(a + 1, k)":
            beta * kept / sum(a + 1 for a in accepted) + (1 - beta) * ema,
        "the rate: that averages each row's own rate; the round's rate is all kept over all tested":
            beta * sum(a / min(a + 1, k) for a in accepted) / len(accepted) + (1 - beta) * ema,
    }
    try:
        return next(step for step, value in wrong.items() if _near(got, value))
    except (TypeError, ValueError):
        pass
    return "the moving average beta·(kept / tested) + (1 - beta)·ema, worked below"


def next_gamma_step(got, alpha, active_rows, target_cost, draft_cost, batch_sizes) -> str:
    """The step of next_gamma a wrong result points at: the table row read, or the choice on the right row."""
    row = reference_table_row(active_rows, batch_sizes)

    def best_of(b):
        throughput = exact_throughput([[[x] for x in target_cost[b]]], [[draft_cost[b]]], [batch_sizes[b]], alpha)[0]
        return exact_best([throughput])[0][0][0], [float(t[0]) for t in throughput]

    right, column = best_of(row)
    if isinstance(got, int) and not isinstance(got, bool) and 0 <= got < len(column):
        if column[got] >= (1 - 1e-9) * max(column):
            return (f"the tie rule: g = {got} is within a relative 1e-9 of the best on table row {row}, but g = {right} "
                    f"comes first")
        others = [b for b in range(len(batch_sizes)) if b != row and best_of(b)[0] == got]
        if others:
            return (f"the table row: g = {got} is the best of row {others[0]} (batch size {batch_sizes[others[0]]}); "
                    f"{active_rows} active rows read row {row} (batch size {batch_sizes[row]})")
        return (f"the throughput on table row {row}: g = {got} gives {column[got]:.6g} tokens per unit of cost, "
                f"g = {right} gives {column[right]:.6g}")
    return f"the result: next_gamma returns one int g, a column of table row {row}"


EXPLAIN = {"update_acceptance": explain_update_acceptance, "next_gamma": explain_next_gamma}  # the worked formula
STEP = {"update_acceptance": update_acceptance_step, "next_gamma": next_gamma_step}  # the headline's cause
