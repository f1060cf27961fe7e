"""Small real language models and toy models with known distributions, for exercises 10-12.

- ``interface``: what a model offers (``forward_new``, ``cache_length``, ``crop``, ``reset``).
- ``gpt``: a small GPT with a KV cache that crops back; ``markov``: Markov chains behind the same
  interface, whose distributions are known exactly; ``recording``: a wrapper that logs every call.
- ``ragged`` (with ``ragged_gpt``): the ragged batch, B sequences of different lengths in one cache
  (exercise 25).
- ``tokenizers``: the target's characters and the cross-tokenizer draft's word pieces.
- ``sampling``: logits to probabilities and the draws every exercise makes with a torch generator.
- ``decoding``: plain ``autoregressive_generate`` (the baseline) and the result type of
  ``speculative_generate``.
- ``weights``: the committed trained models, loaded by ``load_target()`` / ``load_draft()`` /
  ``load_word_draft()`` from ``speckata.models.pretrained``; ``train``: the script that made them.
- ``medusa``: Medusa's heads on the target's last hidden state (exercise 21), the committed trained
  ones (``load_medusa_heads()``) and the checks; ``trainers/train_medusa.py`` (outside the package:
  it holds exercise 21's answer) trained them.

Importing ``speckata`` never imports torch; importing ``speckata.models`` does.
"""
