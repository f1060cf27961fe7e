"""What the end-to-end decoders return: the result types of exercises 10 and 12, and their rates."""

from __future__ import annotations

from dataclasses import dataclass, field


def tokens_per_pass(tokens: list[int], target_passes: int) -> float:
    return len(tokens) / target_passes if target_passes else 0.0


def acceptance_rate(accepted_per_pass: list[int], proposed_per_pass: list[int]) -> float:
    """Accepted over tested proposals: a round tests its proposals up to and including the first rejection."""
    tested = sum(min(proposed, accepted + 1) for accepted, proposed in zip(accepted_per_pass, proposed_per_pass))
    return sum(accepted_per_pass) / tested if tested else 0.0


class PassRates:
    """The two rates every decoder result reports, from its tokens, passes and proposals."""

    @property
    def tokens_per_pass(self) -> float:
        """New tokens per target pass: between 1 and gamma + 1."""
        return tokens_per_pass(self.tokens, self.target_passes)

    @property
    def acceptance_rate(self) -> float:
        """Accepted proposals over tested ones (a rejection ends a round: later ones are not tested)."""
        return acceptance_rate(self.accepted_per_pass, self.proposals())

    def proposals(self) -> list[int]:
        """How many tokens were proposed at each target pass: the drafted ones, unless a result says otherwise."""
        return self.drafted_per_pass


@dataclass
class SpeculativeResult(PassRates):
    """What ``speculative_generate`` returns (exercise 10).

    tokens             the max_new_tokens new tokens, prompt not included, as plain ints.
    accepted_per_pass  for each target pass (round), how many drafted tokens it accepted.
    drafted_per_pass   for each target pass, how many tokens the draft proposed (gamma, or fewer
                       near the end so that no round can overshoot max_new_tokens).
    target_passes      how many times the target's forward_new was called.
    draft_passes       how many times the draft's forward_new was called.
    """

    tokens: list[int] = field(default_factory=list)
    accepted_per_pass: list[int] = field(default_factory=list)
    drafted_per_pass: list[int] = field(default_factory=list)
    target_passes: int = 0
    draft_passes: int = 0


@dataclass
class CrossTokenizerResult(PassRates):
    """What ``cross_tokenizer_generate`` returns (exercise 12).

    text               the new text (the decoded new target tokens), prompt not included.
    tokens             the max_new_tokens new target token ids, as plain ints.
    proposed_per_pass  for each target pass, how many target tokens the draft's text proposed.
    accepted_per_pass  for each target pass, how many of them were kept.
    target_passes      how many times the target's forward_new was called.
    draft_passes       how many times the draft's forward_new was called.
    """

    text: str = ""
    tokens: list[int] = field(default_factory=list)
    proposed_per_pass: list[int] = field(default_factory=list)
    accepted_per_pass: list[int] = field(default_factory=list)
    target_passes: int = 0
    draft_passes: int = 0

    def proposals(self) -> list[int]:
        return self.proposed_per_pass  # the target tokens of the draft's text, not drafted tokens


@dataclass
class BatchedSpeculativeResult:
    """What ``batched_speculative_generate`` returns (exercise 25), for B rows decoded together.

    tokens              tokens[b]: row b's max_new_tokens new tokens, its prompt not included.
    accepted_per_row    accepted_per_row[b][r]: how many drafts row b accepted in the r-th round it
                        took part in (the verifier's count; a row leaves the batch when it is done).
    drafted_per_round   for each round, how many tokens the draft proposed for every row in it.
    target_passes       how many forward_rows passes the target received (one per round).
    draft_passes        how many forward_rows passes the draft received.
    """

    tokens: list[list[int]] = field(default_factory=list)
    accepted_per_row: list[list[int]] = field(default_factory=list)
    drafted_per_round: list[int] = field(default_factory=list)
    target_passes: int = 0
    draft_passes: int = 0

    @property
    def tokens_per_pass(self) -> float:
        """New tokens of all rows per target pass: what one batched pass of the target buys."""
        return tokens_per_pass([t for row in self.tokens for t in row], self.target_passes)
