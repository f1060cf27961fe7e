"""Boundary probe (01-speculative-step): announces a 2 GiB reply on the worker's reply pipe.

The grader allocated what a reply's header claimed before reading it. This sample writes such a
header itself and then waits; the grader must refuse it by its size and say the reply was not data.
"""

import struct
import time



def reply_fd() -> int:
    """The worker's reply pipe, from its own command line (the config the grader started it with)."""
    import json
    import sys

    return json.loads(sys.argv[1])["replies_fd"]


def speculative_step(p, q, draft, rng) -> list[int]:
    import os

    os.write(reply_fd(), struct.pack("<Q", 2 * 1024**3))
    time.sleep(3600)
    return []
