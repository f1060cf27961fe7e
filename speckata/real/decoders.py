"""The decoders ``python -m speckata.bench real`` compares, all on one float32 SmolLM2-135M.

Ours run on ``LeanLlama`` (the same weights, logits equal to transformers' within float32 rounding);
transformers' run through ``model.generate()`` on the ``LlamaForCausalLM`` itself:

- ``plain (ours)``    ``plain_generate``: one pass per token;
- ``plain (hf)``      ``generate()``: the baseline every speedup is measured against;
- ``lookup (ours)``   ``lookup_generate``: exercise 13's ``ngram_draft``, exercise 12's
                      ``verify_proposal``, the proposal length chosen from the match length and
                      the measured cost of a pass (``speckata.real.proposal_length``);
- ``lookup (hf)``     ``generate(prompt_lookup_num_tokens=...)``;
- ``tiny (ours)``     exercise 10's ``speculative_generate`` with the distilled two-layer draft;
- ``assisted (hf)``   ``generate(assistant_model=tiny draft)``;
- ``eagle (ours)``    ``speckata.real.eagle_head.eagle_generate``: EAGLE's head (one layer on
                      SmolLM2's features, a 4096-token draft vocabulary), exercise 01's rule;
- ``eagle2 (ours)``   ``speckata.real.eagle2_tree.eagle2_generate``: the same head growing EAGLE-2's
                      dynamic tree, verified in one tree pass with exercise 20's walk.

End-of-text stops nobody: every decoder makes exactly the number of tokens asked for.
"""

from __future__ import annotations

import torch

SAMPLED = {"do_sample": True, "temperature": 1.0, "top_k": 0, "top_p": 1.0}
GREEDY = {"do_sample": False}
DECODERS = ("plain (ours)", "plain (hf)", "lookup (ours)", "lookup (hf)", "tiny (ours)", "assisted (hf)", "eagle (ours)",
            "eagle2 (ours)")


class Setup:
    """The model, its tokenizer, the tiny draft, the decoders, and a count of target passes."""

    def __init__(self, folder: str = "solutions"):
        from speckata.real.graded import graded_function
        from speckata.real.lean_llama import LeanLlama
        from speckata.real.load import load_target, load_tokenizer
        from speckata.real.tiny_draft import WEIGHTS_FILE, load_draft

        self.model, self.tokenizer = load_target(), load_tokenizer()
        self.draft_model = load_draft(self.model) if WEIGHTS_FILE.is_file() else None
        if self.draft_model is None:
            print(f"no tiny draft at {WEIGHTS_FILE} (train it: python -m speckata.real.train_draft, ~10 min); "
                  "skipping the tiny-draft decoders")
        self.target = LeanLlama(self.model)
        self.draft = LeanLlama(self.draft_model) if self.draft_model is not None else None
        self.ngram_draft = graded_function("ex13_ngram_draft", "ngram_draft", folder)
        graded_function("ex12_cross_tokenizer", "verify_proposal", folder)  # what lookup_generate verifies with
        self.speculative_generate = graded_function("ex10_speculative_generate", "speculative_generate", folder)
        from speckata.real import eagle_head

        self.eagle_head = eagle_head.load_head() if eagle_head.WEIGHTS_FILE.is_file() else None
        if self.eagle_head is None:
            print(f"no EAGLE head at {eagle_head.WEIGHTS_FILE} (train it: python -m trainers.train_smollm2_eagle); "
                  "skipping the eagle decoder")
        self.features = eagle_head.FeatureTarget(self.target)  # the same LeanLlama: its passes are counted
        self.speculative_step = graded_function("ex01_speculative_step", "speculative_step", folder)
        self.tree_walk = graded_function("ex20_tree_verification", "walk", folder)
        self.last_result = None  # the eagle decoder's last SpeculativeResult (the bench reads its depths)
        self.pass_ms: dict[int, float] | None = None  # the cost model our lookup decoder plans with
        self._hooked = 0
        self.model.register_forward_pre_hook(self._count)

    def _count(self, module, args):
        self._hooked += 1

    def usable(self, decoder: str) -> bool:
        if "eagle" in decoder:
            return self.eagle_head is not None
        return self.draft is not None or ("tiny" not in decoder and "assisted" not in decoder)

    def hf_generate(self, prompt, tokens, temperature, **extra):
        ids = torch.tensor([prompt])
        settings = GREEDY if temperature == 0 else SAMPLED
        out = self.model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=tokens,
                                  eos_token_id=None, pad_token_id=self.tokenizer.eos_token_id, **settings, **extra)
        return out[0, len(prompt):].tolist()

    def run(self, decoder, prompt, tokens, temperature, settings, seed):
        """(new tokens, acceptance rate or None, target passes). ``settings``: gamma, hf_gamma, n,
        min_match, draft_gamma, eagle_gamma, eagle2_budget, eagle2_top_k, eagle2_depth (the parsed command line)."""
        from speckata.real.lookup import lookup_generate
        from speckata.real.plain import plain_generate

        generator = torch.Generator().manual_seed(seed)
        torch.manual_seed(seed)  # transformers' sampling draws from the global generator
        self._hooked, self.target.passes = 0, 0
        alpha = None
        if decoder == "plain (ours)":
            out = plain_generate(self.target, prompt, tokens, generator, temperature)
        elif decoder == "lookup (ours)":
            result = lookup_generate(self.target, prompt, tokens, settings.gamma, generator, temperature, settings.n,
                                     drafter=self.ngram_draft, min_match=settings.min_match, pass_ms=self.pass_ms)
            out, alpha = result.tokens, result.acceptance_rate
        elif decoder == "tiny (ours)":
            result = self.speculative_generate(self.target, self.draft, prompt, tokens, settings.draft_gamma,
                                               generator, temperature)
            out, alpha = result.tokens, result.acceptance_rate
        elif decoder == "eagle (ours)":
            from speckata.real.eagle_head import eagle_generate

            result = eagle_generate(self.features, self.eagle_head, prompt, tokens, getattr(settings, "eagle_gamma", 2),
                                    generator, temperature, self.speculative_step)
            out, alpha = result.tokens, result.acceptance_rate
            self.last_result = result
        elif decoder == "eagle2 (ours)":
            from speckata.real.eagle2_tree import eagle2_generate

            result = eagle2_generate(self.features, self.eagle_head, prompt, tokens, settings.eagle2_budget,
                                     settings.eagle2_top_k, settings.eagle2_depth, generator, temperature, self.tree_walk)
            out, alpha = result.tokens, result.acceptance_rate
            self.last_result = result
        elif decoder == "plain (hf)":
            out = self.hf_generate(prompt, tokens, temperature)
        elif decoder == "lookup (hf)":
            out = self.hf_generate(prompt, tokens, temperature, prompt_lookup_num_tokens=settings.hf_gamma)
        elif decoder == "assisted (hf)":
            out = self.hf_generate(prompt, tokens, temperature, assistant_model=self.draft_model)
        else:
            raise ValueError(f"unknown decoder {decoder!r}; choose from {', '.join(DECODERS)}")
        return out, alpha, self._hooked + self.target.passes


def forward_costs(target, sizes=(1, 2, 3, 5, 9, 17), calls: int = 15) -> dict[int, float]:
    """The cost model: the fastest of ``calls`` cached passes over j new tokens (after 100), in ms."""
    from speckata.real.proposal_length import measure_pass_ms

    return {j: round(ms, 1) for j, ms in measure_pass_ms(target, sizes, calls=calls).items()}
