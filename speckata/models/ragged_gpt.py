"""The GPT's ragged batch (speckata.models.ragged): B rows in one preallocated cache, each its own length.

The cache is (layers, B, heads, 2 * context, head width): row b's token j sits in slot j of row
b. New token i of row b is written to slot L_b + i; the mask the caller gives (and the model has
checked) decides what each new token sees, so the slots past a shorter row's tokens, whatever
stale keys they hold, are never read. Twice the context leaves room for the mask's width,
max_b L_b + n, however the rows' lengths and counts combine. A padding token is computed (a
rectangle is one pass) but its keys and values are never written and its logits are zeroed.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from speckata.models.ragged import RaggedRows


class GPTRows(RaggedRows):
    def __init__(self):
        super().__init__()
        self.cache: tuple[torch.Tensor, torch.Tensor] | None = None  # keys, values

    def forget(self, lengths: list[int]) -> None:
        pass  # rolled-back slots are overwritten by the next pass; the mask never reads them before

    def tensors(self, model, batch: int) -> tuple[torch.Tensor, torch.Tensor]:
        c, weight = model.config, model.head.weight
        shape = (c.layers, batch, c.heads, 2 * c.context, c.width // c.heads)
        if self.cache is None or self.cache[0].shape != shape or self.cache[0].dtype != weight.dtype \
                or self.cache[0].device != weight.device:
            self.cache = tuple(torch.zeros(shape, dtype=weight.dtype, device=weight.device) for _ in range(2))
        return self.cache

    @torch.no_grad()
    def run(self, model, ids, counts, mask, positions) -> torch.Tensor:
        batch, n = ids.shape
        keys, values = self.tensors(model, batch)
        device = keys.device
        real = torch.arange(n) < torch.tensor(counts).unsqueeze(1)  # (B, n)
        rows, tokens = real.nonzero(as_tuple=True)
        slots = torch.tensor(self.lengths)[rows] + tokens
        rows, tokens, slots = rows.to(device), tokens.to(device), slots.to(device)
        # A padding token sees nothing; let it see slot 0 so that its (discarded) softmax is defined.
        attend = mask.clone()
        attend[~real, 0] = True
        attend = attend.to(device).unsqueeze(1)  # (B, 1, n, K): the same for every head
        width = mask.shape[-1]
        x = model.token_embedding(ids.clamp(min=0).to(device)) + model.position_embedding.weight[positions.to(device)]
        for layer, block in enumerate(model.blocks):
            q, k, v = block.split_heads(block.norm1(x))  # (B, heads, n, head width)
            keys[layer, rows, :, slots] = k[rows, :, tokens]
            values[layer, rows, :, slots] = v[rows, :, tokens]
            y = F.scaled_dot_product_attention(q, keys[layer, :, :, :width], values[layer, :, :, :width], attn_mask=attend)
            x = x + block.proj(block.merge_heads(y))
            x = x + block.mlp(block.norm2(x))
        logits = model.head(model.norm(x))
        logits[~real.to(device)] = 0
        return logits
