"""Grading suite for exercise 21-medusa-heads: medusa_labels, medusa_logits, medusa_loss, medusa_generate.

Each function is compared with an independent reference (tests/reference/ex21_reference.py): the
labels exactly, the logits and the loss within float tolerance, the decoder token for token and
call for call (what the target was fed, where its cache was cropped). The committed target and
heads make the decoder real (its output must be the target's greedy decoding, and the trained
heads must buy more than one token per pass); tiny random GPTs with random heads make the
generated cases. Nothing here trains for more than a few steps.
"""

from __future__ import annotations

from functools import lru_cache

import pytest
import torch

from speckata.decoding.baseline import autoregressive_generate
from speckata.grading import GradingFailure, call_learner, expect_value_error, learner_function
from speckata.grading.streams import case_seed
from speckata.heads.medusa import MedusaHeads, load_medusa_heads
from speckata.models.pretrained import char_tokenizer, load_target, text_windows
from tests.reference.ex21_cases import bad_inputs, check_run, check_tensor, check_tokens, random_heads, run, tiny_gpt
from tests.reference.ex21_reference import reference_labels, reference_logits, reference_loss
from tests.shared.adam import Adam

EXERCISE = "21-medusa-heads"
pytestmark = pytest.mark.usefixtures("one_torch_thread")
PROMPTS = ["The class definition ", "def speculative_step(", "If the exception "]


def labels_fn():
    return learner_function(EXERCISE, "medusa_labels")


def logits_fn():
    return learner_function(EXERCISE, "medusa_logits")


def loss_fn():
    return learner_function(EXERCISE, "medusa_loss")


def generate_fn():
    return learner_function(EXERCISE, "medusa_generate")


@lru_cache(maxsize=1)
def trained():
    return load_target(), load_medusa_heads()


# Task 1: the labels each head learns -------------------------------------------------------------

@pytest.mark.task(1)
def test_worked_example_labels():
    ids = torch.tensor([[10, 11, 12, 13, 14]])
    got = call_learner(labels_fn(), ids, 2, case="medusa_labels(torch.tensor([[10, 11, 12, 13, 14]]), 2)")
    expected = torch.tensor([[[12, 13, 14, -100, -100]], [[13, 14, -100, -100, -100]]])
    one_ahead = torch.tensor([[[11, 12, 13, 14, -100]], [[12, 13, 14, -100, -100]]])  # head k on ids[t + k + 1]
    if isinstance(got, torch.Tensor) and got.shape == expected.shape and torch.equal(got, one_ahead):
        raise GradingFailure(
            "medusa_labels(torch.tensor([[10, 11, 12, 13, 14]]), 2) returned head 0 = [11, 12, 13, 14, -100]: the\n"
            "token 1 ahead, which the target's own head already predicts. Head k learns the token k + 2 ahead:\n"
            "at t = 0 head 0's label is 12, head 1's is 13.")
    check_tensor("medusa_labels(torch.tensor([[10, 11, 12, 13, 14]]), 2)", got, expected,
                 "Head k at position t learns ids[t + k + 2]; past the window's end the label is -100.", exact=True)


@pytest.mark.task(1)
def test_labels_match_the_reference_on_text_windows():
    ids = text_windows("train", 9, limit=4)
    for num_heads in (1, 3, 5):
        case = f"case: medusa_labels(ids, {num_heads}) with ids = {ids.tolist()}"
        check_tensor(f"medusa_labels(ids, {num_heads})", call_learner(labels_fn(), ids, num_heads, case=case),
                     reference_labels(ids, num_heads), case, exact=True)


@pytest.mark.task(1)
def test_a_window_too_short_for_a_head_is_all_ignored():
    ids = torch.tensor([[3, 4, 5], [6, 7, 8]])
    case = "case: medusa_labels(torch.tensor([[3, 4, 5], [6, 7, 8]]), 3): head 1 needs t + 3 < 3, head 2 t + 4 < 3"
    check_tensor("medusa_labels on windows of 3 tokens", call_learner(labels_fn(), ids, 3, case=case),
                 reference_labels(ids, 3), case, exact=True)


