"""Exercise 23's second target: the LayerSkip recipe, the committed weights and what their record says."""

from __future__ import annotations

import json

import pytest
import torch
import torch.nn.functional as F

from speckata.models.exit_agreement import compare_targets
from speckata.models.gpt import GPT, GPTConfig
from speckata.models.pretrained import (WEIGHTS, layerskip_settings, load_layerskip_target, load_target, settings,
                                       text_windows)
from trainers import train_layerskip

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def test_skip_rates_rise_from_zero_to_p_max_and_exit_weights_rise_with_depth():
    rates = train_layerskip.skip_rates(6, 0.1)
    assert rates[0] == 0 and abs(rates[-1] - 0.1) < 1e-12 and rates == sorted(rates)
    assert train_layerskip.exit_weights(6, 1.0) == [1, 3, 6, 10, 15, 21]  # LayerSkip's "sum_l": 1, 1 + 2, ...
    assert train_layerskip.exit_weights(6, 0.5)[:5] == [0.5, 1.5, 3, 5, 7.5]
    # the gradual curriculum: the last exit from step 0, one more every steps / (2 L), all on by half-way
    assert train_layerskip.exits_on(0, 600, 6) == [False] * 5 + [True]
    assert train_layerskip.exits_on(50, 600, 6) == [False] * 4 + [True] * 2
    assert train_layerskip.exits_on(300, 600, 6) == [True] * 6


def test_with_no_skip_and_only_the_last_exit_the_loss_is_plain_cross_entropy():
    model = GPT(GPTConfig(vocab_size=7, context=16, width=8, layers=3, heads=2))
    batch = torch.randint(0, 7, (2, 9), generator=torch.Generator().manual_seed(0))
    loss = train_layerskip.layerskip_loss(model, batch, [0.0] * 3, [1, 3, 6], [False, False, True], torch.Generator())
    plain = F.cross_entropy(model(batch[:, :-1]).reshape(-1, 7), batch[:, 1:].reshape(-1))
    assert torch.allclose(loss, plain)


def test_a_skipped_layer_leaves_its_sequences_residual_stream_unchanged():
    model = GPT(GPTConfig(vocab_size=7, context=16, width=8, layers=2, heads=2))
    batch = torch.randint(0, 7, (3, 9), generator=torch.Generator().manual_seed(1))
    every_layer = train_layerskip.layerskip_loss(model, batch, [0.0, 1.0], [1, 3], [False, True], torch.Generator())
    ids = batch[:, :-1]
    x = model.blocks[0](model.token_embedding(ids) + model.position_embedding(torch.arange(8)))
    first_only = F.cross_entropy(model.head(model.norm(x)).reshape(-1, 7), batch[:, 1:].reshape(-1))
    assert torch.allclose(every_layer, first_only)


def test_the_committed_record_is_what_the_committed_weights_measure():
    record = layerskip_settings()["measured"]
    measured = json.loads(json.dumps(compare_targets()))  # the record's keys are strings, as JSON writes them
    # Another machine's float kernels may move a loss in its 4th decimal or flip a near-tie's argmax:
    # 1e-3 of loss and 0.005 of agreement (a few of the held-out positions) are that, nothing more.
    for name in ("shipped", "layerskip"):
        assert measured[name]["held_out_loss"] == pytest.approx(record[name]["held_out_loss"], abs=1e-3), name
        assert measured[name]["exit_agreement"].keys() == record[name]["exit_agreement"].keys()
        for layer, agreement in record[name]["exit_agreement"].items():
            assert measured[name]["exit_agreement"][layer] == pytest.approx(agreement, abs=0.005), (name, layer)


def test_the_trained_exits_agree_more_with_the_full_model_at_every_layer():
    record = layerskip_settings()["measured"]
    shipped, trained = record["shipped"]["exit_agreement"], record["layerskip"]["exit_agreement"]
    assert sorted(shipped) == sorted(trained) == ["1", "2", "3", "4", "5"]
    assert all(trained[k] > shipped[k] for k in shipped), (shipped, trained)
    assert record["shipped"]["held_out_loss"] == settings()["models"]["target"]["held_out_loss"]  # measured the same way


def test_the_full_model_stays_within_5_percent_of_the_shipped_loss():
    record = layerskip_settings()["measured"]
    assert record["layerskip"]["held_out_loss"] <= 1.05 * record["shipped"]["held_out_loss"]


def test_the_committed_target_is_the_sweeps_last_run_and_the_trainers_defaults():
    sweep = json.loads((WEIGHTS / "layerskip-sweep.json").read_text())
    committed, record = sweep["runs"][-1], layerskip_settings()
    assert committed["command"] == record["command"] == "python -m trainers.train_layerskip"
    assert (committed["e_scale"], committed["p_max"]) == (record["e_scale"], record["p_max"]) == (
        train_layerskip.SETTINGS["e_scale"], train_layerskip.SETTINGS["p_max"])
    assert committed["held_out_loss"] == record["measured"]["layerskip"]["held_out_loss"]
    assert sweep["shipped"] == record["measured"]["shipped"]


def test_the_layerskip_target_has_the_shipped_shape():
    shipped, trained = load_target(), load_layerskip_target()
    assert trained.config == shipped.config
    assert trained.num_parameters() == shipped.num_parameters() == layerskip_settings()["parameters"]
    ids = text_windows("held_out", 32, limit=1)[0].tolist()
    # logits of a few units: the cached and the whole-window pass differ by float rounding only (~1e-5)
    assert torch.allclose(trained.forward_new(ids), trained(torch.tensor([ids]))[0], atol=1e-4)


def test_training_script_writes_a_loadable_target(tmp_path):
    assert train_layerskip.main(["--scale", "0.005", "--out", str(tmp_path), "--threads", "1"]) == 0
    record = json.loads((tmp_path / "layerskip.json").read_text())
    assert record["steps_run"] == 3 and set(record["measured"]) == {"shipped", "layerskip"}
    assert sorted(record["measured"]["layerskip"]["exit_agreement"]) == ["1", "2", "3", "4", "5"]
    model = GPT(GPTConfig(**record["config"]))
    model.load_state_dict({key: value.float() for key, value in torch.load(tmp_path / "layerskip_target.pt",
                                                                            weights_only=True).items()})
