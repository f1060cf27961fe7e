"""Grading suite for exercise 22-eagle-head: eagle_pairs, eagle_features, eagle_loss, eagle_draft, eagle_generate.

Each function is compared with an independent reference (tests/reference/ex22_reference.py): the
pairs exactly, the features and the loss within float tolerance, the drafts and the decoder token
for token, draw for draw (the generator's state afterwards) and call for call (what the target was
fed, where its cache was cropped). The committed target and head make it real (greedy output is
the target's greedy decoding); tiny random GPTs with random heads make the generated cases and
the chi-square test of the sampled output. Nothing here trains for more than a few steps.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

import pytest
import torch

from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from speckata.grading.streams import case_seed
from speckata.models.decoding import autoregressive_generate
from speckata.models.eagle import EagleHead, load_eagle_head
from speckata.models.markov import MarkovModel
from speckata.models.pretrained import char_tokenizer, load_target, text_windows
from tests.reference.ex22_cases import (
    check_draft,
    check_run,
    check_tensor,
    check_triple,
    random_head,
    sequence_law,
    tiny_gpt,
)
from tests.reference.ex22_reference import reference_features, reference_loss, reference_loss_terms, reference_pairs
from tests.shared.statistics import pooled_chi_square

EXERCISE = "22-eagle-head"
pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROMPTS = ["The class definition ", "def speculative_step(", "If the exception "]


def fn(name):
    return learner_function(EXERCISE, name)


@lru_cache(maxsize=1)
def trained():
    return load_target(), load_eagle_head()


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

@pytest.mark.parametrize("shape", [(6,), (2, 5)])
@pytest.mark.generated
@pytest.mark.task(2)
def test_features_match_the_reference(shape):
    target, head = tiny_gpt(case_seed(2210)), random_head(16, case_seed(2211))
    generator = torch.Generator().manual_seed(case_seed(2212))
    features = torch.randn(*shape, 16, generator=generator)
    tokens = torch.randint(0, 7, shape, generator=generator)
    case = f"case: a random head of width 16 on a tiny GPT, features of shape {tuple(features.shape)}, tokens {tokens.tolist()}"
    with torch.no_grad():
        got = call_learner(fn("eagle_features"), head, target, features, tokens, case=case)
        expected = reference_features(head, target, features, tokens)
        swapped = head.layer(head.fc(torch.cat([features, target.token_embedding(tokens)], dim=-1)))
    if isinstance(got, torch.Tensor) and got.shape == expected.shape and torch.allclose(got, swapped, atol=1e-6):
        raise GradingFailure("eagle_features concatenated (features, embedding): EAGLE's fusion reads the embedding "
                             "FIRST, torch.cat([target.token_embedding(tokens), features], dim=-1), then head.fc and "
                             "head.layer.\n" + case)
    check_tensor(f"eagle_features on {tuple(features.shape)}", got, expected,
                 case + "\nhead.layer(head.fc(torch.cat([target.token_embedding(tokens), features], dim=-1)))")


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

def loss_case(seed, shape=(2, 5)):
    generator = torch.Generator().manual_seed(seed)
    return tiny_gpt(seed % 1000), torch.randn(*shape, 16, generator=generator), 1.5 * torch.randn(*shape, 16, generator=generator)


def check_loss(target, predicted, following, case, *weight):
    got = call_learner(fn("eagle_loss"), target, predicted, following, *weight, case=case)
    regression, classification = reference_loss_terms(target, predicted, following)
    w = weight[0] if weight else 0.1
    check_tensor(f"eagle_loss(target, predicted, following{', ' + str(w) if weight else ''})", got,
                 reference_loss(target, predicted, following, w),
                 f"{case}\nthe reference's terms: smooth L1 {regression:.6f}, cross-entropy against the target's "
                 f"distribution {classification:.6f}; loss = {regression:.6f} + {w} * {classification:.6f}")


@pytest.mark.task(3)
def test_worked_example_loss():
    target, head = trained()
    ids = torch.tensor([[10, 11, 12, 13]])
    with torch.no_grad():
        features, tokens, following = reference_pairs(target.hidden_states(ids), ids)
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
    optimizer = torch.optim.Adam(head.parameters(), lr=3e-3)
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


STAT_RUNS = 600
STAT_SEED = 20261202
STAT_LENGTH = 3
STAT_GAMMA = 2
STAT_ALPHA = 1e-3
STAT_PROMPT = [0]


@lru_cache(maxsize=1)
def stat_models():
    return tiny_gpt(22, vocab=3, sharpness=4.0), random_head(16, 23)


def sequence_chi_square(generate, runs: int = STAT_RUNS, seed: int = STAT_SEED):
    target, head = stat_models()
    generator = torch.Generator().manual_seed(seed)
    counts = Counter()
    for _ in range(runs):
        result = call_learner(generate, target, head, STAT_PROMPT, STAT_LENGTH, STAT_GAMMA, generator, case="(statistical test)")
        counts[tuple(result.tokens)] += 1
    law = sequence_law(target, STAT_PROMPT, STAT_LENGTH)
    statistic, df, pvalue = pooled_chi_square(counts, law, runs)
    return statistic, pvalue, counts, df, law


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

def bad_inputs():
    tiny = tiny_gpt(0)
    head = random_head(16, 0)
    feats, toks = torch.zeros(3, 16), torch.tensor([1, 2, 3])
    pred = torch.zeros(2, 16)
    g = torch.Generator()
    return {
        "hidden-2d": ("eagle_pairs", (torch.zeros(4, 16), torch.tensor([[1, 2, 3, 4]])), ("hidden",)),
        "ids-float": ("eagle_pairs", (torch.zeros(1, 4, 16), torch.zeros(1, 4)), ("ids",)),
        "ids-other-shape": ("eagle_pairs", (torch.zeros(1, 4, 16), torch.tensor([[1, 2, 3]])), ("ids",)),
        "window-of-one": ("eagle_pairs", (torch.zeros(1, 1, 16), torch.tensor([[1]])), ("at least 2",)),
        "features-wrong-width": ("eagle_features", (head, tiny, torch.zeros(3, 8), toks), ("width",)),
        "tokens-wrong-shape": ("eagle_features", (head, tiny, feats, torch.tensor([1, 2])), ("tokens",)),
        "head-of-another-width": ("eagle_features", (EagleHead(8, inner=8, mlp_width=8), tiny, feats, toks), ("width",)),
        "loss-shapes-differ": ("eagle_loss", (tiny, pred, torch.zeros(3, 16)), ("shape",)),
        "loss-wrong-width": ("eagle_loss", (tiny, torch.zeros(2, 8), torch.zeros(2, 8)), ("width",)),
        "cls-weight-negative": ("eagle_loss", (tiny, pred, pred, -0.1), ("cls_weight",)),
        "cls-weight-nan": ("eagle_loss", (tiny, pred, pred, float("nan")), ("cls_weight",)),
        "draft-gamma-zero": ("eagle_draft", (tiny, head, feats, toks, 0, g), ("gamma",)),
        "draft-features-wrong-width": ("eagle_draft", (tiny, head, torch.zeros(3, 8), toks, 2, g), ("width",)),
        "gamma-zero": ("eagle_generate", (tiny, head, [0], 4, 0, g), ("gamma",)),
        "target-without-hidden": ("eagle_generate", (MarkovModel([[0.5, 0.5], [0.5, 0.5]]), head, [0], 4, 2, g),
                                  ("forward_new_hidden",)),
        "generate-head-of-another-width": ("eagle_generate", (tiny, EagleHead(8, inner=8, mlp_width=8), [0], 4, 2, g),
                                           ("width",)),
        "empty-prompt": ("eagle_generate", (tiny, head, [], 4, 2, g), ("prompt",)),
        "negative-max-new-tokens": ("eagle_generate", (tiny, head, [0], -1, 2, g), ("max_new_tokens",)),
        "negative-temperature": ("eagle_generate", (tiny, head, [0], 4, 2, g, -1.0), ("temperature",)),
    }


@pytest.mark.parametrize("name", list(bad_inputs()))
@pytest.mark.task(6)
def test_bad_input_raises_value_error(name):
    function, args, phrases = bad_inputs()[name]
    expect_value_error(fn(function), *args, mentions=phrases, problem=name)
