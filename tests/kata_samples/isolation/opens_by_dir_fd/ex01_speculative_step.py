"""Isolation sample (01-speculative-step): opens the reference relative to a folder descriptor.

``os.open(path, dir_fd=fd)`` resolves ``path`` against the folder ``fd`` names, not the working
folder: the audit hook alone resolved it against the working folder and let it through.
"""

import os

import speckata

_root = os.open(os.path.dirname(os.path.dirname(speckata.__file__)), os.O_RDONLY)
_fd = os.open("solutions/ex01_speculative_step.py", os.O_RDONLY, dir_fd=_root)
_namespace = {}
exec(os.read(_fd, 1 << 20).decode(), _namespace)
speculative_step = _namespace["speculative_step"]
