"""The grader's proxy for a learner function that lives in the worker.

``RemoteLearner.function(exercise, name)`` checks once (per worker) that the function exists, with
the in-process grader's messages, and returns a plain function that sends each call to the worker,
copies the arguments' new state back (merge.py) and returns the result or raises the learner's
exception again, rebuilt so that call_learner and expect_value_error say what they say in-process:
the same type name and message, and the learner's line. NotImplementedError stays itself ("not
attempted"); sys.exit, pytest.skip and an exception the grader must never see raised
(KeyboardInterrupt, SystemExit) become a GradingFailure.
"""

from __future__ import annotations

import builtins
import pickle
import struct
import sys

from speckata.grading.failures import GradingFailure
from speckata.grading.isolation import autograd_bridge, wire
from speckata.grading.isolation.reply_unpickler import loads_reply
from speckata.grading.isolation.merge import ReplyNotData, changed_inputs_message, merge, merge_arguments, remap
from speckata.manifest import exercise_by_id

TORCH_TRACKS = ("torch", "end-to-end")  # exercises whose calls carry torch's global state both ways
READ_ERRORS = (pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError, EOFError, IndexError,
               KeyError, MemoryError, RecursionError, OverflowError, RuntimeError, struct.error)
_remote_types: dict[tuple, type] = {}


def remote_type(name: str, base_name: str) -> type:
    """An exception class named like the learner's, with its nearest built-in base (ValueError...)."""
    base = getattr(builtins, base_name, Exception)
    if not isinstance(base, type) or not issubclass(base, Exception):
        base = Exception
    key = (name, base)
    if key not in _remote_types:
        _remote_types[key] = type(name.rsplit(".", 1)[-1], (base,), {"__module__": "learner"})
    return _remote_types[key]


def rebuilt_error(description: dict, function_name: str) -> BaseException:
    module, name, message, line = (description[k] for k in ("module", "name", "message", "line"))
    at = f"\n  at {line}" if line else ""
    if name == "SystemExit" or description["base"] == "SystemExit":
        return GradingFailure(f"your code called sys.exit({description['code']!r}): the grader needs your "
                              f"function to return{at}")
    if module.startswith("_pytest") or module == "unittest.case":
        return GradingFailure(f"your code skipped this test ({name}: {message}); a skipped test is not a pass: "
                              f"only the grader decides what to skip{at}")
    if module == "speckata.grading.failures":
        return GradingFailure(message)
    if module == "speckata.replay" and name == "ReplayError":
        from speckata.replay import ReplayError

        error = ReplayError(message)
    elif module == "builtins" and isinstance(getattr(builtins, name, None), type) and name not in (
            "KeyboardInterrupt", "GeneratorExit", "BaseExceptionGroup"):
        try:
            error = getattr(builtins, name)(message)
        except Exception:  # noqa: BLE001 - a built-in needing other arguments (UnicodeDecodeError...)
            error = remote_type(name, "Exception")(message)
    else:
        try:
            error = remote_type(name, description["base"])(message)
        except Exception:  # noqa: BLE001 - a base needing other arguments
            error = remote_type(name, "Exception")(message)
    error.speckata_learner_line = line
    return error


def not_data_message(who: str, why) -> str:
    return (f"the reply was not data: {who} sent back something the grader does not accept ({why}); nothing of "
            "it was used. Return plain values (lists, ints, floats, arrays, tensors) and leave the arguments' "
            "state to the objects' own methods")


def call_reply_problem(reply, args: tuple, kwargs: dict, modes: list) -> str:
    """Why a call's reply is not shaped as the worker sends one ('' when it is)."""
    if type(reply) is not tuple or len(reply) != 6 or reply[0] not in ("returned", "raised"):
        return "not a call's reply"
    kind, value, args_after, kwargs_after, rng_after, modes_after = reply
    if kind == "raised" and not (type(value) is dict and all(type(value.get(k)) in (str, type(None)) for k in
                                                              ("module", "name", "base", "message", "line"))):
        return "an exception described wrongly"
    if args_after is not None and (type(args_after) is not tuple or len(args_after) != len(args)):
        return "the arguments after the call do not match the call"
    if kwargs_after is not None and (type(kwargs_after) is not dict or set(kwargs_after) != set(kwargs)):
        return "the keyword arguments after the call do not match the call"
    if rng_after is not None and type(rng_after) is not bytes:
        return "torch's generator state is not bytes"
    if modes_after is not None and (type(modes_after) is not list or len(modes_after) != len(modes)):
        return "the function modes after the call do not match the call"
    return ""


def function_modes() -> list:
    """The TorchFunctionModes active in the grader (exercise 08 counts operations with one): the worker
    runs the learner's call under copies of them, and their state comes back."""
    torch = sys.modules.get("torch")
    return list(torch.overrides._get_current_function_mode_stack()) if torch is not None else []


