"""How the grader and a learner worker talk: length-prefixed pickles on two pipes.

Both sides pickle with protocol 5 and reduce tensors and generators to plain bytes (faster than
torch's own pickling, and readable without torch.load). The grader reads the worker's replies with
reply_unpickler.py, which builds only data: plain values, arrays, the constructors below with
their arguments checked, and the state of objects of known classes. A reply is at most
REPLY_LIMIT bytes: its header is read first and a larger one is refused before anything is
allocated for it.
"""

from __future__ import annotations

import collections
import io
import os
import pickle
import struct
import sys

from speckata.grading.isolation import shipped_classes

PROTOCOL = 5
_HEADER = struct.Struct("<Q")
REPLY_LIMIT = 128 * 1024 * 1024  # bytes of one reply (the reference solutions send at most 34 MB)


class ReplyTooLarge(Exception):
    """The other side announced a message longer than the reader accepts."""

    def __init__(self, size: int, limit: int):
        super().__init__(f"{size:,} bytes, more than the {limit:,} a reply may hold")
        self.size, self.limit = size, limit


def send(fd: int, data: bytes) -> None:
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def receive(reader, limit: int | None = None) -> bytes | None:
    """One message from a buffered reader, or None when the other side is gone; ReplyTooLarge
    (nothing read past the header) when it announces more than ``limit`` bytes."""
    header = reader.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    size = _HEADER.unpack(header)[0]
    if limit is not None and size > limit:
        raise ReplyTooLarge(size, limit)
    data = reader.read(size)
    return data if len(data) == size else None


# Constructors a reply may name ------------------------------------------------------------------

def tensor_from_bytes(data: bytes, dtype: str, shape: tuple, requires_grad: bool, parameter: bool, device: str):
    import torch

    kind = getattr(torch, dtype)
    tensor = (torch.frombuffer(bytearray(data), dtype=kind).reshape(shape) if data
              else torch.empty(shape, dtype=kind))
    if device != "cpu":
        tensor = tensor.to(device)
    if parameter:
        return torch.nn.Parameter(tensor, requires_grad=requires_grad)
    return tensor.requires_grad_(requires_grad) if requires_grad else tensor


def generator_from_state(device: str, state: bytes):
    import torch

    generator = torch.Generator(device=device)
    generator.set_state(torch.frombuffer(bytearray(state), dtype=torch.uint8))
    return generator


_named_tuples: dict[tuple, type] = {}


def named_tuple(name: str, fields: tuple, values: tuple):
    """A learner's named tuple (say VerifiedBatch), rebuilt with the same name and fields."""
    key = (name, tuple(fields))
    if key not in _named_tuples:
        _named_tuples[key] = collections.namedtuple(name, fields)
    return _named_tuples[key](*values)


class Foreign:
    """A value of a class the grader cannot load (defined in the learner's file): its name and repr."""

    def __init__(self, kind: str, text: str):
        self.kind, self.text = kind, text

    def __repr__(self) -> str:
        return f"<{self.kind}: {self.text}>"


remote_grad_hook = None  # set by the grader while it reads a reply: (handle, tensor) -> tensor


def remote_grad_tensor(handle: int, data: bytes, dtype: str, shape: tuple, device: str):
    """A tensor with a gradient graph in the worker: the grader bridges backward to it."""
    tensor = tensor_from_bytes(data, dtype, shape, False, False, device)
    return remote_grad_hook(handle, tensor) if remote_grad_hook else tensor.requires_grad_(True)


# Pickling ----------------------------------------------------------------------------------------

def tensor_reduction(tensor):
    import torch

    data = tensor.detach()
    dtype = str(data.dtype).removeprefix("torch.")
    device = str(data.device)
    raw = data.cpu().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes() if data.numel() else b""
    return raw, dtype, tuple(data.shape), device


class WirePickler(pickle.Pickler):
    """Tensors and generators as bytes; ``self.types`` collects every class pickled (the grader's
    unpickler accepts those back)."""

    def __init__(self, file):
        super().__init__(file, protocol=PROTOCOL)
        self.types: set[type] = set()

    def reducer_override(self, obj):
        kind = type(obj)
        self.types.add(kind)
        if isinstance(obj, type) and shipped_classes.is_suite_class(obj) and obj not in shipped_classes.SHIPPED:
            return shipped_classes.reduction(obj)
        torch = sys.modules.get("torch")
        if torch is not None:
            if kind is torch.Tensor or kind is torch.nn.Parameter:
                if obj.layout != torch.strided or obj.is_quantized:
                    return NotImplemented
                return self.reduce_tensor(obj)
            if kind is torch.Generator:
                state = obj.get_state().numpy().tobytes()
                return generator_from_state, (str(obj.device), state)
        return NotImplemented

    def reduce_tensor(self, tensor):
        raw, dtype, shape, device = tensor_reduction(tensor)
        parameter = type(tensor) is not sys.modules["torch"].Tensor
        return tensor_from_bytes, (raw, dtype, shape, tensor.requires_grad, parameter, device)


def dumps(obj, pickler_class=WirePickler) -> tuple[bytes, set]:
    buffer = io.BytesIO()
    pickler = pickler_class(buffer)
    pickler.dump(obj)
    return buffer.getvalue(), pickler.types
