"""Work a session's tests wait on (the mutant gate's gradings, the notebooks' runs), done in one of two ways.

- A plain run starts all of it at once, in a pool of as many threads as there are CPUs; each test
  waits for its own result.
- A worker of `pytest -n` (CI's two processes) does each piece when its test asks for it: xdist
  shares the tests out between the workers, so work started for every collected test would be done
  once per worker; asked for one by one, each piece is done once, in the worker that runs its test.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor


class OnDemand(dict):
    """key -> a finished Future, made by calling the key's job the first time a test asks for it."""

    def __init__(self, jobs: dict, start: Callable[[], None] | None):
        super().__init__()
        self.jobs, self.start = jobs, start

    def __missing__(self, key) -> Future:
        if self.start is not None:  # what a pool thread's initializer would do, once, in this thread
            self.start, start = None, self.start
            start()
        function, args = self.jobs[key]
        done: Future = Future()
        try:
            done.set_result(function(*args))
        except Exception as error:  # the test that asked sees it, as it would from a pool's future
            done.set_exception(error)
        self[key] = done
        return done

    def close(self) -> None:
        """Nothing runs ahead of its test."""


class Prefetched(dict):
    """key -> the pool's Future for it; close() cancels what has not started."""

    def __init__(self, jobs: dict, initializer: Callable[[], None] | None):
        self.pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 1, initializer=initializer)
        super().__init__({key: self.pool.submit(function, *args) for key, (function, args) in jobs.items()})

    def close(self) -> None:
        self.pool.shutdown(cancel_futures=True)


def session_work(config, jobs: dict, *, pool_initializer=None, worker_start=None) -> dict:
    """``jobs``: key -> (function, args). A mapping key -> Future, prefetched or on demand (see above).
    ``config``: the session's pytest config; an xdist worker's carries ``workerinput`` (a pytest that
    a worker's test starts inherits the worker's environment, but not that)."""
    on_demand = hasattr(config, "workerinput")
    return OnDemand(jobs, worker_start) if on_demand else Prefetched(jobs, pool_initializer)