class RemoteLearner:
    def __init__(self, connection):
        self.connection = connection
        self.known: dict[tuple, tuple] = {}  # (exercise, name) -> the lookup's reply, per worker generation
        self.synced_rng: bytes | None = None  # torch's global state as both sides last agreed on it

    def ask(self, request: tuple, sent_types=frozenset()):
        data, types = wire.dumps(request)
        reply_data = self.connection.request(data)
        try:
            return loads_reply(reply_data, frozenset(types) | sent_types)
        except READ_ERRORS as error:
            self.connection.kill()  # what else it wrote is still in the pipe: a fresh worker next time
            raise GradingFailure(not_data_message("your code", error)) from None

    def lookup(self, exercise_id: str, name: str) -> None:
        key = (exercise_id, name, self.connection.generation)
        if key not in self.known:
            self.known[key] = self.ask(("lookup", exercise_id, name))
        reply = self.known[key]
        if type(reply) is not tuple or not reply or reply[0] not in ("ok", "failure", "raised", "broken") or (
                reply[0] != "ok" and len(reply) < 2):
            del self.known[key]
            raise GradingFailure(not_data_message("your code", "not a lookup's reply"))
        if reply[0] == "failure":
            detail = reply[2] if len(reply) > 2 and type(reply[2]) is dict else None
            raise GradingFailure(str(reply[1]), detail=detail)
        if reply[0] == "raised":
            raise GradingFailure(f"importing your file raised {reply[1]['name']}: {reply[1]['message']}")
        if reply[0] == "broken":
            raise RuntimeError(f"speckata: the learner worker could not serve the grader: {reply[1]}")

    def function(self, exercise_id: str, name: str):
        self.lookup(exercise_id, name)
        torch_track = exercise_by_id(exercise_id).track in TORCH_TRACKS

        def remote(*args, **kwargs):
            return self.call(exercise_id, name, torch_track, args, kwargs)

        remote.__name__ = remote.__qualname__ = name
        remote.__module__ = exercise_by_id(exercise_id).module
        return remote

    def call(self, exercise_id: str, name: str, torch_track: bool, args: tuple, kwargs: dict):
        modes = function_modes() if torch_track else []
        if not modes:
            return self.send_call(exercise_id, name, torch_track, args, kwargs, modes)
        with sys.modules["torch"]._C.DisableTorchFunction():  # the grader's own tensor work is not the learner's
            return self.send_call(exercise_id, name, torch_track, args, kwargs, modes)

    def send_call(self, exercise_id: str, name: str, torch_track: bool, args: tuple, kwargs: dict, modes: list):
        self.lookup(exercise_id, name)  # a fresh worker (after a crash) imports the module again
        sync = self.torch_sync() if torch_track else None
        data, types = wire.dumps(("call", exercise_id, name, args, kwargs, sync, modes))
        leaves = autograd_bridge.grad_leaves(args, kwargs)
        wire.remote_grad_hook = autograd_bridge.hook(self.connection, leaves)
        try:
            reply = loads_reply(self.connection.request(data), frozenset(types))
        except READ_ERRORS as error:
            self.connection.kill()  # what else it wrote is still in the pipe: a fresh worker next time
            raise GradingFailure(not_data_message(name, error)) from None
        finally:
            wire.remote_grad_hook = None
        if type(reply) is tuple and len(reply) == 2 and reply[0] == "broken":
            raise RuntimeError(f"speckata: the learner worker could not serve the grader: {reply[1]}")
        problem = call_reply_problem(reply, args, kwargs, modes)
        if problem:
            self.connection.kill()
            raise GradingFailure(not_data_message(name, problem))
        kind, value, args_after, kwargs_after, rng_after, modes_after = reply
        memo: dict = {}
        changed = []
        try:
            self.take_torch_state(rng_after)
            if args_after is not None:
                changed = merge_arguments([*args, *kwargs.values()], [*args_after, *kwargs_after.values()],
                                          [*range(1, len(args) + 1), *kwargs], memo)
            if modes_after is not None:
                merge(list(modes), list(modes_after), memo)  # what a cost counter saw (exercise 08)
        except (ReplyNotData, RuntimeError) as error:  # RuntimeError: torch refused a generator state
            self.connection.kill()
            raise GradingFailure(not_data_message(name, error)) from None
        if kind == "raised":
            raise rebuilt_error(value, name)
        if changed:
            raise GradingFailure(changed_inputs_message(name, changed))
        return remap(value, memo)

    def torch_sync(self):
        torch = sys.modules.get("torch")
        if torch is None:
            return None
        if self.connection.process is None or self.connection.process.poll() is not None:
            self.synced_rng = None  # a fresh worker starts from torch's default state: send ours
        state = torch.get_rng_state().numpy().tobytes()
        changed = state if state != self.synced_rng else None
        self.synced_rng = state
        return changed, torch.get_num_threads(), torch.is_grad_enabled()

    def take_torch_state(self, state: bytes | None) -> None:
        if state is not None:
            torch = sys.modules["torch"]
            torch.set_rng_state(torch.frombuffer(bytearray(state), dtype=torch.uint8))
            self.synced_rng = state
