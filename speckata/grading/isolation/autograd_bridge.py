"""A gradient through a tensor the learner's code returned, although its graph lives in the worker.

Exercise 09 checks that ``distillation_loss(student, teacher).backward()`` reaches the student's
logits and not the teacher's. The worker keeps the returned tensor's graph under a handle; the
grader's copy is the output of :class:`RemoteBackward`, whose inputs are the grader's own argument
tensors that require grad (and the parameters of an argument that is a module). Its backward asks the worker for the gradients with respect to the
worker's copies of those arguments (None for one the graph does not reach, as with a detached
teacher), and autograd accumulates them into the grader's tensors.
"""

from __future__ import annotations

import sys

from speckata.grading.isolation import wire
from speckata.grading.isolation.reply_unpickler import loads_reply


def grad_leaves(args, kwargs) -> list:
    """The argument tensors that require grad, and the parameters of an argument that is a module
    (heads the grader trains through the learner's function), in the order the worker finds its
    copies (worker.py)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return []
    found = []
    for value in [*args, *kwargs.values()]:
        for item in (value if isinstance(value, (list, tuple)) else [value]):
            tensors = item.parameters() if isinstance(item, torch.nn.Module) else [item]
            # Not only leaves: a tensor an earlier call returned (bridged itself) carries the gradient on.
            found += [t for t in tensors if isinstance(t, torch.Tensor) and t.requires_grad]
    return found


def hook(connection, leaves: list):
    """What wire.remote_grad_tensor calls while a reply is read: the grader's bridged tensor."""

    def bridged(handle: int, value):
        if not leaves:
            return value.requires_grad_(True)
        return _function().apply(value, connection, handle, *leaves)

    return bridged


_class = None


def _function():
    """RemoteBackward, defined on first use so that the grader imports torch only when it needs it."""
    global _class
    if _class is None:
        import torch

        class RemoteBackward(torch.autograd.Function):
            @staticmethod
            def forward(ctx, value, connection, handle, *inputs):
                ctx.connection, ctx.handle = connection, handle
                return value.clone()

            @staticmethod
            def backward(ctx, grad_output):
                data, types = wire.dumps(("backward", ctx.handle, grad_output.detach()))
                reply = loads_reply(ctx.connection.request(data), frozenset(types))
                if reply[0] != "grads":
                    raise RuntimeError(f"speckata: the learner worker could not compute the gradient: {reply[1]}")
                return (None, None, None, *reply[1])

        _class = RemoteBackward
    return _class
