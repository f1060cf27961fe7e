"""The models: small real language models and toy models with known distributions, behind one interface.

- ``interface``: what a model offers (``forward_new``, ``cache_length``, ``crop``, ``reset``).
- ``gpt``: a small GPT with a KV cache that crops back, exits after any layer (``early_exit``) and
  a tree pass (``tree_pass``); ``markov``: Markov chains behind the same interface, whose
  distributions are known exactly; ``recording``: a wrapper that logs every call.
- ``ragged`` (with ``ragged_gpt``): the ragged batch, B sequences of different lengths in one cache
  (exercise 25).
- ``tokenizers``: the target's characters and the cross-tokenizer draft's word pieces; ``corpus``:
  the text they were trained on.
- ``weights``: the committed trained models, loaded by ``load_target()`` / ``load_draft()`` /
  ``load_word_draft()`` from ``speckata.models.pretrained``; ``trainers/train_models.py``
  (outside the package) made them. ``exit_agreement``: how well each early exit agrees with the
  whole target, and the held-out loss.

The other kinds that once lived here have their own packages (the map is in CONTRIBUTING.md):
the heads given to learners in ``speckata.heads``, draws, result types, tree shapes and the
baseline decoder in ``speckata.decoding``, input checks in ``speckata.checks``. Their old paths
(``speckata.models.medusa``, ``speckata.models.decoding``, ...) still import them
(speckata/moved.py). Nothing here imports a layer above (heads, real models, benches, grader).

Importing ``speckata`` never imports torch; importing ``speckata.models`` does.
"""
