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
import sys

from speckata.grading.failures import GradingFailure
from speckata.grading.isolation import autograd_bridge, wire
from speckata.grading.isolation.merge import changed_inputs_message, merge, merge_arguments, remap
from speckata.manifest import exercise_by_id

TORCH_TRACKS = ("torch", "end-to-end")  # exercises whose calls carry torch's global state both ways
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
            return wire.loads_reply(reply_data, frozenset(types) | sent_types)
        except (pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError, EOFError) as error:
            raise GradingFailure(f"your function sent back something the grader cannot read ({error})") from None

    def lookup(self, exercise_id: str, name: str) -> None:
        key = (exercise_id, name, self.connection.generation)
        if key not in self.known:
            self.known[key] = self.ask(("lookup", exercise_id, name))
        reply = self.known[key]
        if reply[0] == "failure":
            raise GradingFailure(reply[1], detail=reply[2])
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
            reply = wire.loads_reply(self.connection.request(data), frozenset(types))
        except (pickle.UnpicklingError, AttributeError, ImportError, TypeError, ValueError, EOFError) as error:
            raise GradingFailure(f"{name} sent back something the grader cannot read ({error})") from None
        finally:
            wire.remote_grad_hook = None
        if reply[0] == "broken":
            raise RuntimeError(f"speckata: the learner worker could not serve the grader: {reply[1]}")
        kind, value, args_after, kwargs_after, rng_after, modes_after = reply
        self.take_torch_state(rng_after)
        memo: dict = {}
        changed = []
        if args_after is not None:
            changed = merge_arguments([*args, *kwargs.values()], [*args_after, *kwargs_after.values()],
                                      [*range(1, len(args) + 1), *kwargs], memo)
        if modes_after is not None:
            merge(list(modes), list(modes_after), memo)  # what a cost counter saw (exercise 08)
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
