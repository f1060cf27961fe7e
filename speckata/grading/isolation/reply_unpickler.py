"""Reading a worker's reply: data only, never an object that can act in the grader.

A reply is untrusted: the learner's code runs in the worker and may write any bytes to the reply
pipe. It is read with Python's own (pure-Python) unpickler, whose memo is a dict and whose every
opcode is a method, with these opcodes replaced:

- ``find_class`` (GLOBAL, STACK_GLOBAL): only the constructors in ``_checks()``, torch's dtypes, and
  *data classes*: classes of the packages in CLASS_PACKAGES or classes the grader's request
  itself held, never a metaclass (``type``), an exception, a function or a module;
- REDUCE (a call): only the constructors in ``_checks()``, each with its arguments checked first (no
  ``bytes(2**31)``, no ``list(range(10**12))``, no tensor of a shape its bytes do not fill);
- NEWOBJ, NEWOBJ_EX (``cls.__new__``): a data class, with no arguments unless it is a tuple
  (a named tuple's fields);
- BUILD (an object's state): never on a class, and no state key that starts with "__";
- INST and OBJ (protocol 0 and 1 calls of a class): refused.

Anything else is refused with ``pickle.UnpicklingError``: the grader then says the reply was not
data and uses nothing of it.
"""

from __future__ import annotations

import collections
import io
import pickle
import sys
import types

from speckata.grading.isolation import wire

# Packages whose *classes* a reply may hold (state only: their constructors are never called).
CLASS_PACKAGES = ("speckata.replay", "speckata.models.", "speckata.decoding.", "speckata.heads.", "torch.nn.modules.")
MAX_SHAPE_ELEMENTS = 1 << 31
TORCH_DTYPES = ("float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool",
                "complex64", "complex128")


def _shape(shape) -> bool:
    if type(shape) is not tuple or len(shape) > 8 or not all(type(n) is int and 0 <= n for n in shape):
        return False
    return _count(shape) <= MAX_SHAPE_ELEMENTS


def _materialized(value) -> bool:
    return type(value) in (list, tuple, set, frozenset, dict, str, bytes, bytearray)


def _tensor(data, dtype, shape, requires_grad=False, parameter=False, device="cpu") -> bool:
    if not (type(data) is bytes and dtype in TORCH_DTYPES and _shape(shape) and device == "cpu"
            and type(requires_grad) is bool and type(parameter) is bool):
        return False
    torch = sys.modules.get("torch")
    itemsize = getattr(torch, dtype).itemsize if torch is not None else 8
    return len(data) == _count(shape) * itemsize


# Each constructor a reply may call, with the check its arguments must pass first.
def _checks() -> dict:
    checks = {
        wire.tensor_from_bytes: lambda *a: _tensor(*a),
        wire.remote_grad_tensor: lambda handle, data, dtype, shape, device: type(handle) is int and _tensor(
            data, dtype, shape, False, False, device),
        wire.generator_from_state: lambda device, state: device == "cpu" and type(state) is bytes and len(state) < 1 << 16,
        wire.named_tuple: lambda name, fields, values: (type(name) is str and len(name) < 100 and type(fields) is tuple
                                                        and len(fields) < 64 and all(type(f) is str and len(f) < 100
                                                                                     for f in fields)
                                                        and type(values) is tuple and len(values) == len(fields)),
        wire.Foreign: lambda kind, text: type(kind) is str and type(text) is str,
        complex: lambda *a: len(a) <= 2 and all(type(x) in (int, float) for x in a),
        slice: lambda *a: len(a) <= 3 and all(type(x) in (int, type(None)) for x in a),
        collections.OrderedDict: lambda *a: not a or (len(a) == 1 and type(a[0]) in (list, tuple)),
        collections.defaultdict: lambda *a: not a or (len(a) == 1 and a[0] in (None, list, dict, int, float, set)),
    }
    for kind in (tuple, list, dict, set, frozenset):
        checks[kind] = lambda *a: not a or (len(a) == 1 and _materialized(a[0]))
    for kind in (int, float, str, bytes, bool):
        checks[kind] = lambda *a, kind=kind: not a or (len(a) == 1 and type(a[0]) is kind)
    checks.update(_numpy_checks())
    checks.update(_torch_checks())
    return checks


def _numpy_checks() -> dict:
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return {}
    checks = {numpy.dtype: lambda *a: 1 <= len(a) <= 3 and type(a[0]) is str and len(a[0]) < 16
              and not a[0].lstrip("<>|=").startswith(("V", "S", "U", "O"))}
    for module in ("numpy._core.multiarray", "numpy.core.multiarray"):
        found = sys.modules.get(module)
        if found is not None:
            checks[found._reconstruct] = lambda cls, shape, code: cls is numpy.ndarray and shape == (0,)
            checks[found.scalar] = lambda dtype, *data: isinstance(dtype, numpy.dtype) and all(
                type(d) is bytes and len(d) <= 64 for d in data)
    for module in ("numpy._core.numeric", "numpy.core.numeric"):
        found = sys.modules.get(module)
        if found is not None:
            checks[found._frombuffer] = lambda buf, dtype, shape, order: (
                type(buf) in (bytes, bytearray) and isinstance(dtype, numpy.dtype) and _shape(shape)
                and order in ("C", "F") and len(buf) == dtype.itemsize * _count(shape) and not dtype.hasobject)
    return checks