# Task 2: the heads' logits -------------------------------------------------------------------------

@pytest.mark.task(2)
def test_fresh_heads_reproduce_the_targets_head():
    target, _ = trained()
    ids = text_windows("held_out", 12, limit=2)
    fresh = MedusaHeads.from_target(target, 3)
    with torch.no_grad():
        hidden, expected = target.hidden_states(ids), target(ids)
    got = call_learner(logits_fn(), fresh, hidden, case="medusa_logits(MedusaHeads.from_target(target, 3), hidden)")
    check_tensor("medusa_logits(MedusaHeads.from_target(target, 3), target.hidden_states(ids))", got,
                 expected.expand(3, *expected.shape),
                 "Fresh heads have all-zero blocks (SiLU(0) = 0), so each head is hidden + 0 through a copy of the\n"
                 "target's head: every head's logits must equal target(ids). If they do not, check the residual\n"
                 "(hidden + ...), and that the projection reads the sum.")


@pytest.mark.parametrize("shape", [(16,), (5, 16), (2, 4, 16)])
@pytest.mark.task(2)
def test_logits_match_the_reference(shape):
    heads = random_heads(tiny_gpt(1), 4, seed=case_seed(21))
    hidden = torch.randn(shape, generator=torch.Generator().manual_seed(case_seed(22)))
    case = f"case: 4 random heads of width 16 over 7 tokens, hidden of shape {shape}"
    with torch.no_grad():
        got = call_learner(logits_fn(), heads, hidden, case=case)
        expected = reference_logits(heads, hidden)
    check_tensor(f"medusa_logits(heads, hidden of shape {shape})", got, expected,
                 case + "\nlogits[k] = projections[k](hidden + SiLU(blocks[k](hidden))), stacked on a new first axis.")


@pytest.mark.task(2)
def test_gradients_reach_every_head():
    heads = random_heads(tiny_gpt(2), 2, seed=case_seed(23))
    hidden = torch.randn(3, 16, generator=torch.Generator().manual_seed(case_seed(24)))
    logits = call_learner(logits_fn(), heads, hidden, case="medusa_logits(heads, hidden) then .sum().backward()")
    if not isinstance(logits, torch.Tensor) or not logits.requires_grad:
        raise GradingFailure("medusa_logits returned logits that autograd cannot train: training calls "
                             "loss.backward() through them. Do not compute them under torch.no_grad() or detach them.")
    (logits * torch.arange(logits.numel()).reshape(logits.shape).float()).sum().backward()
    dead = [name for name, p in heads.named_parameters() if p.grad is None or not bool(p.grad.abs().sum() > 0)]
    if dead:
        raise GradingFailure(f"After backward() through medusa_logits, these parameters got no gradient: {dead}. "
                             f"Every head's block and projection must be used.")


# Task 3: the weighted loss ---------------------------------------------------------------------------

def loss_case(seed, num_heads=3, shape=(2, 6), vocab=5):
    generator = torch.Generator().manual_seed(seed)
    logits = torch.randn(num_heads, *shape, vocab, generator=generator)
    ids = torch.randint(0, vocab, shape, generator=generator)
    return logits, reference_labels(ids, num_heads)


@pytest.mark.task(3)
def test_worked_example_loss():
    target, _ = trained()
    ids = torch.tensor([[10, 11, 12, 13, 14]])
    with torch.no_grad():
        logits = reference_logits(MedusaHeads.from_target(target, 2), target.hidden_states(ids))
    labels = reference_labels(ids, 2)
    got = call_learner(loss_fn(), logits, labels, case="the worked example's medusa_loss(logits, medusa_labels(ids, 2))")
    check_tensor("the worked example's medusa_loss", got, reference_loss(logits, labels),
                 "Head 0 has 3 labelled positions, head 1 has 2: loss = CE_0 + 0.8 * CE_1, each a mean over its own "
                 "labelled positions.")


