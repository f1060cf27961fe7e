"""Boundary probe (01-speculative-step): a 60-byte forged reply that asks the grader for 2 GiB.

``bytearray(2**31)`` is a call of an allowed class with an int: unpickled by the grader, it
allocates 2 GiB there. The grader must refuse the call and say the reply was not data.
"""

import os
import pickle
import struct
import time



def reply_fd() -> int:
    """The worker's reply pipe, from its own command line (the config the grader started it with)."""
    import json
    import sys

    return json.loads(sys.argv[1])["replies_fd"]


class Huge:
    def __reduce__(self):
        return (bytearray, (2**31,))


def speculative_step(p, q, draft, rng) -> list[int]:
    forged = pickle.dumps(("returned", Huge(), None, None, None, None), protocol=5)
    os.write(reply_fd(), struct.pack("<Q", len(forged)) + forged)
    time.sleep(3600)
    return []
