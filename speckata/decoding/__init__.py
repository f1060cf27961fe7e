"""What decoding is made of, given: the draws, the result types, the tree shapes and the baseline.

- ``sampling``: logits to probabilities and the draws every end-to-end exercise makes with a
  torch generator (``draw_uniform``, ``sample_token``);
- ``results``: what the decoders return (``SpeculativeResult`` and its twins) and their rates;
- ``tree_shapes``: draft-tree shapes (exercises 20, 24, 29, 30);
- ``baseline``: plain ``autoregressive_generate``, which speculative decoding must match and beat.

Their old paths (``speckata.models.sampling``, ``speckata.models.decoding``, ...), which code
written before the move imports, still work (speckata/moved.py).
"""