@pytest.mark.parametrize("decay", [0.8, 0.5, 1.0])
@pytest.mark.generated
@pytest.mark.task(3)
def test_loss_matches_the_reference(decay):
    for index in range(4):
        logits, labels = loss_case(case_seed(300 + index), num_heads=1 + index)
        case = f"case {index}: {1 + index} heads, logits of shape {tuple(logits.shape)}, labels {labels.tolist()}, decay {decay}"
        got = call_learner(loss_fn(), logits, labels, decay, case=case)
        expected = reference_loss(logits, labels, decay)
        per_head = [round(float(reference_loss(logits[k:k + 1], labels[k:k + 1], 1.0)), 4) for k in range(logits.shape[0])]
        check_tensor(f"medusa_loss(logits, labels, decay={decay})", got, expected,
                     f"{case}\nthe reference's per-head cross-entropies {per_head}, weighted decay**k = "
                     f"{[round(decay ** k, 4) for k in range(len(per_head))]}, sum {float(expected):.6f}")


@pytest.mark.task(3)
def test_the_default_decay_is_medusas():
    logits, labels = loss_case(case_seed(310))
    got = call_learner(loss_fn(), logits, labels, case="medusa_loss(logits, labels) with the default decay")
    check_tensor("medusa_loss(logits, labels) (default decay)", got, reference_loss(logits, labels, 0.8),
                 "The default decay is 0.8: weights 1, 0.8, 0.64 for heads 0, 1, 2.")


@pytest.mark.task(3)
def test_masked_positions_do_not_count():
    logits, labels = loss_case(case_seed(320))
    changed = logits.clone()
    changed[labels == -100] = 50.0 * torch.arange(logits.shape[-1]).float()  # wild logits where nothing is learned
    first = call_learner(loss_fn(), logits, labels, case="medusa_loss on a case")
    second = call_learner(loss_fn(), changed, labels, case="the same case with other logits at the ignored positions")
    if isinstance(first, torch.Tensor) and isinstance(second, torch.Tensor) and abs(float(first) - float(second)) > 1e-5:
        raise GradingFailure(f"Changing the logits only where the label is -100 changed medusa_loss from {float(first):.6f} "
                             f"to {float(second):.6f}: positions past the end of a window must not count (mean over "
                             f"the labelled positions only, ignore_index=-100).")


@pytest.mark.task(3)
def test_a_head_with_no_label_adds_nothing():
    logits, _ = loss_case(case_seed(330), num_heads=2, shape=(1, 3))
    labels = reference_labels(torch.tensor([[1, 2, 3]]), 2)  # head 1 needs t + 3 < 3: never
    got = call_learner(loss_fn(), logits, labels, case="2 heads on a window of 3 tokens: head 1 has no label")
    check_tensor("medusa_loss when head 1 has no labelled position", got, reference_loss(logits, labels),
                 "Head 1 has nothing to learn here: it adds 0, not NaN (a mean over no positions).")


@pytest.mark.task(3)
def test_a_few_steps_of_your_training_teach_head_0():
    target, _ = trained()
    windows = text_windows("train", 64, limit=64)
    held = text_windows("held_out", 64, limit=8)
    heads = MedusaHeads.from_target(target, 2)
    optimizer = Adam(heads.parameters(), lr=3e-3)  # torch.optim.Adam's update (tests/shared/adam.py)
    with torch.no_grad():
        hidden, held_hidden = target.hidden_states(windows), target.hidden_states(held)
    held_labels = reference_labels(held, 2)
    before = float(reference_loss(reference_logits(heads, held_hidden).detach(), held_labels))
    generator = torch.Generator().manual_seed(case_seed(340))
    for _ in range(15):
        rows = torch.randint(0, windows.shape[0], (16,), generator=generator)
        loss = call_learner(loss_fn(), call_learner(logits_fn(), heads, hidden[rows], case="training: medusa_logits"),
                            call_learner(labels_fn(), windows[rows], 2, case="training: medusa_labels"),
                            case="training: medusa_loss")
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    after = float(reference_loss(reference_logits(heads, held_hidden).detach(), held_labels))
    if not after < before - 0.5:
        raise GradingFailure(f"15 Adam steps with your labels, logits and loss (2 heads from the committed target, "
                             f"windows of 64 characters) moved the held-out loss from {before:.3f} to {after:.3f}; the "
                             f"reference's steps lower it by more than 0.5. Check that head k learns ids[t + k + 2].")


