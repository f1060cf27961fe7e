"""Grading suite for exercise 22-eagle-head: eagle_pairs, eagle_features, eagle_loss, eagle_draft, eagle_generate.

Each function is compared with an independent reference (tests/reference/ex22_reference.py): the
pairs exactly, the features and the loss within float tolerance, the drafts and the decoder token
for token, draw for draw (the generator's state afterwards) and call for call (what the target was
fed, where its cache was cropped). The committed target and head make it real (greedy output is
the target's greedy decoding); tiny random GPTs with random heads make the generated cases and
the chi-square test of the sampled output. Nothing here trains for more than a few steps.
"""

from __future__ import annotations

from functools import lru_cache

import pytest
import torch

from speckata.decoding.baseline import autoregressive_generate
from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from speckata.grading.streams import case_seed
from speckata.heads.eagle import EagleHead, load_eagle_head
from speckata.models.pretrained import char_tokenizer, load_target, text_windows
from tests.reference.ex22_bad_input import bad_inputs
from tests.reference.ex22_cases import check_draft, check_run, check_triple, random_head, tiny_gpt
from tests.reference.ex22_checks import check_features, check_loss, loss_case
from tests.reference.ex22_reference import reference_features, reference_loss, reference_pairs
from tests.reference.ex22_statistics import STAT_ALPHA, STAT_GAMMA, STAT_LENGTH, STAT_RUNS, sequence_chi_square
from tests.shared.adam import Adam

EXERCISE = "22-eagle-head"
pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROMPTS = ["The class definition ", "def speculative_step(", "If the exception "]


def fn(name):
    return learner_function(EXERCISE, name)


@lru_cache(maxsize=1)
def trained():
    return load_target(), load_eagle_head()


def worked_pairs():
    """The worked example's pairs (features, tokens, following) of ids [[10, 11, 12, 13]], the reference's."""
    target, _ = trained()
    ids = torch.tensor([[10, 11, 12, 13]])
    with torch.no_grad():
        return reference_pairs(target.hidden_states(ids), ids)


# Task 1: the training pairs (the shift) --------------------------------------------------------------

@pytest.mark.task(1)
def test_worked_example_pairs():
    target, _ = trained()
    ids = torch.tensor([[10, 11, 12, 13]])
    with torch.no_grad():
        hidden = target.hidden_states(ids)
    case = "case: eagle_pairs(target.hidden_states(ids), ids) with ids = [[10, 11, 12, 13]]"
    got = call_learner(fn("eagle_pairs"), hidden, ids, case=case)
    if isinstance(got, tuple) and len(got) == 3 and isinstance(got[1], torch.Tensor) and got[1].tolist() == [[10, 11, 12]]:
        raise GradingFailure("eagle_pairs paired f_t with tokens [[10, 11, 12]]: the token each feature has already read.\n"
                             "EAGLE's head reads the token ONE STEP AHEAD, x_{t+1} (the sampled token resolves what f_t\n"
                             "cannot know): tokens = ids[:, 1:] = [[11, 12, 13]], and row t learns f_{t+1}.\n" + case)
    check_triple(got, reference_pairs(hidden, ids), case)


@pytest.mark.generated
@pytest.mark.task(1)
def test_pairs_match_the_reference():
    generator = torch.Generator().manual_seed(case_seed(2201))
    for B, T in ((1, 2), (3, 5), (2, 9)):
        hidden = torch.randn(B, T, 16, generator=generator)
        ids = torch.randint(0, 50, (B, T), generator=generator)
        case = f"case: hidden of shape {(B, T, 16)}, ids {ids.tolist()}"
        check_triple(call_learner(fn("eagle_pairs"), hidden, ids, case=case), reference_pairs(hidden, ids), case)


# Task 2: the head's predicted features -----------------------------------------------------------------

@pytest.mark.task(2)
def test_worked_example_features():
    target, head = trained()
    features, tokens, _ = worked_pairs()
    check_features(head, target, features, tokens, "case: the worked example: eagle_features(head, target, features, "
                   "tokens) on the committed target and head, with the pairs of ids [[10, 11, 12, 13]]")


@pytest.mark.parametrize("shape", [(6,), (2, 5)])
@pytest.mark.generated
@pytest.mark.task(2)
def test_features_match_the_reference(shape):
    target, head = tiny_gpt(case_seed(2210)), random_head(16, case_seed(2211))
    generator = torch.Generator().manual_seed(case_seed(2212))
    features = torch.randn(*shape, 16, generator=generator)
    tokens = torch.randint(0, 7, shape, generator=generator)
    check_features(head, target, features, tokens, f"case: a random head of width 16 on a tiny GPT, features of shape "
                   f"{tuple(features.shape)}, tokens {tokens.tolist()}")


