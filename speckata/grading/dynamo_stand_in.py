"""torch.optim in a grading process, without the import of torch._dynamo it does not need.

An optimizer's constructor (``add_param_group``, wrapped by ``torch._disable_dynamo``) and its
``step`` (``torch._dynamo.graph_break()``) import ``torch._dynamo``: about as long as importing
torch itself, paid by the first ``torch.optim.Adam(...)`` of every check of exercise 11, for two
calls that do nothing outside ``torch.compile``. While grading, ``torch._dynamo`` is a stand-in that
answers exactly those two calls as the real module does when nothing is being compiled, and imports
the real module the moment anything else of it is asked for (an attribute, a submodule,
``torch.compile``); from then on both calls go to the real module.

Installed by the grader once torch is imported (learner_code.load_module), never in a notebook or a
learner's own script. A process that imported the real module already keeps it.
"""

from __future__ import annotations

import functools
import importlib
import sys
import types

NAME = "torch._dynamo"


class DynamoStandIn(types.ModuleType):
    """``torch._dynamo`` until something other than ``disable`` or ``graph_break`` is asked of it."""

    def __getattr__(self, attribute: str):
        return getattr(real_module(), attribute)


def real_module() -> types.ModuleType:
    """The real torch._dynamo, imported now if the stand-in was all there was."""
    module = sys.modules.get(NAME)
    if isinstance(module, DynamoStandIn):
        del sys.modules[NAME]
        vars(sys.modules["torch"]).pop("_dynamo", None)
        module = importlib.import_module(NAME)
    return module


def imported_real_module() -> types.ModuleType | None:
    module = sys.modules.get(NAME)
    return None if module is None or isinstance(module, DynamoStandIn) else module


def disable(fn=None, recursive=True, **options):
    """``torch._dynamo.disable``: outside compilation a disabled function is the function itself."""
    if fn is None:
        return functools.partial(disable, recursive=recursive, **options)

    @functools.wraps(fn)
    def run(*args, **kwargs):
        real = imported_real_module()
        if real is None:
            return fn(*args, **kwargs)
        return real.disable(fn, recursive, **options)(*args, **kwargs)

    return run


def graph_break(*args, **kwargs) -> None:
    """``torch._dynamo.graph_break``: outside compilation it does nothing."""
    real = imported_real_module()
    if real is not None:
        real.graph_break(*args, **kwargs)


def install() -> None:
    """Put the stand-in in place, once, if torch is imported and torch._dynamo is not."""
    torch = sys.modules.get("torch")
    if torch is None or NAME in sys.modules:
        return
    stand_in = DynamoStandIn(NAME, __doc__)
    stand_in.disable = disable
    stand_in.graph_break = graph_break
    sys.modules[NAME] = stand_in
    torch._dynamo = stand_in
