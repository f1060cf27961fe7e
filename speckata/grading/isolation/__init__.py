"""Isolated grading: the learner's code runs in a process apart from the grader's (`pytest --isolate`).

`kata grade` grades a class's folders this way; `kata check` and plain `pytest` stay in-process.
In this mode ``learner_function`` never imports the learner's module in the grader: it returns a
proxy (remote.py) that sends each call to a learner worker (worker.py), a subprocess started from
``python -I`` with a copy of the graded folder in a temporary directory, inside a bubblewrap
sandbox (bubblewrap.py, no_new_processes.py) unless ``--no-sandbox`` was given. The worker imports the
learner's module, runs the call and sends back the result together with the state of the
arguments after the call (draws counted on a ReplayRNG, a torch.Generator's state, a recorder's
calls), which the grader copies into its own objects (merge.py), or the exception with the
learner's line. The pieces:

- wire.py: framing and pickling, and the restricted unpickler that reads the worker's replies
  (only known constructors: a reply cannot run code in the grader);
- bubblewrap.py: the operating system's boundary: namespaces, a file system holding only what the
  worker needs (read-only) and the learner's copy, no network; no_new_processes.py: its seccomp
  filter (threads yes, processes no);
- sandbox.py: what the worker does to itself before any learner code runs (memory and file-size
  limits, dying with the grader, an audit hook refusing the repository's files and new processes:
  the only guard with ``--no-sandbox``);
- connection.py: the grader's side of one worker process (start, request, kill, what a death means);
- remote.py: the proxy function, exceptions rebuilt, the torch global state kept in step;
- autograd_bridge.py: a gradient through a tensor the learner's code returned (exercise 09).
"""

from __future__ import annotations

from speckata.grading.isolation.session import current, start, stop

__all__ = ["current", "start", "stop"]
