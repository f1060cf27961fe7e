"""Draw speckata's house: which package imports which, the layers, and any import circle.

    python scripts/import_map.py          # from the repository root

Reads every module under speckata/ with ``ast`` (nothing is imported or run), follows each
``import`` and ``from ... import`` that names a speckata module (lazy ones inside functions too),
and prints one line per package with the packages it imports, an edge that runs up the layers
below (there should be none), and the circles among modules (Tarjan's strongly connected
components; there should be none). ``from pkg import sub`` counts as an import of ``pkg.sub``
only, not of the package's ``__init__``, when ``sub`` is a module.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

# Lowest first: a package may import its own layer and those below, never one above.
LAYERS = [
    ("given helpers", ["speckata", "speckata.moved", "speckata.token_ids", "speckata.tolerance", "speckata.replay",
                       "speckata.sampling", "speckata.validation", "speckata.torch_sampling",
                       "speckata.torch_validation", "speckata.manifest", "speckata.roofline",
                       "speckata.measured_costs"]),
    ("input checks", ["speckata.checks"]),
    ("draws, results, shapes", ["speckata.decoding"]),
    ("models", ["speckata.models"]),
    ("heads", ["speckata.heads"]),
    ("real models", ["speckata.real"]),
    ("benches, grader", ["speckata.bench", "speckata.grading"]),
    ("kata command, site", ["speckata.cli", "speckata.docs"]),
]
LAYER_OF = {package: level for level, (_, packages) in enumerate(LAYERS) for package in packages}


def module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path, name: str, modules: dict) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                here = here[: len(here) - (node.level - 1)]
                base = ".".join(here + ([node.module] if node.module else []))
            found += [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
    return found


def package_of(module: str) -> str:
    return ".".join(module.split(".")[:2])


def circles(edges: dict) -> list[list[str]]:
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for v in list(edges):
        if v not in index:
            visit(v)
    return found


def main(root: Path = Path(".")) -> int:
    modules = {module_name(root, p): p for p in sorted((root / "speckata").rglob("*.py"))}
    edges = defaultdict(set)
    for name, path in modules.items():
        for target in imported(path, name, modules):
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target.startswith("speckata") and target != name:
                edges[name].add(target)
    packages = defaultdict(set)
    upward = []
    for a, targets in edges.items():
        for b in targets:
            pa, pb = package_of(a), package_of(b)
            if pa != pb:
                packages[pa].add(pb)
                if LAYER_OF.get(pa, 0) < LAYER_OF.get(pb, 0):
                    upward.append(f"{a} -> {b}")
    for level, (title, members) in reversed(list(enumerate(LAYERS))):
        for package in members:
            if package in packages:
                print(f"[{level} {title}] {package:24} -> {', '.join(sorted(packages[package]))}")
    print("imports up the layers:", ", ".join(sorted(upward)) or "none")
    print("module import circles:", circles(edges) or "none")
    unplaced = sorted({package_of(m) for m in modules} - set(LAYER_OF))
    print("packages in no layer:", ", ".join(unplaced) or "none")
    return 1 if upward or circles(edges) or unplaced else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(".")))
