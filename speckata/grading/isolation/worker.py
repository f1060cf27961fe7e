"""The learner worker: a process that imports the learner's modules and runs the grader's calls.

Started by connection.py as ``python -I -c BOOTSTRAP CONFIG`` in a temporary copy of the graded
folder. It locks itself down first (sandbox.py), then serves requests one at a time:

- ``("lookup", exercise, name)``: import the exercise's module and check the function exists;
  the reply is ``("ok",)`` or the GradingFailure message the in-process grader would give;
- ``("call", exercise, name, args, kwargs, torch_sync, modes)``: call it (under the grader's
  TorchFunctionModes, if any); the reply carries the result (or the exception, described) and the
  arguments and modes as they are after the call;
- ``("backward", handle, grad_output)``: the gradients of a returned tensor (autograd_bridge.py).

Every path in a message names the learner's folder as the grader shows it, not the copy.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pickle
import sys
import types
from pathlib import Path

from speckata.grading.isolation import sandbox, shipped_classes, wire
from speckata.grading.isolation.autograd_bridge import grad_leaves
from speckata.grading.parent_death import die_with_parent

# Classes the grader can load back (reply_unpickler.py); values of other classes are converted.
LOADABLE_ROOTS = {"builtins", "collections", "numpy", "torch", "speckata", "copyreg"}
OPAQUE = (types.FunctionType, types.MethodType, types.BuiltinFunctionType, types.ModuleType,
          types.GeneratorType, type)


class ReplyPickler(wire.WirePickler):
    """Pickles a reply: learner-defined values become plain ones the grader can read, and a tensor
    with a gradient graph is kept here under a handle."""

    worker: Worker

    def reducer_override(self, obj):
        kind = type(obj)
        if kind in shipped_classes.SHIPPED or (isinstance(obj, type) and obj in shipped_classes.SHIPPED):
            return super().reducer_override(obj)  # by name: the grader has the suite's own class
        if isinstance(obj, OPAQUE):  # by reference when the grader has it (a class of torch), else shown
            module = getattr(obj, "__module__", None) or ""
            if module.split(".")[0] in LOADABLE_ROOTS and not isinstance(obj, types.GeneratorType):
                return NotImplemented
            return wire.Foreign, (kind.__qualname__, short_repr(obj))
        if kind.__module__.split(".")[0] not in LOADABLE_ROOTS:
            return self.converted(obj, kind)
        return super().reducer_override(obj)

    def reduce_tensor(self, tensor):
        if tensor.grad_fn is None or not tensor.requires_grad:
            return super().reduce_tensor(tensor)
        raw, dtype, shape, device = wire.tensor_reduction(tensor)
        return wire.remote_grad_tensor, (self.worker.keep_graph(tensor), raw, dtype, shape, device)

    def converted(self, obj, kind):
        if isinstance(obj, tuple) and hasattr(kind, "_fields"):
            return wire.named_tuple, (kind.__name__, tuple(kind._fields), tuple(obj))
        for plain in (tuple, list, dict, set, int, float, str, bytes):
            if isinstance(obj, plain):
                return plain, (plain(obj),)
        return wire.Foreign, (kind.__qualname__, short_repr(obj))


def short_repr(obj) -> str:
    try:
        text = repr(obj)
    except Exception:  # noqa: BLE001 - a learner's object whose repr fails
        text = "<unprintable>"
    return text[:200]


class Worker:
    def __init__(self, copy: Path, shown: str):
        self.copy, self.shown = str(copy), shown
        self.graphs: dict[int, tuple] = {}  # handle -> (tensor, the argument leaves it may reach)
        self.leaves: list = []
        self.next_handle = 0

    def fix(self, text):
        return text.replace(self.copy, self.shown) if isinstance(text, str) else text

    def keep_graph(self, tensor) -> int:
        self.next_handle += 1
        self.graphs[self.next_handle] = (tensor, self.leaves)
        for old in [h for h in self.graphs if h <= self.next_handle - 8]:
            del self.graphs[old]
        return self.next_handle

    def describe(self, error: BaseException) -> dict:
        from speckata.grading.learner_lines import learner_line_of_error

        kind = type(error)
        base = next(c for c in kind.__mro__ if c.__module__ == "builtins")
        try:
            message = str(error)
        except Exception:  # noqa: BLE001 - a learner's exception whose str fails
            message = "<unprintable>"
        return {"module": kind.__module__, "name": kind.__qualname__, "base": base.__name__,
                "message": self.fix(message), "line": self.fix(learner_line_of_error(error)),
                "code": error.code if isinstance(error, SystemExit) else None}

    def function(self, exercise_id: str, name: str):
        from speckata.grading.learner_code import folder_function, load_module
        from speckata.grading.target import target_dir
        from speckata.manifest import exercise_by_id

        folder_function(exercise_id, name)  # the in-process checks and messages
        exercise = exercise_by_id(exercise_id)
        return getattr(load_module(exercise.module, target_dir() / exercise.file), name)

    def lookup(self, exercise_id: str, name: str):
        from speckata.grading.failures import GradingFailure

        try:
            self.function(exercise_id, name)
            return ("ok",)
        except GradingFailure as failure:
            return ("failure", self.fix(str(failure)), failure.detail)
        except BaseException as error:  # noqa: BLE001 - SystemExit at import time, say
            return ("raised", self.describe(error))

    def call(self, exercise_id, name, args, kwargs, torch_sync, modes):
        before = apply_torch_sync(torch_sync)
        self.leaves = grad_leaves(args, kwargs) if "torch" in sys.modules else []
        try:
            function = self.function(exercise_id, name)
            with contextlib.ExitStack() as active:
                for mode in modes:  # the grader's TorchFunctionModes (a cost counter) see this call
                    active.enter_context(mode)
                result = function(*args, **kwargs)
            reply = ["returned", result]
        except BaseException as error:  # noqa: BLE001 - every way out of learner code is reported
            reply = ["raised", self.describe(error)]
        return (*reply, args, kwargs, torch_state_after(torch_sync, before), modes)

    def backward(self, handle, grad_output):
        import torch

        tensor, leaves = self.graphs[handle]
        if not leaves:
            return ("grads", [])
        grads = torch.autograd.grad([tensor], leaves, [grad_output], allow_unused=True, retain_graph=True)
        return ("grads", list(grads))

    def handle(self, request):
        op = request[0]
        if op == "lookup":
            return self.lookup(*request[1:])
        if op == "call":
            return self.call(*request[1:])
        if op == "backward":
            return self.backward(*request[1:])
        return ("broken", f"unknown request {op!r}")

    def pack(self, reply) -> bytes:
        try:
            return self.dumps(reply)
        except Exception as error:  # noqa: BLE001 - a value that cannot travel: say what it was
            if reply[0] != "returned":
                return self.dumps((reply[0], reply[1], None, None, reply[4], None))
            shown = wire.Foreign(type(reply[1]).__qualname__, f"{short_repr(reply[1])} ({error})")
            return self.dumps(("returned", shown, None, None, reply[4], None))

    def dumps(self, reply) -> bytes:
        buffer = io.BytesIO()
        pickler = ReplyPickler(buffer)
        pickler.worker = self
        pickler.dump(reply)
        return buffer.getvalue()


def apply_torch_sync(torch_sync) -> bytes | None:
    """Take the grader's global torch state: its generator, threads, grad mode (torch exercises only)."""
    if torch_sync is None:
        return None
    import torch

    state, threads, grad_enabled = torch_sync
    if state is not None:
        torch.set_rng_state(torch.frombuffer(bytearray(state), dtype=torch.uint8))
    if threads != torch.get_num_threads():
        torch.set_num_threads(threads)
    torch.set_grad_enabled(grad_enabled)
    return torch.get_rng_state().numpy().tobytes()


