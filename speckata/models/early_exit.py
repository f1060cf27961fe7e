"""Early exit (exercise 23): the checks of its decoder and a recorder of layer-range calls.

The draft is the target's own first ``exit_layer`` layers read through its final norm and head
(``speckata.models.gpt.GPT``: ``embed_new``, ``forward_layers``, ``exit_logits``; every layer
keeps its own cached length, ``layer_cache_lengths``, and ``layer_computations`` counts one per
token per layer run). ``RecordingLayerModel`` records those calls beside the crops, so a grader
can see what each layer range was fed and when.

>>> from speckata.models.gpt import GPT, GPTConfig
>>> model = RecordingLayerModel(GPT(GPTConfig(vocab_size=5, context=16, width=8, layers=3, heads=2)))
>>> shallow = model.forward_layers(model.embed_new([1, 2]), 0, 1)   # layer 0 only
>>> _ = model.forward_layers(shallow, 1, 3)                       # layers 1 and 2 from its output
>>> model.calls
[('embed', (1, 2), 0), ('layers', 2, 0, 1, (0, 0, 0)), ('layers', 2, 1, 3, (2, 0, 0))]
>>> model.layer_cache_lengths, model.layer_computations
((2, 2, 2), 6)
>>> check_exit_layer(model, 3)
Traceback (most recent call last):
ValueError: exit_layer must be an integer from 1 to 2 (the model's 3 layers less the last, which is the target itself); got 3
"""

from __future__ import annotations

import torch

from speckata.checks.decoding import check_prompt_and_counts
from speckata.models.recording import RecordingModel, passed_through

LAYER_INTERFACE = ("embed_new", "forward_layers", "exit_logits", "num_layers", "width", "layer_cache_lengths",
                   "layer_computations", "crop", "reset", "cache_length", "vocab_size")


def check_layer_interface(model) -> None:
    """A model that can run a range of its layers: a speckata.models.gpt.GPT, or a recorder of one."""
    missing = [name for name in LAYER_INTERFACE if not hasattr(model, name)]
    if missing:
        raise ValueError(f"the model must offer the layer interface embed_new, forward_layers(hidden, start_layer, "
                         f"end_layer), exit_logits, num_layers, width, layer_cache_lengths and layer_computations (a "
                         f"speckata.models.gpt.GPT does); {type(model).__name__} lacks {', '.join(missing)}")


def check_exit_layer(model, exit_layer) -> int:
    """The draft's layer count: 1 .. num_layers - 1 (all layers would be the target, none no model)."""
    layers = model.num_layers
    if isinstance(exit_layer, bool) or not isinstance(exit_layer, int) or not 1 <= exit_layer <= layers - 1:
        raise ValueError(f"exit_layer must be an integer from 1 to {layers - 1} (the model's {layers} layers less "
                         f"the last, which is the target itself); got {exit_layer!r}")
    return exit_layer


def check_early_exit_inputs(model, prompt_ids, max_new_tokens, exit_layer, gamma, temperature) -> list[int]:
    """Every check of exercise 23's decoder, in this order; returns the prompt as a list of ints."""
    check_layer_interface(model)
    check_exit_layer(model, exit_layer)
    return check_prompt_and_counts(prompt_ids, model.vocab_size, max_new_tokens, gamma, temperature)


class RecordingLayerModel(RecordingModel):
    """A RecordingModel that also records ``('embed', ids, layer 0's length before)`` and
    ``('layers', rows, start_layer, end_layer, every layer's length before)``; ``exit_logits``
    computes no layer and is not recorded. ``crop_layers`` is ``('crop_layers', length,
    start_layer, end_layer, lengths before)``."""

    num_layers = passed_through("num_layers")
    width = passed_through("width")
    layer_cache_lengths = passed_through("layer_cache_lengths")
    layer_computations = passed_through("layer_computations")

    def embed_new(self, ids) -> torch.Tensor:
        listed = tuple(int(i) for i in (ids.tolist() if isinstance(ids, torch.Tensor) else ids))
        self._record(("embed", listed, self.model.layer_cache_lengths[0]))
        return self.model.embed_new(ids)

    def forward_layers(self, hidden, start_layer, end_layer) -> torch.Tensor:
        rows = int(hidden.shape[0]) if isinstance(hidden, torch.Tensor) and hidden.ndim else -1
        self._record(("layers", rows, start_layer, end_layer, self.model.layer_cache_lengths))
        return self.model.forward_layers(hidden, start_layer, end_layer)

    def exit_logits(self, hidden) -> torch.Tensor:
        return self.model.exit_logits(hidden)

    def crop_layers(self, length, start_layer, end_layer) -> None:
        self._record(("crop_layers", length, start_layer, end_layer, self.model.layer_cache_lengths))
        self.model.crop_layers(length, start_layer, end_layer)
