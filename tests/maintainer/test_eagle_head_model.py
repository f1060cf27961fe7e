"""Exercise 22's given pieces: the committed EAGLE head and distilled draft, and the script that makes them."""

from __future__ import annotations

import json

import pytest
import torch

from speckata.heads.eagle import EagleHead, eagle_settings, load_distilled_draft, load_eagle_head
from speckata.models.pretrained import HEAD_TARGETS, text_windows
from tests.reference.ex22_reference import reference_features, reference_loss_terms, reference_pairs
from trainers import train_eagle

pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.mark.parametrize("on", sorted(HEAD_TARGETS))
def test_committed_head_scores_what_its_record_says(on):
    target, head = HEAD_TARGETS[on](), load_eagle_head(on=on)
    record = eagle_settings(on)["head"]
    windows = text_windows("held_out", record["window"])
    with torch.no_grad():
        features, tokens, following = reference_pairs(target.hidden_states(windows), windows)
        predicted = reference_features(head, target, features, tokens)
        agree = float((target.head(predicted).argmax(-1) == target.head(following).argmax(-1)).float().mean())
    regression, classification = reference_loss_terms(target, predicted, following)
    measured = {"regression": regression, "classification": classification, "top1_agreement": agree}
    assert measured == pytest.approx(record["held_out"], abs=2e-4)
    assert record["parameters"] == sum(p.numel() for p in head.parameters()) == 83072


@pytest.mark.parametrize("on", sorted(HEAD_TARGETS))
def test_committed_distilled_draft_scores_what_its_record_says(on):
    target, draft = HEAD_TARGETS[on](), load_distilled_draft(on=on)
    record = eagle_settings(on)["distilled_draft"]
    windows = text_windows("held_out", record["window"])
    with torch.no_grad():
        p, q = torch.softmax(target(windows).double(), -1), torch.softmax(draft(windows).double(), -1)
    alpha = float(torch.minimum(p, q).sum(-1).mean())
    top1 = float((p.argmax(-1) == q.argmax(-1)).double().mean())
    assert [alpha, top1] == pytest.approx(record["held_out_alpha_top1_after"], abs=2e-4)


@pytest.mark.parametrize("on, weights", [("shipped", "target"), ("deep", "deep_target")])
def test_the_target_is_the_committed_one_the_head_was_trained_on(on, weights):
    assert eagle_settings(on)["target"] == f"speckata/models/weights/{weights}.pt (frozen)"
    assert eagle_settings(on)["head"]["steps_run"] == eagle_settings(on)["head"]["steps"]
    assert eagle_settings(on)["head"]["shape"] == eagle_settings()["head"]["shape"]  # the same head on both


def test_training_script_writes_a_loadable_head(tmp_path):
    """The head's part (the draft's is exercise 11's distill, graded with its own suite)."""
    assert train_eagle.main(["--only", "head", "--scale", "0.005", "--out", str(tmp_path), "--threads", "1"]) == 0
    record = json.loads((tmp_path / "eagle.json").read_text())
    assert record["head"]["steps_run"] == 15 and set(record["head"]["held_out"]) == set(eagle_settings()["head"]["held_out"])
    head = EagleHead(**record["head"]["shape"])
    head.load_state_dict({k: v.float() for k, v in torch.load(tmp_path / "eagle_head.pt", weights_only=True).items()})


def test_training_script_trains_on_the_deep_twin_beside_the_shipped_files(tmp_path):
    assert train_eagle.main(["--only", "head", "--scale", "0.002", "--out", str(tmp_path), "--threads", "1",
                             "--on", "deep"]) == 0
    record = json.loads((tmp_path / "eagle_deep.json").read_text())
    assert record["target"] == "speckata/models/weights/deep_target.pt (frozen)"
    assert record["command"] == "python -m trainers.train_eagle --scale 0.002 --on deep"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["eagle_deep.json", "eagle_head_deep.pt"]


def test_a_target_the_heads_were_not_trained_on_is_named():
    with pytest.raises(ValueError, match=r"on must name one of the targets the heads are trained on, \['deep', 'shipped'\]"):
        load_eagle_head(on="layerskip")
