"""The grader's side of one learner worker: start it, ask it, and know what its death means.

One worker serves a whole grading session (one pytest process) through a pair of pipes, inside a
bubblewrap sandbox (bubblewrap.py) unless the session was started without one; its
output (what the learner's code prints) goes to a file the grader reads after each reply and
prints into the test's captured output. A worker that dies (os._exit, a crash, the memory limit)
or is killed (a call past the test's time limit) is replaced by a fresh one at the next call.

A sandboxed worker is its PID namespace's PID 1: bubblewrap reports its pid on an info pipe, the
grader holds a pidfd to it and kills it through that pidfd, which ends every process and thread
of the sandbox at once, whatever the learner's code did to itself. Each sandbox's PID 1 (its pid
and start time) is also appended to ``SANDBOX_LOG`` (when `kata grade` sets it), so `kata grade`
can check after each folder that nothing of it is left.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from speckata.grading.failures import GradingFailure
from speckata.grading.isolation import bubblewrap, wire
from speckata.grading.isolation.leftovers import start_time

OUTPUT_SHOWN = 64 * 1024  # what one call's printing may add to the test's captured output
SANDBOX_LOG = "SPECKATA_SANDBOX_LOG"  # environment variable: a file to append each sandbox's PID namespace to

# The worker's command: the grader's side names worker.py's entry point but never imports it.
BOOTSTRAP = "import json, sys; from speckata.grading.isolation.worker import serve; serve(json.loads(sys.argv[1]))"


class WorkerDied(GradingFailure):
    """The worker ended while the learner's code ran: a failure, never a pass."""


def death_message(status: int | None, sandboxed: bool = False) -> str:
    if status is None:
        return "the process running your code stopped answering"
    if sandboxed and status > 128 and status - 128 in signal.Signals._value2member_map_:
        status = 128 - status  # bubblewrap exits 128 + N when the worker inside was ended by signal N
    if status < 0:
        name = signal.Signals(-status).name if -status in signal.Signals._value2member_map_ else str(-status)
        why = {"SIGSEGV": "a crash", "SIGXFSZ": "it printed more than 64 MB", "SIGKILL": "killed",
               "SIGABRT": "an abort"}.get(name, "a signal")
        return f"the process running your code was ended by {name} ({why})"
    return (f"the process running your code ended with exit code {status} (os._exit? sys.exit in a "
            "thread?): your function must return to the grader")


