"""Isolation sample (01-speculative-step): executes the reference solution's file read as text."""

import os

import speckata

_root = os.path.dirname(os.path.dirname(speckata.__file__))
_namespace = {}
with open(os.path.join(_root, "solutions", "ex01_speculative_step.py")) as _file:
    exec(_file.read(), _namespace)
speculative_step = _namespace["speculative_step"]
