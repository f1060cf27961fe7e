"""Isolation sample (01-speculative-step): hard-links the reference into /tmp, then opens the link.

The link's path is outside the repository, so a guard that checks paths let the open through.
"""

import os
import tempfile

import speckata

_source = os.path.join(os.path.dirname(os.path.dirname(speckata.__file__)), "solutions", "ex01_speculative_step.py")
_link = os.path.join(tempfile.mkdtemp(), "borrowed.py")
os.link(_source, _link)
_namespace = {}
with open(_link) as _file:
    exec(_file.read(), _namespace)
speculative_step = _namespace["speculative_step"]