class WorkerConnection:
    def __init__(self, copy: Path, shown: str, repo_root: Path, memory_mb: int, scratch: Path, sandboxed: bool):
        self.copy, self.shown, self.repo_root, self.memory_mb = copy, shown, repo_root, memory_mb
        self.sandboxed = sandboxed  # in a bubblewrap sandbox (bubblewrap.py), else only the worker's own guard
        self.output_path = scratch / "worker-output.txt"
        self.process: subprocess.Popen | None = None
        self.generation = 0  # how many workers were started: a fresh one has loaded nothing
        self.sandbox_pidfd: int | None = None  # the sandbox's PID 1 (sandboxed workers only)
        self.output_offset = 0

    def start(self) -> None:
        requests_read, requests_write = os.pipe()
        replies_read, replies_write = os.pipe()
        config = {"parent": None if self.sandboxed else os.getpid(), "memory_mb": self.memory_mb,
                  "repo_root": str(self.repo_root), "copy": str(self.copy), "shown": self.shown,
                  "requests_fd": requests_read, "replies_fd": replies_write}
        if self.sandboxed:
            config["given"] = bubblewrap.GIVEN
        command = [sys.executable, "-I", "-c", BOOTSTRAP, json.dumps(config)]
        output = open(self.output_path, "ab")  # noqa: SIM115 - the worker keeps it; closed here once started
        self.output_offset = output.tell()
        program = bubblewrap.filter_file() if self.sandboxed else None
        info_read, info_write = os.pipe() if self.sandboxed else (None, None)
        fds = (requests_read, replies_write, *([program.fileno()] if program is not None else []),
               *([info_write] if info_write is not None else []))
        environment = None
        if self.sandboxed:
            command = bubblewrap.sandbox_command(command, self.copy, self.repo_root,
                                                 program.fileno() if program is not None else None, info_write)
            environment = bubblewrap.bwrap_environment()
        try:
            self.process = subprocess.Popen(command, cwd=self.copy, stdin=subprocess.DEVNULL, stdout=output,
                                            stderr=output, pass_fds=fds, env=environment,
                                            preexec_fn=lift_grader_limit)
        finally:
            output.close()
            os.close(requests_read)
            os.close(replies_write)
            if info_write is not None:
                os.close(info_write)
            if program is not None:
                program.close()
        self.sandbox_pidfd = sandbox_pidfd(info_read) if info_read is not None else None
        self.requests = requests_write
        self.replies = open(replies_read, "rb", buffering=1 << 16)  # noqa: SIM115 - closed in close()
        self.generation += 1

    def request(self, data: bytes) -> bytes:
        """Send one request and wait for its reply; raises WorkerDied when the worker ends instead.

        Whatever interrupts the wait (the test's time limit raising LearnerStopped, Ctrl-C) kills
        the worker first: its state is unknown, the next call gets a fresh one.
        """
        if self.process is None or self.process.poll() is not None:
            self.close()
            self.start()
        try:
            wire.send(self.requests, data)
            reply = wire.receive(self.replies, wire.REPLY_LIMIT)
        except BrokenPipeError:
            reply = None
        except wire.ReplyTooLarge as error:
            self.kill()  # the rest of it is still in the pipe: this worker cannot be asked again
            raise GradingFailure(f"the reply was not data the grader accepts: your code's process announced a reply "
                                 f"of {error}; nothing of it was read") from None
        except BaseException:
            self.kill()
            raise
        finally:
            self.forward_output()
        if reply is None:
            status = self.wait_for_exit()
            self.close()
            raise WorkerDied(death_message(status, self.sandboxed))
        return reply

    def forward_output(self) -> None:
        """Print what the learner's code printed since the last reply (pytest captures it per test)."""
        try:
            with open(self.output_path, "rb") as output:
                output.seek(self.output_offset)
                text = output.read(OUTPUT_SHOWN)
                self.output_offset = output.seek(0, os.SEEK_END)
        except OSError:
            return
        if text:
            sys.stdout.write(text.decode(errors="replace"))

    def wait_for_exit(self) -> int | None:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return self.process.returncode
            time.sleep(0.01)
        self.kill()
        return None

    def kill(self) -> None:
        self.kill_sandbox()
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.close()

    def kill_sandbox(self) -> None:
        """SIGKILL to the sandbox's PID 1 through its pidfd: the kernel ends the whole namespace."""
        if self.sandbox_pidfd is None:
            return
        try:
            signal.pidfd_send_signal(self.sandbox_pidfd, signal.SIGKILL)
        except OSError:
            pass  # already gone
        os.close(self.sandbox_pidfd)
        self.sandbox_pidfd = None

    def close(self) -> None:
        if self.process is None:
            return
        for closing in (lambda: os.close(self.requests), self.replies.close):
            try:
                closing()
            except OSError:
                pass
        self.kill_sandbox()
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.process = None


def lift_grader_limit() -> None:
    """The worker sets its own memory limit (sandbox.py): the grader's own (kata grade's RLIMIT_DATA) is
    for the grader alone."""
    import resource

    hard = resource.getrlimit(resource.RLIMIT_DATA)[1]
    resource.setrlimit(resource.RLIMIT_DATA, (hard, hard))


def sandbox_pidfd(info_read: int) -> int | None:
    """A pidfd for the sandbox's PID 1, from bubblewrap's info pipe (None if bubblewrap wrote none);
    its PID namespace is appended to the SANDBOX_LOG file when one is named."""
    described = read_info(info_read)
    try:
        child = int(described["child-pid"])
        pidfd = os.pidfd_open(child)
    except (KeyError, TypeError, ValueError, OSError):
        return None
    log = os.environ.get(SANDBOX_LOG)
    started = start_time(child)
    if log and started is not None:
        with open(log, "a") as file:
            file.write(f"{child} {started}\n")
    return pidfd


def read_info(info_read: int, seconds: float = 30) -> dict:
    """The JSON object bubblewrap writes on its info pipe (an empty dict if none came in ``seconds``)."""
    import select

    text, deadline = b"", time.monotonic() + seconds
    try:
        while len(text) < 64 * 1024:
            ready, _, _ = select.select([info_read], [], [], max(deadline - time.monotonic(), 0))
            chunk = os.read(info_read, 4096) if ready else b""
            if not chunk:
                break
            text += chunk
            try:
                return json.loads(text)
            except ValueError:
                continue
    finally:
        os.close(info_read)
    return {}
