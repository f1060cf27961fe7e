"""Isolation sample (01-speculative-step): takes the reference solution instead of writing one.

Graded in-process this passed; under `kata grade` the worker cannot reach solutions/.
"""

import os
import sys

import speckata

sys.path.insert(0, os.path.dirname(os.path.dirname(speckata.__file__)))  # the repository root
from solutions.ex01_speculative_step import speculative_step  # noqa: E402,F401