def torch_state_after(torch_sync, before: bytes | None) -> bytes | None:
    if torch_sync is None:
        return None
    after = sys.modules["torch"].get_rng_state().numpy().tobytes()
    return after if after != before else None


def fill_from_given(given: str | None, copy: Path) -> None:
    """In a sandbox: the learner's folder is an empty sized tmpfs; copy the given files into it (only
    regular files and folders: the grader's copy holds nothing else)."""
    if given:
        import shutil

        shutil.copytree(given, copy, dirs_exist_ok=True)


def serve(config: dict) -> None:
    fill_from_given(config.get("given"), Path(config["copy"]))
    die_with_parent(config["parent"])
    sandbox.limit_resources(config["memory_mb"])
    repo = Path(config["repo_root"])
    sandbox.remove_repository_from_path(repo)
    sandbox.refuse_repository(repo, [repo / "speckata", Path(sys.prefix)])
    from speckata.grading.learner_code import install_finder
    from speckata.grading.target import set_target

    copy = Path(config["copy"])
    set_target(copy)
    install_finder()
    worker = Worker(copy, config["shown"])
    reader = open(config["requests_fd"], "rb", buffering=1 << 16)  # noqa: SIM115 - for the worker's life
    replies = config["replies_fd"]
    while True:
        data = wire.receive(reader)
        if data is None:
            os._exit(0)
        try:
            reply = worker.handle(pickle.loads(data))
        except Exception as error:  # noqa: BLE001 - the grader sent something this side cannot read
            reply = ("broken", f"{type(error).__name__}: {error}")
        sys.stdout.flush()
        sys.stderr.flush()
        wire.send(replies, worker.pack(reply))


if __name__ == "__main__":  # pragma: no cover - run through connection.BOOTSTRAP
    serve(json.loads(sys.argv[1]))
