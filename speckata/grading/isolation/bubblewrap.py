"""The operating system's boundary around a learner worker: a bubblewrap sandbox.

Why bubblewrap (``bwrap``): it is the sandbox Flatpak runs every application in, packaged by every
major distribution (Debian's ``bubblewrap``), a single small setuid-free program that builds the
sandbox from Linux namespaces and exits with its child, with no daemon and no configuration
files. firejail does the same with profiles and a setuid binary (a larger attack surface, and its
defaults vary by profile); a container runtime needs a daemon. Each worker runs as

    bwrap --unshare-all --die-with-parent --as-pid-1 --new-session --cap-drop ALL --seccomp FD
          --info-fd FD ... python -I -c BOOTSTRAP CONFIG

- its own user, PID, mount, IPC, network, UTS and cgroup namespaces: it sees only its own
  processes in a fresh ``/proc`` (not the grader's command line, environment or memory), has no
  network. The worker is the namespace's PID 1 (``--as-pid-1``: no init of bubblewrap's beside it
  whose parent-death signal learner code could clear through ptrace), so killing it ends the whole
  namespace: the grader learns its pid from ``--info-fd`` and kills it through a pidfd
  (connection.py), and ``--die-with-parent`` kills it when the grader dies first (the filter
  refuses the prctl that would clear that signal);
- bubblewrap itself starts with an empty environment (nothing of the grader's can be read back);
- a file system built from nothing: the system's ``/usr`` (and the ``/lib``, ``/bin`` links),
  the dynamic loader's cache, the Python runtime and the virtual environment, and the ``speckata``
  package, all read-only; an empty ``exercises/`` where the package looks for its checkout; a
  read-only ``/dev`` of device nodes; a ``/tmp`` of at most TMP_BYTES; and the learner's folder
  as a tmpfs of at most COPY_BYTES at the copy's path, filled by the worker from a read-only view
  of the copy (GIVEN) before any learner code runs. ``solutions/``, ``tests/``, ``.git``, the
  rest of the repository and the grader's output are not there at all;
- a seccomp filter that allows threads but no new process, and no ptrace, no reading or writing
  another process's memory, no new namespaces (no_new_processes.py);
- a clean environment inside (PATH, HOME=/tmp, the thread-count variables).

``sandbox_problem()`` says why a sandbox cannot start here (None when it can): `kata grade`
refuses to grade without one unless the instructor accepts the weaker in-process guard.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

INSTALL_HINT = ("install bubblewrap (Debian, Ubuntu: sudo apt-get install bubblewrap; Fedora: sudo dnf install "
                "bubblewrap; Arch: sudo pacman -S bubblewrap)")
SYSTEM_FOLDERS = ("/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin")
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime")
PASSED_ENVIRONMENT = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "LANG", "LC_ALL")
TMP_BYTES = 64 * 1024 * 1024  # the sandbox's /tmp (a tmpfs is memory outside the worker's own limit)
COPY_BYTES = 64 * 1024 * 1024  # the learner's writable folder, its given files included
GIVEN = "/speckata-given"  # where the copy of the graded folder is seen, read-only, inside


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


def system_mounts() -> list[str]:
    arguments: list[str] = []
    for folder in SYSTEM_FOLDERS:
        if os.path.islink(folder):
            arguments += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            arguments += ["--ro-bind", folder, folder]
    for path in SYSTEM_FILES:
        if os.path.exists(path):
            arguments += ["--ro-bind", path, path]
    return arguments


def python_mounts(repo_root: Path) -> list[str]:
    """The interpreter, its standard library, the virtual environment, and this package: read-only."""
    folders = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix),
               os.path.realpath(Path(__file__).resolve().parents[2])}  # .../speckata
    arguments: list[str] = []
    for folder in sorted(folders):
        arguments += ["--ro-bind", folder, folder]
    if sys.prefix != os.path.realpath(sys.prefix):  # a venv reached through a link: keep the path it is known by
        arguments += ["--ro-bind", os.path.realpath(sys.prefix), sys.prefix]
    arguments += ["--dir", str(Path(os.path.realpath(repo_root)) / "exercises")]  # where repo_root() looks
    return arguments


def environment() -> list[str]:
    arguments = ["--clearenv", "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "HOME", "/tmp",
                 "--setenv", "TMPDIR", "/tmp"]
    for name in PASSED_ENVIRONMENT:
        if name in os.environ:
            arguments += ["--setenv", name, os.environ[name]]
    return arguments


def bwrap_environment() -> dict[str, str]:
    """What bubblewrap itself starts with: nothing of the grader's (secrets, the seed's file)."""
    return {"PATH": "/usr/bin:/bin"}


def sandbox_command(command: list[str], writable: Path, repo_root: Path, filter_fd: int | None,
                    info_fd: int | None = None) -> list[str]:
    """``command`` run inside a sandbox whose only writable folders are ``/tmp`` and a sized tmpfs at
    ``writable``'s path (its working folder), with ``writable`` itself seen read-only at GIVEN."""
    bwrap = bwrap_path()
    if bwrap is None:
        raise RuntimeError(f"speckata: bubblewrap (bwrap) is not installed: {INSTALL_HINT}")
    writable = os.path.realpath(writable)
    arguments = [bwrap, "--unshare-all", "--die-with-parent", "--as-pid-1", "--new-session", "--cap-drop", "ALL",
                 "--hostname", "speckata-sandbox", "--proc", "/proc", "--dev", "/dev", "--remount-ro", "/dev",
                 "--size", str(TMP_BYTES), "--tmpfs", "/tmp", *system_mounts(), *python_mounts(repo_root),
                 "--ro-bind", writable, GIVEN, "--size", str(COPY_BYTES), "--tmpfs", writable, "--chdir", writable,
                 *environment()]
    if info_fd is not None:
        arguments += ["--info-fd", str(info_fd)]
    if filter_fd is not None:
        arguments += ["--seccomp", str(filter_fd)]
    return [*arguments, *command]