# Task 4: greedy decoding, the heads verified in one target pass -----------------------------------------

@pytest.mark.task(4)
def test_worked_example_decoding():
    target, heads = trained()
    prompt = char_tokenizer().encode(PROMPTS[0])
    check_run(*run(target, heads, prompt, 16, "the worked example"))


@pytest.mark.parametrize("text", PROMPTS)
@pytest.mark.task(4)
def test_output_is_the_targets_greedy_decoding(text):
    target, heads = trained()
    prompt = char_tokenizer().encode(text)
    got, recorder, expected, case = run(target, heads, prompt, 40, f"the committed target and heads, {text!r}")
    greedy = autoregressive_generate(target, prompt, 40, torch.Generator(), temperature=0)
    check_tokens(got, greedy, case + "\nCommon causes: rejected guesses left in the cache (crop every round to the prompt "
                 "and the tokens so far); a guess kept without comparing it with the target's argmax at its row; "
                 "the next round started from the wrong row.", "the target's greedy decoding")
    passes = sum(1 for c in recorder.calls if c[0] == "hidden")
    if passes >= 40:
        raise GradingFailure(f"medusa_generate made {passes} target passes for 40 tokens: the heads' guesses never "
                             f"got accepted. Feed [token] + guesses in ONE forward_new_hidden call and keep the run of "
                             f"guesses that match the target's argmax at each row.\n{case}")


@pytest.mark.task(4)
def test_the_cache_holds_exactly_the_accepted_text():
    target, heads = trained()
    prompt = char_tokenizer().encode(PROMPTS[1])
    got, recorder, expected, case = run(target, heads, prompt, 30, "the committed target and heads")
    check_run(got, recorder, expected, case)


@pytest.mark.parametrize("max_new_tokens", [0, 1, 2, 3])
@pytest.mark.task(4)
def test_short_outputs(max_new_tokens):
    target, heads = trained()
    check_run(*run(target, heads, char_tokenizer().encode(PROMPTS[2]), max_new_tokens,
                   f"{max_new_tokens} new tokens (the last token needs no pass of its own)"))


@pytest.mark.generated
@pytest.mark.task(4)
def test_random_tiny_models_match_the_reference():
    for index in range(8):
        target = tiny_gpt(case_seed(400 + index), vocab=3 + index % 3)
        heads = random_heads(target, 1 + index % 4, seed=case_seed(500 + index), scale=(0.0, 0.3, 1.0)[index % 3])
        generator = torch.Generator().manual_seed(case_seed(600 + index))
        prompt = torch.randint(0, target.vocab_size, (1 + index % 3,), generator=generator).tolist()
        try:
            check_run(*run(target, heads, prompt, 12 + index, f"random tiny GPT {index}, {heads.num_heads} heads"))
        except GradingFailure as failure:
            raise GradingFailure(f"{failure}\n\n(random case {index} of 8; the cases before it passed)") from None


# Task 5: bad input -------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(bad_inputs()))
@pytest.mark.task(5)
def test_bad_input_raises_value_error(name):
    function, args, phrases = bad_inputs()[name]
    expect_value_error(learner_function(EXERCISE, function), *args, mentions=phrases, problem=name)
