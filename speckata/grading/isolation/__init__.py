"""Isolated grading: the learner's code runs in a process apart from the grader's (`pytest --isolate`).

`kata grade` grades a class's folders this way; `kata check` and plain `pytest` stay in-process.
In this mode ``learner_function`` never imports the learner's module in the grader: the session
(session.py: ``start``, ``current``, ``stop``) hands it a proxy (remote.py) that sends each call to a learner worker (worker.py), a subprocess started from
``python -I`` with a copy of the graded folder in a temporary directory, inside a bubblewrap
sandbox (bubblewrap.py, no_new_processes.py) unless ``--no-sandbox`` was given. The worker imports the
learner's module, runs the call and sends back the result together with the state of the
arguments after the call (draws counted on a ReplayRNG, a torch.Generator's state, a recorder's
calls), which the grader copies into its own objects (merge.py), or the exception with the
learner's line. The pieces:

- wire.py: framing (a reply's size checked before it is read) and pickling; reply_unpickler.py:
  reading a reply as data only (checked constructors, no class built or written into); merge.py:
  the arguments' state copied back, its types checked;
- bubblewrap.py: the operating system's boundary: namespaces, a file system holding only what the
  worker needs (read-only) and the learner's copy, no network; no_new_processes.py: its seccomp
  filter (threads yes, processes no);
- sandbox.py: what the worker does to itself before any learner code runs (memory and file-size
  limits, dying with the grader, an audit hook refusing the repository's files and new processes:
  the only guard with ``--no-sandbox``);
- connection.py: the grader's side of one worker process (start, request, kill through a pidfd,
  what a death means); leftovers.py: `kata grade`'s check that no sandbox outlived its run;
  folder_copy.py: the bounded copy of the learner's folder;
- remote.py: the proxy function, exceptions rebuilt, the torch global state kept in step;
- autograd_bridge.py: a gradient through a tensor the learner's code returned (exercise 09).

This package's ``__init__`` imports nothing: the worker imports its modules without the grader's
session (session.py), and the grader imports the session without the worker.
"""
