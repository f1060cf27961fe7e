"""Isolation sample (01-speculative-step): reads the reference through the C library's open and read.

ctypes calls libc directly: no audit event, so an audit hook cannot refuse it.
"""

import ctypes
import os

import speckata

_libc = ctypes.CDLL(None, use_errno=True)
_path = os.path.join(os.path.dirname(os.path.dirname(speckata.__file__)), "solutions", "ex01_speculative_step.py")
_fd = _libc.open(_path.encode(), os.O_RDONLY)
if _fd < 0:
    raise OSError(ctypes.get_errno(), f"libc open refused {_path}")
_buffer = ctypes.create_string_buffer(1 << 20)
_size = _libc.read(_fd, _buffer, 1 << 20)
_namespace = {}
exec(_buffer.raw[:_size].decode(), _namespace)
speculative_step = _namespace["speculative_step"]
