#!/usr/bin/env bash
# Set up (or refresh) the virtual environment in .venv: torch first, then speckata and its
# dependencies. Safe to run again: it skips what is already there. It prints only what it does,
# and last the one line that puts `kata`, `pytest` and `python` of .venv on your PATH.
#
# Torch: `pip install torch` on Linux pulls a multi-GB CUDA build. Where a CPU build is available
# (e.g. a local wheel, or PyTorch's CPU index via PIP_INDEX_URL/PIP_EXTRA_INDEX_URL), we take it.
# Override the requirement with SPECKATA_TORCH, e.g. SPECKATA_TORCH='torch==2.5.1'.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
TORCH_SPEC="${SPECKATA_TORCH:-torch==2.13.0}"

if [ ! -x .venv/bin/python ]; then
    echo "setup: creating .venv"
    "$PYTHON" -m venv .venv
fi
# -q keeps pip to errors; --no-warn-script-location drops its "not on PATH" notes about .venv/bin,
# which the last line of this script deals with. A pip.conf naming a local index that lacks a
# package makes pip say "WARNING: Location ... is ignored" once per package: noise, dropped. When
# pip fails, everything it said is shown.
PIP=(.venv/bin/python -m pip --disable-pip-version-check -q install --no-warn-script-location)
pip_install() {
    local log status=0
    log="$(mktemp)"
    "${PIP[@]}" "$@" >"$log" 2>&1 || status=$?
    if [ "$status" -eq 0 ]; then
        grep -v "^WARNING: Location '.*' is ignored" "$log" >&2 || true
    else
        cat "$log" >&2
    fi
    rm -f "$log"
    return "$status"
}

# numpy is installed with torch: importing a torch without numpy prints "Failed to initialize NumPy".
if ! .venv/bin/python -c "import numpy, torch" >/dev/null 2>&1; then
    echo "setup: installing $TORCH_SPEC and numpy"
    pip_install "$TORCH_SPEC" "numpy>=1.24"
    .venv/bin/python -c "import numpy, torch" || { echo "setup: torch did not install" >&2; exit 1; }
fi

# Reinstall speckata only when pyproject.toml changed since the last setup.
stamp=.venv/.speckata-installed
if [ ! -f "$stamp" ] || ! cmp -s pyproject.toml "$stamp"; then
    echo "setup: installing speckata and its dependencies (pytest, jupyter, matplotlib)"
    pip_install -e '.[dev]'
    .venv/bin/python -c "import speckata, nbclient, matplotlib" || { echo "setup: install failed" >&2; exit 1; }
    cp pyproject.toml "$stamp"
fi
echo "setup: ready. Put kata and pytest on your PATH (in every new terminal) with:"
echo
echo "    source .venv/bin/activate"