@pytest.mark.task(2)
def test_gradients_reach_every_parameter_of_the_head():
    target, head = tiny_gpt(3), random_head(16, 4)
    generator = torch.Generator().manual_seed(case_seed(2220))
    features, tokens = torch.randn(2, 4, 16, generator=generator), torch.randint(0, 7, (2, 4), generator=generator)
    got = call_learner(fn("eagle_features"), head, target, features, tokens, case="eagle_features(...) then backward()")
    if not isinstance(got, torch.Tensor) or not got.requires_grad:
        raise GradingFailure("eagle_features returned features autograd cannot train: training calls loss.backward() "
                             "through them. Do not compute them under torch.no_grad() or detach them.")
    (got * torch.arange(got.numel()).reshape(got.shape).float()).sum().backward()
    dead = [name for name, p in head.named_parameters() if p.grad is None or not bool(p.grad.abs().sum() > 0)]
    if dead:
        raise GradingFailure(f"After backward() through eagle_features these parameters of the head got no gradient: {dead}.")


# Task 3: the loss ---------------------------------------------------------------------------------------

@pytest.mark.task(3)
def test_worked_example_loss():
    target, head = trained()
    features, tokens, following = worked_pairs()
    with torch.no_grad():
        predicted = reference_features(head, target, features, tokens)
    check_loss(target, predicted, following, "case: the worked example (the committed target and head, ids [[10, 11, 12, 13]])")


@pytest.mark.parametrize("weight", [0.1, 0.0, 1.0, 2.5])
@pytest.mark.generated
@pytest.mark.task(3)
def test_loss_matches_the_reference(weight):
    target, predicted, following = loss_case(case_seed(2230))
    check_loss(target, predicted, following, f"case: a tiny GPT, random features of shape {tuple(predicted.shape)}", weight)


@pytest.mark.task(3)
def test_the_default_weight_is_the_papers():
    target, predicted, following = loss_case(case_seed(2231), shape=(7,))
    check_loss(target, predicted, following, "case: eagle_loss(target, predicted, following) with the default "
               "cls_weight (the paper's 0.1)")


@pytest.mark.task(3)
def test_a_few_steps_of_your_training_teach_the_head_and_leave_the_target_alone():
    target, _ = trained()
    windows, held = text_windows("train", 48, limit=64), text_windows("held_out", 48, limit=8)
    with torch.no_grad():
        hidden, held_hidden = target.hidden_states(windows), target.hidden_states(held)
    before_target = {k: v.clone() for k, v in target.state_dict().items()}
    torch.manual_seed(case_seed(2240))
    head = EagleHead(target.width)
    optimizer = Adam(head.parameters(), lr=3e-3)  # torch.optim.Adam's update (tests/shared/adam.py)
    held_pairs = reference_pairs(held_hidden, held)

    def held_out_loss():
        with torch.no_grad():
            return float(reference_loss(target, reference_features(head, target, *held_pairs[:2]), held_pairs[2]))

    before = held_out_loss()
    generator = torch.Generator().manual_seed(case_seed(2241))
    for _ in range(20):
        rows = torch.randint(0, windows.shape[0], (8,), generator=generator)
        features, tokens, following = call_learner(fn("eagle_pairs"), hidden[rows], windows[rows], case="training: eagle_pairs")
        predicted = call_learner(fn("eagle_features"), head, target, features, tokens, case="training: eagle_features")
        loss = call_learner(fn("eagle_loss"), target, predicted, following, case="training: eagle_loss")
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    after = held_out_loss()
    changed = [k for k, v in target.state_dict().items() if not torch.equal(v, before_target[k])]
    if changed:
        raise GradingFailure(f"Training the head changed the target's {changed[:3]}: the target stays frozen.")
    if not after < before - 0.1:
        raise GradingFailure(f"20 Adam steps with your pairs, features and loss (a fresh head on the committed target, "
                             f"windows of 48 characters) moved the held-out loss from {before:.3f} to {after:.3f}; the "
                             f"reference's steps lower it by more than 0.1. Check the shift: row t reads f_t and "
                             f"x_(t+1) and learns f_(t+1).")


# Task 4: drafting gamma tokens on the head's own features ---------------------------------------------------

@pytest.mark.generated
@pytest.mark.task(4)
def test_drafts_match_the_reference():
    for index in range(6):
        target, head = tiny_gpt(case_seed(2250 + index), sharpness=3.0), random_head(16, case_seed(2260 + index))
        generator = torch.Generator().manual_seed(case_seed(2270 + index))
        n = 1 + index % 4
        with torch.no_grad():
            ids = torch.randint(0, 7, (n + 1,), generator=generator)
            features = target.hidden_states(ids[None, :-1])[0]
        check_draft(fn("eagle_draft"), target, head, features, ids[1:], 1 + index % 4, case_seed(2280 + index),
                    (1.0, 0.7, 0.0)[index % 3], f"random tiny GPT {index}")


