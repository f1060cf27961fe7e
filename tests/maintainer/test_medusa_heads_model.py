"""Exercise 21's given pieces: the GPT's hidden-state methods, the committed heads and their training script."""

from __future__ import annotations

import json

import pytest
import torch

from speckata.heads.medusa import MedusaHeads, load_medusa_heads, medusa_settings
from speckata.models.pretrained import HEAD_TARGETS, load_target, text_windows
from tests.reference.ex21_reference import reference_labels, reference_logits
from trainers import train_medusa

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_hidden_state_methods_agree_with_the_existing_ones():
    target = load_target()
    ids = text_windows("held_out", 20, limit=1)[0].tolist()
    logits = target.forward_new(ids)
    target.reset()
    hidden, logits_too = target.forward_new_hidden(ids[:12])
    more_hidden, more_logits = target.forward_new_hidden(ids[12:])
    assert torch.equal(torch.cat([logits_too, more_logits]), logits) or torch.allclose(
        torch.cat([logits_too, more_logits]), logits, atol=1e-5)
    assert torch.allclose(target.head(torch.cat([hidden, more_hidden])), logits, atol=1e-5)
    assert torch.allclose(target.hidden_states(torch.tensor([ids]))[0], torch.cat([hidden, more_hidden]), atol=1e-5)
    assert torch.allclose(target(torch.tensor([ids]))[0], logits, atol=1e-5)


@pytest.mark.parametrize("on", sorted(HEAD_TARGETS))
def test_committed_heads_score_what_their_record_says(on):
    target, heads = HEAD_TARGETS[on](), load_medusa_heads(on=on)
    windows = text_windows("held_out", medusa_settings(on)["held_out_window"])
    with torch.no_grad():
        guesses = reference_logits(heads, target.hidden_states(windows)).argmax(dim=-1)
    labels = reference_labels(windows, heads.num_heads)
    kept = labels != -100
    measured = [round(float((guesses[k] == labels[k])[kept[k]].float().mean()), 4) for k in range(heads.num_heads)]
    assert measured == medusa_settings(on)["held_out_top1"]


def test_training_script_writes_loadable_heads(tmp_path):
    assert train_medusa.main(["--scale", "0.005", "--out", str(tmp_path), "--threads", "1"]) == 0
    record = json.loads((tmp_path / "medusa.json").read_text())
    assert record["steps_run"] == 10 and len(record["held_out_top1"]) == record["num_heads"] == 3
    state = torch.load(tmp_path / "medusa_heads.pt", weights_only=True)
    heads = MedusaHeads(record["width"], record["vocab_size"], record["num_heads"])
    heads.load_state_dict({key: value.float() for key, value in state.items()})


def test_training_script_trains_on_the_deep_twin_beside_the_shipped_files(tmp_path):
    assert train_medusa.main(["--scale", "0.002", "--out", str(tmp_path), "--threads", "1", "--on", "deep"]) == 0
    record = json.loads((tmp_path / "medusa_deep.json").read_text())
    assert record["target"] == "speckata/models/weights/deep_target.pt (frozen)" and record["steps_run"] == 4
    assert record["command"] == "python -m trainers.train_medusa --scale 0.002 --on deep"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["medusa_deep.json", "medusa_heads_deep.pt"]
