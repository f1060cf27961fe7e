"""The drafts given to learners that live inside the target: Medusa's heads and EAGLE's head.

- ``medusa``: Medusa's heads on the target's last hidden state (exercise 21), the committed
  trained ones (``load_medusa_heads()``) and the checks; ``medusa_tree_checks``: exercise 29's.
- ``eagle``: EAGLE's one-layer head (exercises 22, 28, 30), ``load_eagle_head()``;
  ``eagle_cache``: its own key/value cache (exercise 28).

Their trainers (``trainers/train_medusa.py``, ``trainers/train_eagle.py``) live outside the
package: they hold exercises 21's and 22's answers. The old paths (``speckata.models.medusa``, ...)
still import these modules (speckata/moved.py).
"""
