"""Benchmarks, run as scripts (never as timed tests): ``python -m speckata.bench NAME``.

Each benchmark is a module ``speckata/bench/<name>.py`` with a ``main(argv) -> int``.
"""
