"""How the grader and a learner worker talk: length-prefixed pickles on two pipes.

Both sides pickle with protocol 5 and reduce tensors and generators to plain bytes (faster than
torch's own pickling, and readable without torch.load). The grader reads the worker's replies with
:class:`ReplyUnpickler`, which builds only what a reply may hold: plain data, numpy arrays, the
constructors below, and classes of the given packages (speckata's models, the ReplayRNG, torch.nn
modules) or classes the grader itself sent. Anything else (``os.system``, a learner's own class)
is refused, so a forged reply cannot run code in the grader.
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


def send(fd: int, data: bytes) -> None:
    view = memoryview(_HEADER.pack(len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def receive(reader) -> bytes | None:
    """One message from a buffered reader, or None when the other side is gone."""
    header = reader.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    size = _HEADER.unpack(header)[0]
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


SAFE_GLOBALS = {
    ("builtins", name) for name in ("set", "frozenset", "complex", "slice", "bytearray", "range", "object",
                                    "list", "dict", "tuple", "int", "float", "str", "bytes", "bool")
} | {
    ("collections", "OrderedDict"), ("collections", "defaultdict"),
    ("copyreg", "__newobj__"), ("copyreg", "__newobj_ex__"), ("copyreg", "_reconstructor"),
    ("numpy", "ndarray"), ("numpy", "dtype"),
    ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
    ("numpy.core.numeric", "_frombuffer"), ("numpy._core.numeric", "_frombuffer"),
    ("torch", "Size"), ("torch", "device"),
} | {(__name__, name) for name in ("tensor_from_bytes", "generator_from_state", "named_tuple", "Foreign",
                                  "remote_grad_tensor")}

# Packages whose *classes* a reply may hold (calling a class builds an object; no function is allowed).
CLASS_PACKAGES = ("speckata.replay", "speckata.models.", "torch.nn.modules.", "numpy.dtypes", "numpy.random.")


class ReplyUnpickler(pickle.Unpickler):
    def __init__(self, file, sent_types=frozenset()):
        super().__init__(file)
        self.sent_types = sent_types

    def find_class(self, module, name):
        if (module, name) in SAFE_GLOBALS:
            return super().find_class(module, name)
        if module == "torch" and isinstance(getattr(sys.modules.get("torch"), name, None), type(self).torch_dtype()):
            return getattr(sys.modules["torch"], name)
        if module.startswith(("speckata.replay", "speckata.models.")) and module not in sys.modules:
            __import__(module)  # our own package: importing it runs no learner code
        found = getattr(sys.modules.get(module), name, None) if module in sys.modules else None
        if isinstance(found, type) and (found in self.sent_types or module.startswith(CLASS_PACKAGES)
                                        or module in CLASS_PACKAGES) and not issubclass(found, BaseException):
            return found
        raise pickle.UnpicklingError(f"a reply may not hold {module}.{name}")

    @staticmethod
    def torch_dtype():
        torch = sys.modules.get("torch")
        return torch.dtype if torch is not None else type(None)


def loads_reply(data: bytes, sent_types=frozenset()):
    return ReplyUnpickler(io.BytesIO(data), sent_types).load()
