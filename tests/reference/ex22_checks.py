"""Exercise 22-eagle-head: the suite's checks of Tasks 2 and 3 (the head's features, the loss).

tests/test_22_eagle_head.py calls them. A swapped fusion is named before any value is compared
(it is the one mistake the text warns about by name), and a wrong loss is shown with the
reference's two terms and how they add up.
"""

from __future__ import annotations

import torch

from speckata.grading import GradingFailure, call_learner, learner_function
from tests.reference.ex21_cases import check_tensor
from tests.reference.ex22_cases import tiny_gpt
from tests.reference.ex22_reference import reference_features, reference_loss, reference_loss_terms

EXERCISE = "22-eagle-head"
FUSION = "head.layer(head.fc(torch.cat([target.token_embedding(tokens), features], dim=-1)))"


def check_features(head, target, features, tokens, case):
    """The learner's eagle_features on these inputs against the reference's; a swapped fusion named first."""
    with torch.no_grad():
        got = call_learner(learner_function(EXERCISE, "eagle_features"), head, target, features, tokens, case=case)
        expected = reference_features(head, target, features, tokens)
        swapped = head.layer(head.fc(torch.cat([features, target.token_embedding(tokens)], dim=-1)))
    if isinstance(got, torch.Tensor) and got.shape == expected.shape and torch.allclose(got, swapped, atol=1e-6):
        raise GradingFailure("eagle_features concatenated (features, embedding): EAGLE's fusion reads the embedding "
                             "FIRST, torch.cat([target.token_embedding(tokens), features], dim=-1), then head.fc and "
                             "head.layer.\n" + case)
    check_tensor(f"eagle_features on {tuple(features.shape)}", got, expected, f"{case}\n{FUSION}")


def loss_case(seed, shape=(2, 5)):
    generator = torch.Generator().manual_seed(seed)
    return tiny_gpt(seed % 1000), torch.randn(*shape, 16, generator=generator), 1.5 * torch.randn(*shape, 16, generator=generator)


def check_loss(target, predicted, following, case, *weight):
    got = call_learner(learner_function(EXERCISE, "eagle_loss"), target, predicted, following, *weight, case=case)
    regression, classification = reference_loss_terms(target, predicted, following)
    w = weight[0] if weight else 0.1
    check_tensor(f"eagle_loss(target, predicted, following{', ' + str(w) if weight else ''})", got,
                 reference_loss(target, predicted, following, w),
                 f"{case}\nthe reference's terms: smooth L1 {regression:.6f}, cross-entropy against the target's "
                 f"distribution {classification:.6f}; loss = {regression:.6f} + {w} * {classification:.6f}")
