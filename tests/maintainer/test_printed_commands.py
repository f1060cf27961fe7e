"""Every command a learner is shown works exactly as printed, after the documented set-up.

The documented set-up is `bash scripts/setup.sh` then `source .venv/bin/activate` (README, quick
start). The commands are extracted from the README (code blocks, `$ ` lines of sample sessions,
inline code that starts with a command), the exercise texts ("Check it with:" lines), the theory
pages, and what `kata` itself suggests (every command it prints is painted with the palette's
command colour, so with FORCE_COLOR=1 they are found by that colour). Each runs with .venv/bin
first on PATH, from the repository root. Short ones run for real; long ones (a whole suite, a
benchmark, a notebook build, a watch loop, a reset that writes) are checked to parse and to name
real paths, modules and flags: pytest with --collect-only, kata with its own argument parser.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from speckata.cli.arguments import build_parser
from speckata.cli.workspace import UsageProblem, find_exercise
from speckata.manifest import load_manifest, repo_root

ROOT = repo_root()
VENV_BIN = ROOT / ".venv" / "bin"
COMMAND_WORDS = ("kata", "pytest", "python", "bash", "source", ".venv/bin/kata", ".venv/bin/pytest")
CYAN = re.compile(r"\033\[36m(.*?)\033\[0m")
EXAMPLE_ID = "02-acceptance-rate"  # fills an ID placeholder: a quick suite
# Run for real (the rest parse): one exercise text's pair of commands, and the quick ones.
RUN_FOR_REAL = {"kata check 01-speculative-step", "pytest tests/test_01_speculative_step.py", f"kata check {EXAMPLE_ID}",
                "kata", "kata status", "kata list", f"kata hint {EXAMPLE_ID}", "kata solution 01-speculative-step --force"}

pytestmark = pytest.mark.skipif(not (VENV_BIN / "kata").exists(), reason="no .venv: run bash scripts/setup.sh first")


def environment(state_dir: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    env["SPECKATA_STATE_DIR"] = str(state_dir)  # progress of these runs never mixes with the learner's
    return env


def shell(command: str, env: dict, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", command], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=timeout)


def shown(run: subprocess.CompletedProcess) -> str:
    return f"exit {run.returncode}\n--- stdout\n{run.stdout[-3000:]}\n--- stderr\n{run.stderr[-3000:]}"


# Where commands are printed ------------------------------------------------------------------------

def is_command(text: str) -> bool:
    words = text.split()
    return bool(words) and words[0] in COMMAND_WORDS and "..." not in text and "<" not in text


def commands_in_markdown(text: str) -> list[str]:
    found = []
    for language, body in re.findall(r"^```(\w*)\n(.*?)^```", text, re.M | re.S):
        for line in body.splitlines():
            line = line.strip()
            if language in ("bash", "sh", "console"):
                line = re.sub(r"\s+#.*$", "", line)
            elif line.startswith("$ "):
                line = line[2:]
            else:
                continue
            if is_command(line):
                found.append(line)
    outside = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    found += [span for span in re.findall(r"`([^`\n]+)`", outside) if is_command(span)]
    return found


def commands_in_exercise_text(path: Path) -> list[str]:
    text = ast.get_docstring(ast.parse(path.read_text())) or ""
    line = next((line for line in text.splitlines() if line.startswith("Check it with:")), "")
    assert line, f"{path.name}: the exercise text has no 'Check it with:' line"
    first = line.removeprefix("Check it with:").split("(or:")[0].strip()
    alternatives = re.findall(r"\(or: ([^)]+)\)", line)
    return [first, *[a.strip() for a in alternatives]]


def commands_kata_prints(tmp_path: Path) -> list[str]:
    env = environment(tmp_path / "kata-state") | {"FORCE_COLOR": "1"}
    sessions = ["kata", "kata list", "kata hint 01", "kata solution 01", f"kata check {EXAMPLE_ID} --target solutions"]
    found = []
    for session in sessions:
        run = shell(session, env)
        assert run.returncode in (0, 1, 3), f"{session}\n" + shown(run)
        found += [re.sub(r"\033\[[0-9;]*m", "", match) for match in CYAN.findall(run.stdout)]
    return sorted(set(found))


def printed_commands(tmp_path: Path) -> dict[str, list[str]]:
    sources = {"README.md": commands_in_markdown((ROOT / "README.md").read_text())}
    for exercise in load_manifest():
        sources[f"exercises/{exercise.file}"] = commands_in_exercise_text(ROOT / "exercises" / exercise.file)
        sources[exercise.theory] = commands_in_markdown((ROOT / exercise.theory).read_text())
    sources["kata's output"] = commands_kata_prints(tmp_path)
    assert any("--force" in c for c in sources["kata's output"]), f"kata's suggestions not found: {sources}"
    return sources


# How each kind of command is checked -----------------------------------------------------------------

def fill_placeholders(command: str) -> str:
    command = command.replace("[ID]", EXAMPLE_ID).replace("[ARGS]", "")
    words = [{"ID": EXAMPLE_ID, "PATH": "solutions", "SECONDS": "5"}.get(word, word) for word in shlex.split(command)]
    return shlex.join(words)


def check_kata(words: list[str], env: dict) -> None:
    args = words[1:]
    try:
        parsed = build_parser().parse_args(args)
    except SystemExit as stop:
        assert stop.code == 0, f"kata does not accept {args}"
        return
    if parsed.command == "new":  # names an exercise that does not exist yet: only its form is checked
        assert re.fullmatch(r"(NN|\d\d)-[a-z0-9]+(-[a-z0-9]+)*", parsed.id), f"kata new {parsed.id}: not an id's form"
    elif getattr(parsed, "id", None):
        try:
            find_exercise(parsed.id)
        except UsageProblem as problem:
            pytest.fail(f"kata {' '.join(args)}: {problem}")
    if getattr(parsed, "target", None):
        assert (ROOT / parsed.target).is_dir(), f"--target {parsed.target} is not a folder"
    if shlex.join(words) in RUN_FOR_REAL:  # exactly as printed: any exit but usage (2) or grader error (4)
        run = shell(shlex.join(words), env)
        assert run.returncode in (0, 1, 3) and "Traceback" not in run.stderr, shown(run)


VALUE_OPTIONS = {"--target", "-n", "--dist", "-k", "-m", "-p", "--test-timeout", "--streams"}  # their next word is no path


def check_pytest(words: list[str], env: dict) -> None:
    paths = [w for before, w in zip(words, words[1:])
             if not w.startswith("-") and before not in VALUE_OPTIONS and not w[0].isdigit() and w != "solutions"]
    for path in paths:
        assert (ROOT / path.split("::")[0]).exists(), f"{path} does not exist"
    if shlex.join(words) in RUN_FOR_REAL:  # graded exactly as printed (exit 1: something is failing)
        run = shell(shlex.join(words), env)
        assert run.returncode in (0, 1) and "speckata:" in run.stdout, shown(run)
        return
    # Flags parse and the plugin loads, on one quick suite (a whole collection would take 20 s).
    flags = [w for w in words if w not in paths]
    run = shell(shlex.join(flags + ["--collect-only", "-q", "tests/test_02_acceptance_rate.py"]), env)
    assert run.returncode == 0, shown(run)


def check_python(words: list[str], env: dict) -> None:
    if len(words) == 1:
        pass  # "python of .venv": checked below
    elif words[1] == "-m":
        module = words[2]
        assert importlib.util.find_spec(module) is not None, f"no module {module}"
        if len(words) > 3 and not words[3].startswith("-"):
            submodule = f"{module}.{words[3]}"
            assert importlib.util.find_spec(submodule) is not None, f"{module} has no {words[3]} ({submodule})"
    else:
        assert (ROOT / words[1]).is_file(), f"{words[1]} does not exist"
    run = shell(f"command -v python && python -c 'import speckata'", env)
    assert run.returncode == 0 and run.stdout.startswith(str(VENV_BIN)), shown(run)


def check_bash(words: list[str], env: dict) -> None:
    script = ROOT / words[1]
    assert script.is_file(), f"{words[1]} does not exist"
    assert shell(f"bash -n {shlex.quote(str(script))}", env).returncode == 0, f"{words[1]} does not parse"


def check_source(words: list[str], env: dict) -> None:
    assert words[1] == ".venv/bin/activate", words
    plain = {**env, "PATH": os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if ".venv" not in p)}
    run = shell("source .venv/bin/activate && command -v kata && command -v pytest && command -v python", plain)
    assert run.returncode == 0, shown(run)
    assert all(line.startswith(str(VENV_BIN)) for line in run.stdout.split()), shown(run)


def check_in_venv(words: list[str], env: dict) -> None:
    """`.venv/bin/kata ...` works without activating: the same checks, with no .venv on PATH."""
    plain = {**env, "PATH": os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if ".venv" not in p)}
    run = shell(shlex.join(words + ["--help"]), plain)
    assert run.returncode == 0, shown(run)


CHECKERS = {"kata": check_kata, "pytest": check_pytest, "python": check_python, "bash": check_bash,
            "source": check_source, ".venv/bin/kata": check_in_venv, ".venv/bin/pytest": check_in_venv}


def test_every_printed_command_works_as_printed(tmp_path):
    env = environment(tmp_path / "state")
    seen: dict[str, str] = {}
    for where, commands in printed_commands(tmp_path).items():
        for command in commands:
            seen.setdefault(fill_placeholders(command), where)
    kinds = {command.split()[0] for command in seen}
    assert {"kata", "pytest", "source", "bash"} <= kinds, f"the extraction found too little: {sorted(seen)}"
    for command, where in sorted(seen.items()):
        words = shlex.split(command)
        try:
            CHECKERS[words[0]](words, env)
        except AssertionError as error:
            raise AssertionError(f"{where} prints `{command}`, which does not work:\n{error}") from None


def test_setup_prints_only_what_it_does_and_ends_with_the_activation_line(tmp_path):
    """On a set-up environment the script has nothing to install: its whole output is its last lines."""
    run = subprocess.run(["bash", "scripts/setup.sh"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, shown(run)
    output = (run.stdout + run.stderr).splitlines()
    assert output[-1].strip() == "source .venv/bin/activate", shown(run)
    assert all(line.startswith("setup: ") or line.strip() in ("", "source .venv/bin/activate") for line in output), shown(run)