def _torch_checks() -> dict:
    torch = sys.modules.get("torch")
    if torch is None:
        return {}
    return {torch.Size: lambda *a: len(a) == 1 and _shape(tuple(a[0]) if type(a[0]) in (tuple, list) else None),
            torch.device: lambda *a: len(a) <= 2 and all(type(x) in (str, int) for x in a) and str(a[0]).startswith("cpu")}


def _count(shape) -> int:
    count = 1
    for n in shape:
        count *= n
    return count


_known_for: dict = {}  # (numpy, torch) as imported -> (checks, globals): built once, not per reply


def _known() -> tuple[dict, dict]:
    key = (id(sys.modules.get("numpy")), id(sys.modules.get("torch")))
    if key not in _known_for:
        _known_for.clear()
        _known_for[key] = (_checks(), _globals())
    return _known_for[key]


def _globals() -> dict:
    """(module, name) of each constructor in the checks, as pickle names it."""
    names = {}
    for function in _checks():
        module = getattr(function, "__module__", None)
        names[(module, function.__qualname__)] = function
        if module == "builtins":
            names[("__builtin__", function.__qualname__)] = function
    return names


class ReplyUnpickler(pickle._Unpickler):  # noqa: SLF001 - the Python unpickler: each opcode can be checked
    dispatch = dict(pickle._Unpickler.dispatch)  # noqa: SLF001

    def __init__(self, file, sent_types=frozenset()):
        super().__init__(file)
        self.checks, self.globals = _known()
        self.data_classes = frozenset(t for t in sent_types if is_data_class(t))

    def find_class(self, module, name):
        if (module, name) in self.globals:
            return self.globals[(module, name)]
        torch = sys.modules.get("torch")
        if module == "torch" and torch is not None and isinstance(getattr(torch, name, None), torch.dtype):
            return getattr(torch, name)
        numpy = sys.modules.get("numpy")
        if module == "numpy" and name == "ndarray" and numpy is not None:
            return numpy.ndarray
        if module.startswith(CLASS_PACKAGES[:-1]) and module not in sys.modules:
            __import__(module)  # our own package: importing it runs no learner code
        found = getattr(sys.modules.get(module), name, None) if module in sys.modules else None
        if is_data_class(found) and (found in self.data_classes or module.startswith(CLASS_PACKAGES)):
            return found
        raise pickle.UnpicklingError(f"a reply may not hold {module}.{name}")

    def load_reduce(self):
        args = self.stack.pop()
        function = self.stack[-1]
        check = self.checks.get(function) if _hashable(function) else None
        if check is None or type(args) is not tuple:
            raise pickle.UnpicklingError(f"a reply may not call {_name(function)}")
        try:
            allowed = check(*args)
        except (TypeError, ValueError, OverflowError):
            allowed = False
        if not allowed:
            raise pickle.UnpicklingError(f"a reply called {_name(function)} with arguments it may not have")
        self.stack[-1] = function(*args)

    def load_newobj(self):
        args = self.stack.pop()
        cls = self.stack.pop()
        self.append(self._new(cls, args, {}))

    def load_newobj_ex(self):
        kwargs = self.stack.pop()
        args = self.stack.pop()
        cls = self.stack.pop()
        self.append(self._new(cls, args, kwargs))

    def _new(self, cls, args, kwargs):
        if not is_data_class(cls) or kwargs or type(args) is not tuple:
            raise pickle.UnpicklingError(f"a reply may not build {_name(cls)} that way")
        if args and not issubclass(cls, tuple):
            raise pickle.UnpicklingError(f"a reply may not build {_name(cls)} from arguments")
        return cls.__new__(cls, *args)

    def load_build(self):
        state = self.stack[-1]
        target = self.stack[-2]
        if isinstance(target, (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)):
            raise pickle.UnpicklingError("a reply may not set attributes of a class, a module or a function")
        for part in state if type(state) is tuple else (state,):
            if type(part) is dict and any(type(k) is not str or k.startswith("__") for k in part):
                raise pickle.UnpicklingError("a reply may not set an attribute whose name starts with '__'")
        super().load_build()

    def refuse(self):
        raise pickle.UnpicklingError("a reply may not call a class (protocol 0 and 1 opcodes)")

    dispatch[pickle.REDUCE[0]] = load_reduce
    dispatch[pickle.NEWOBJ[0]] = load_newobj
    dispatch[pickle.NEWOBJ_EX[0]] = load_newobj_ex
    dispatch[pickle.BUILD[0]] = load_build
    dispatch[pickle.INST[0]] = refuse
    dispatch[pickle.OBJ[0]] = refuse


def is_data_class(kind) -> bool:
    """A class whose objects hold state only: not a metaclass, an exception, or a function's type."""
    return (isinstance(kind, type) and type(kind) is type and not issubclass(kind, (type, BaseException))
            and kind not in (types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.ModuleType,
                             types.CodeType, object))


def _hashable(value) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _name(value) -> str:
    return f"{getattr(value, '__module__', '?')}.{getattr(value, '__qualname__', type(value).__name__)}"


def loads_reply(data: bytes, sent_types=frozenset()):
    return ReplyUnpickler(io.BytesIO(data), sent_types).load()
