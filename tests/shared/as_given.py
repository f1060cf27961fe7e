"""The inputs of a learner's call as they were before it: what a failure message describes.

The suites describe a call only when it fails (``call_learner(..., case=lambda: ...)``), because
formatting arrays for every passing call costs more than the calls. By then the learner's code
may have changed its inputs in place, so the description is built from copies taken before.
"""

from __future__ import annotations

import numpy as np


def as_given(values):
    """A float copy of ``values``, or ``values`` itself when it is not numeric."""
    try:
        return np.array(values, dtype=float)
    except (TypeError, ValueError):
        return values
