"""Plain autoregressive decoding (the baseline), the input checks and the result type of exercise 10.

``autoregressive_generate`` is what speculative decoding must match in distribution and beat in
time: one target pass per token. It uses the same helpers and draws as the exercises
(``speckata.models.sampling``): one ``sample_token`` per new token.

>>> import torch
>>> from speckata.models.markov import MarkovModel
>>> chain = MarkovModel([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])   # 0 -> 1 -> 2 -> 0
>>> autoregressive_generate(chain, [0], 4, torch.Generator().manual_seed(0))
[1, 2, 0, 1]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from speckata.models.sampling import check_temperature, next_token_probabilities, sample_token


def tokens_per_pass(tokens: list[int], target_passes: int) -> float:
    return len(tokens) / target_passes if target_passes else 0.0


def acceptance_rate(accepted_per_pass: list[int], proposed_per_pass: list[int]) -> float:
    """Accepted over tested proposals: a round tests its proposals up to and including the first rejection."""
    tested = sum(min(proposed, accepted + 1) for accepted, proposed in zip(accepted_per_pass, proposed_per_pass))
    return sum(accepted_per_pass) / tested if tested else 0.0


@dataclass
class SpeculativeResult:
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

    @property
    def tokens_per_pass(self) -> float:
        """New tokens per target pass: between 1 and gamma + 1."""
        return tokens_per_pass(self.tokens, self.target_passes)

    @property
    def acceptance_rate(self) -> float:
        """Accepted drafts over drafts that were tested (a rejection ends a round: later ones are not)."""
        return acceptance_rate(self.accepted_per_pass, self.drafted_per_pass)


def check_prompt(prompt_ids, vocab_size: int) -> list[int]:
    if isinstance(prompt_ids, torch.Tensor):
        prompt_ids = prompt_ids.reshape(-1).tolist()
    prompt = list(prompt_ids)
    if not prompt:
        raise ValueError("the prompt is empty: give at least one token id")
    if any(isinstance(t, bool) or not hasattr(t, "__index__") for t in prompt):
        raise ValueError(f"the prompt must hold integer token ids; got {prompt!r}")
    prompt = [int(t) for t in prompt]
    bad = [t for t in prompt if not 0 <= t < vocab_size]
    if bad:
        raise ValueError(f"prompt token id {bad[0]} is out of range for a vocabulary of {vocab_size}")
    return prompt


def check_count(name: str, value, minimum: int) -> int:
    if isinstance(value, bool) or not hasattr(value, "__index__") or int(value) < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
    return int(value)


def check_generation_inputs(target, draft, prompt_ids, max_new_tokens, gamma, temperature) -> list[int]:
    """The checks of exercise 10; returns the prompt as a list of ints.

    ValueError phrases: "prompt", "max_new_tokens", "gamma", "temperature", "vocabulary".
    """
    if target.vocab_size != draft.vocab_size:
        raise ValueError(
            f"the target and the draft must share one vocabulary; got sizes {target.vocab_size} and {draft.vocab_size}"
        )
    prompt = check_prompt(prompt_ids, target.vocab_size)
    check_count("max_new_tokens", max_new_tokens, 0)
    check_count("gamma", gamma, 1)
    check_temperature(temperature)
    return prompt


def autoregressive_generate(model, prompt_ids, max_new_tokens: int, generator: torch.Generator,
                            temperature: float = 1.0) -> list[int]:
    """``max_new_tokens`` tokens, one forward pass and one ``sample_token`` each.

    Resets the model, feeds the whole prompt in the first pass, then one token per pass.
    """
    prompt = check_prompt(prompt_ids, model.vocab_size)
    check_count("max_new_tokens", max_new_tokens, 0)
    check_temperature(temperature)
    model.reset()
    new: list[int] = []
    pending = prompt
    while len(new) < max_new_tokens:
        logits = model.forward_new(pending)[-1]
        token = sample_token(next_token_probabilities(logits, temperature), generator)
        new.append(token)
        pending = [token]
    return new


@dataclass
class CrossTokenizerResult:
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

    @property
    def tokens_per_pass(self) -> float:
        return tokens_per_pass(self.tokens, self.target_passes)

    @property
    def acceptance_rate(self) -> float:
        """Kept proposal tokens over tested ones (a rejection ends a round)."""
        return acceptance_rate(self.accepted_per_pass, self.proposed_per_pass)


def check_cross_tokenizer_inputs(prompt, max_new_tokens, gamma, temperature) -> str:
    """The checks of exercise 12 (the tokenizer checks the prompt's characters); returns the prompt.

    ValueError phrases: "prompt", "max_new_tokens", "gamma", "temperature".
    """
    if not isinstance(prompt, str) or not prompt:
        raise ValueError(f"the prompt must be a non-empty string; got {prompt!r}")
    check_count("max_new_tokens", max_new_tokens, 0)
    check_count("gamma", gamma, 1)
    check_temperature(temperature)
    return prompt