def filter_file():
    """An open, rewound file holding the seccomp program (None where the machine has no filter here)."""
    from speckata.grading.isolation.no_new_processes import filter_program

    program = filter_program()
    if program is None:
        return None
    handle = tempfile.TemporaryFile()  # noqa: SIM115 - handed to the sandbox, closed by the caller
    handle.write(program)
    handle.seek(0)
    return handle


@functools.cache
def sandbox_problem() -> str | None:
    """Why a sandbox cannot start on this machine, or None when one can (tried once per process)."""
    if bwrap_path() is None:
        return f"bubblewrap (bwrap) is not installed: {INSTALL_HINT}"
    with tempfile.TemporaryDirectory(prefix="speckata-sandbox-probe-") as folder:
        program = filter_file()
        fds = (program.fileno(),) if program is not None else ()
        # With the filter, Python must start inside and the fork be refused; without one, just start.
        code = "import os; os.fork()" if program is not None else "pass"
        try:
            probe = subprocess.run(
                sandbox_command([sys.executable, "-I", "-c", code], Path(folder), _repo_root(), fds[0] if fds else None),
                pass_fds=fds, capture_output=True, text=True, timeout=60, check=False, env=bwrap_environment())
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"bubblewrap could not start a sandbox: {error}"
        finally:
            if program is not None:
                program.close()
    refused_fork = probe.returncode == 1 and "PermissionError" in probe.stderr
    if refused_fork if program is not None else probe.returncode == 0:
        return None
    said = probe.stderr.strip().splitlines()[-1:] or [f"exit code {probe.returncode}"]
    return (f"bubblewrap could not start a sandbox here ({said[0]}); it needs unprivileged user namespaces "
            "(sysctl kernel.unprivileged_userns_clone=1, or user.max_user_namespaces above 0)")


def _repo_root() -> Path:
    from speckata.manifest import repo_root

    return repo_root()
