"""Exercise 20-tree-verification: the calls compared one for one, and the round a difference comes from.

A walk or keep_path mistake changes nothing in its own round's calls: it shows only in the NEXT
round's call (another newest token, another cache length). So before reporting a differing call,
the report looks for an earlier round whose walk went otherwise (another keep_path on the target,
or another token ending the round) and reports that round, with the reference's walk in it.
"""

from __future__ import annotations

from speckata.grading import GradingFailure
from speckata.grading.events import call_mismatch, compared, earliest

KINDS = ("tree", "forward", "keep_path", "crop")  # the resets differ by what earlier cases left: not compared


def shown(call) -> str:
    if call[0] == "tree":
        rows = ["".join(map(str, row[len(row) - len(call[1]):])) for row in call[2]]
        return f"forward_tree(ids {list(call[1])}, tree part of the mask rows {rows}, positions {list(call[3])}, cache {call[4]})"
    if call[0] == "forward":
        return f"forward_new({list(call[1])}, cache {call[2]})"
    return f"{call[0]}({list(call[1]) if isinstance(call[1], tuple) else call[1]}, cache {call[-1]})"


def rounds_of(calls) -> list[list[tuple]]:
    """The calls of each round; a round ends with the model's keep_path."""
    rounds, current = [], []
    for call in calls:
        current.append(call)
        if call[0] == "keep_path":
            rounds.append(current)
            current = []
    return rounds + ([current] if current else [])


def walk_text(walks, round_index) -> str:
    return "\n".join("      " + line for line in walks[round_index]) if round_index < len(walks) else ""


def walk_detail(expected, case):
    """The lines after a round's headline (speckata.grading.events): the reference's walk that round, the case."""
    return lambda first: f"  the reference's walk in round {first.round}:\n{walk_text(expected.walks, first.round - 1)}\n{case}"


def first_wrong_walk(learner_target, got, expected) -> tuple[int, str] | None:
    """(round index, what differs) for the first round whose walk went otherwise than the reference's:
    the target's keep_path (the accepted nodes), or the token that ends the round."""
    theirs_tokens = list(expected.tokens)
    mine_tokens = list(getattr(got, "tokens", None) or [])
    start = 0
    for index, (mine, theirs) in enumerate(zip(rounds_of(learner_target.calls), rounds_of(expected.target.calls))):
        if theirs[-1][0] != "keep_path":
            break
        end = start + expected.accepted_per_pass[index] + 1
        if mine[-1][0] == "keep_path" and mine[-1][1] != theirs[-1][1]:
            cause = ("the round's tokens are right, but the cache keeps other nodes than pending + the accepted path"
                     if mine_tokens[start:end] == theirs_tokens[start:end] else
                     "your walk accepted other nodes than the contract's")
            return index, (f"expected keep_path({list(theirs[-1][1])}), got keep_path({list(mine[-1][1])}) on the "
                           f"target: {cause}")
        if mine_tokens and mine_tokens[start:end] != theirs_tokens[start:end]:
            return index, (f"the round's new tokens are {mine_tokens[start:end]}, the contract's {theirs_tokens[start:end]}: "
                           "your walk ended the round with another token (the correction after a rejection, or the "
                           "bonus token after a leaf)")
        start = end
    return None


def check_calls(name, recorder, expected_recorder, kinds, case, expected, got=None, learner_target=None,
                function="tree_speculative_generate"):
    """The calls of ``kinds`` one for one (``function``: the learner's decoder, named in the first line);
    a walk that went wrong in an earlier round than the first differing call is reported at its own
    round (a walk only changes the NEXT round's calls)."""
    mine = [c for c in compared(recorder.calls) if c[0] in kinds]  # the crop rule: no-op crops are not compared
    theirs = [c for c in compared(expected_recorder.calls) if c[0] in kinds]
    learner_target = learner_target or (recorder if name == "target" else None)
    for index, (want, have) in enumerate(zip(theirs, mine)):
        if want != have:
            round_index = sum(1 for c in expected_recorder.calls[: expected_recorder.calls.index(want)]
                              if c[0] == "keep_path")
            walk = first_wrong_walk(learner_target, got, expected) if learner_target is not None else None
            at_keep_path = "keep_path" in (want[0], have[0])  # the walk's own result, not a later call
            if walk is not None and (walk[0] < round_index or (walk[0] == round_index and at_keep_path)):
                later = (f"(The {name}'s calls before it match the contract's; they differ from round {round_index + 1} "
                         "on, which this round caused.)\n" if walk[0] < round_index else "")
                raise GradingFailure(
                    f"{function}'s round {walk[0] + 1} went otherwise than the contract's: {walk[1]}.\n"
                    f"  the reference's walk that round:\n{walk_text(expected.walks, walk[0])}\n{later}{case}")
            raise GradingFailure(f"{function} made call {index} on the {name} ({'/'.join(kinds)} calls), {shown(have)}, "
                                 f"where the contract makes {shown(want)}, in round {round_index + 1}:\n"
                                 f"  expected {shown(want)}\n  got      {shown(have)}\n"
                                 f"  the reference's walk that round:\n{walk_text(expected.walks, round_index)}\n{case}")
    if len(mine) != len(theirs):
        raise GradingFailure(f"The contract makes {len(theirs)} {'/'.join(kinds)} calls on the {name}; you made "
                             f"{len(mine)}.\n{case}")


def raised_difference(recorders, expected, kinds=KINDS):
    """The first of the learner's calls, on any model, that is not the contract's, in what it did before
    raising: ``recorders`` maps a model's name to the learner's recorder, ``expected`` to the reference's."""
    def mismatch(name):
        mine = [(c, s) for c, s in zip(recorders[name].calls, recorders[name].stamps) if c[0] in kinds]
        theirs = [c for c in expected[name].calls if c[0] in kinds]
        return call_mismatch([c for c, _ in mine], theirs, shown, name, [s for _, s in mine])
    return earliest(*(mismatch(name) for name in recorders))
