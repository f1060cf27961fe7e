"""Classes a grading suite defines and hands to the learner's code, sent to the worker as source.

A suite may wrap a model in a class of its own (exercise 19's BudgetedRecording, exercise 11's
FixedLogits). The worker cannot import the suite (nothing under tests/ is importable there), so
the grader sends the class's source with the suite's imports that do not come from tests/, and
the worker rebuilds it under the same module name, in a module of its own holding only such
classes. Only classes of the suites themselves (``tests.test_*``) travel this way, and whole
modules listed in SHIPPED_MODULES, measuring helpers that hold no reference code (exercise 08's
cost counter, a TorchFunctionMode the grader wants active while the learner's code runs): nothing
else of tests/reference, whose code is the answer, ever reaches the worker.
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
import types

SUITE_MODULE = re.compile(r"tests\.test_\w+")
SHIPPED_MODULES = ("tests.reference.ex08_cost",)

_reductions: dict[type, tuple] = {}
SHIPPED: set[type] = set()  # in the worker: the classes rebuilt here (the reply pickler sends them back by name)
_rebuilt: dict[tuple, type] = {}


def is_suite_class(obj) -> bool:
    module = getattr(obj, "__module__", "") or "" if isinstance(obj, type) else ""
    return bool(SUITE_MODULE.fullmatch(module)) or module in SHIPPED_MODULES


def suite_imports(module) -> list[str]:
    """The suite's top-level import statements that do not import from tests/."""
    tree = ast.parse(inspect.getsource(module))
    kept = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            continue
        if not any(name.split(".")[0] == "tests" for name in names) and not getattr(node, "level", 0):
            kept.append(ast.unparse(node))
    return kept


def reduction(cls: type) -> tuple:
    """How the grader pickles a suite's class: rebuilt from its source in the worker."""
    if cls not in _reductions and cls.__module__ in SHIPPED_MODULES:
        source = inspect.getsource(sys.modules[cls.__module__])
        _reductions[cls] = (class_from_module, (cls.__module__, cls.__qualname__, source))
    if cls not in _reductions:
        module = sys.modules[cls.__module__]
        _reductions[cls] = (class_from_source, (cls.__module__, cls.__qualname__, inspect.getsource(cls),
                                                 tuple(suite_imports(module))))
    return _reductions[cls]


def class_from_source(module_name: str, qualname: str, source: str, imports: tuple) -> type:
    """In the worker: the suite's class, built once per source."""
    key = (module_name, qualname, source)
    if key not in _rebuilt:
        namespace = {"__name__": module_name}
        for statement in imports:
            try:
                exec(statement, namespace)  # noqa: S102 - the suite's own import lines, sent by the grader
            except ImportError:
                pass
        exec(compile(source, f"<{module_name}.{qualname}>", "exec"), namespace)  # noqa: S102 - the grader's class
        cls = namespace[qualname]
        setattr(holder_module(module_name), qualname, cls)
        SHIPPED.add(cls)
        _rebuilt[key] = cls
    return _rebuilt[key]


def holder_module(module_name: str) -> types.ModuleType:
    """A module of its own under the suite's name (and empty parents), so that pickle finds a rebuilt
    class by name when the reply goes back; tests/ itself stays unimportable."""
    parts = module_name.split(".")
    for end in range(1, len(parts)):
        sys.modules.setdefault(".".join(parts[:end]), types.ModuleType(".".join(parts[:end])))
    return sys.modules.setdefault(module_name, types.ModuleType(module_name))


def class_from_module(module_name: str, qualname: str, source: str) -> type:
    """In the worker: a class of a module in SHIPPED_MODULES, the whole module run once."""
    key = (module_name, "", source)
    if key not in _rebuilt:
        module = holder_module(module_name)
        exec(compile(source, f"<{module_name}>", "exec"), module.__dict__)  # noqa: S102 - the grader's module
        SHIPPED.update(v for v in vars(module).values() if isinstance(v, type) and v.__module__ == module_name)
        _rebuilt[key] = module
    return getattr(_rebuilt[key], qualname)