@pytest.mark.task(4)
def test_drafts_on_the_committed_head():
    target, head = trained()
    ids = torch.tensor(char_tokenizer().encode(PROMPTS[0]))
    with torch.no_grad():
        features = target.hidden_states(ids[None, :-1])[0]
    check_draft(fn("eagle_draft"), target, head, features, ids[1:], 4, 7, 1.0, "the committed target and head")


# Task 5: the decoder, verified with exercise 01's rule ------------------------------------------------------

@pytest.mark.task(5)
def test_worked_example_decoding():
    target, head = trained()
    check_run(fn("eagle_generate"), target, head, char_tokenizer().encode(PROMPTS[0]), 24, 3, 0, 0.0,
              "the worked example (greedy)")


@pytest.mark.parametrize("text", PROMPTS)
@pytest.mark.task(5)
def test_greedy_output_is_the_targets_greedy_decoding(text):
    target, head = trained()
    prompt = char_tokenizer().encode(text)
    got = check_run(fn("eagle_generate"), target, head, prompt, 40, 4, 1, 0.0,
                    f"the committed target and head, {text!r}, greedy")
    if got.target_passes >= 40:
        raise GradingFailure(f"{got.target_passes} target passes for 40 tokens: no draft was ever kept.")
    assert got.tokens == autoregressive_generate(target, prompt, 40, torch.Generator(), temperature=0)


@pytest.mark.parametrize("max_new_tokens", [0, 1, 2, 5])
@pytest.mark.task(5)
def test_short_outputs(max_new_tokens):
    target, head = trained()
    check_run(fn("eagle_generate"), target, head, char_tokenizer().encode(PROMPTS[2]), max_new_tokens, 3, 5, 1.0,
              f"{max_new_tokens} new tokens (the first one comes from the prompt's pass)")


@pytest.mark.parametrize("gamma, temperature", [(3, 1.0), (5, 0.7)])
@pytest.mark.generated
@pytest.mark.task(5)
def test_sampled_on_the_committed_models(gamma, temperature):
    target, head = trained()
    check_run(fn("eagle_generate"), target, head, char_tokenizer().encode(PROMPTS[1]), 30, gamma, case_seed(2290 + gamma),
              temperature, "the committed target and head, sampled")


@pytest.mark.generated
@pytest.mark.task(5)
def test_random_tiny_models_match_the_reference():
    for index in range(8):
        target = tiny_gpt(case_seed(2300 + index), vocab=3 + index % 3, sharpness=3.0)
        head = random_head(16, case_seed(2310 + index))
        generator = torch.Generator().manual_seed(case_seed(2320 + index))
        prompt = torch.randint(0, target.vocab_size, (1 + index % 3,), generator=generator).tolist()
        try:
            check_run(fn("eagle_generate"), target, head, prompt, 6 + index, 1 + index % 4, case_seed(2330 + index),
                      (1.0, 0.0, 1.5, 0.6)[index % 4], f"random tiny GPT {index}")
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(random case {index} of 8; the cases before it passed)") from None


@pytest.mark.statistical
@pytest.mark.task(5)
def test_sampled_output_is_distributed_as_the_target():
    """Chi-square goodness of fit of whole generated sequences against the target's own law.

    Statistic: Pearson's chi-square of the counts of the 27 sequences of 3 new tokens (a tiny GPT
    over 3 tokens, sharpened, and a random head) against their exact probabilities under the
    target, those expected fewer than 5 times pooled into one bin. Sample: 600 runs from one
    generator seeded with 20261202 (gamma = 2, prompt [0]). Threshold: fail when the p-value is
    below 1e-3. tests/maintainer/test_margins_chi_square.py checks the reference's margin, and
    that a decoder verifying against the wrong q, or taking the first token greedily, scores far below.
    """
    statistic, pvalue, counts, df, law = sequence_chi_square(fn("eagle_generate"))
    if pvalue < STAT_ALPHA:
        worst = sorted(law, key=lambda s: -abs(counts[s] - STAT_RUNS * law[s]))[:5]
        rows = "\n".join(f"    {list(s)}  observed {counts[s] / STAT_RUNS:.4f}  target {law[s]:.4f}" for s in worst)
        raise GradingFailure(
            "The sequences eagle_generate samples are not distributed as the target's.\n"
            f"  runs: {STAT_RUNS}, {STAT_LENGTH} new tokens each, gamma = {STAT_GAMMA}, a tiny GPT over 3 tokens\n"
            f"  chi-square = {statistic:.1f} ({df} degrees of freedom), p-value = {pvalue:.2e} < {STAT_ALPHA}\n"
            f"  the sequences furthest from the target:\n{rows}\n"
            "Common causes: q in the accept test is not the distribution the draft was sampled from; the first "
            "token not sampled from the prompt pass's last row.")


# Task 6: bad input ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(bad_inputs()))
@pytest.mark.task(6)
def test_bad_input_raises_value_error(name):
    function, args, phrases = bad_inputs()[name]
    expect_value_error(fn(function), *args, mentions=phrases, problem=name)
