#!/usr/bin/env bash
# Set up (or refresh) the virtual environment in .venv: torch first, then speckata and its
# dependencies. Safe to run again: it skips what is already there.
#
# Torch: `pip install torch` on Linux pulls a multi-GB CUDA build. Where a CPU build is available
# (e.g. a local wheel, or PyTorch's CPU index via PIP_INDEX_URL/PIP_EXTRA_INDEX_URL), we take it.
# Override the requirement with SPECKATA_TORCH, e.g. SPECKATA_TORCH='torch==2.5.1'.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
TORCH_SPEC="${SPECKATA_TORCH:-torch==2.13.0}"

if [ ! -x .venv/bin/python ]; then
    "$PYTHON" -m venv .venv
fi
PIP=(.venv/bin/python -m pip --disable-pip-version-check -q)

if ! .venv/bin/python -c "import torch" 2>/dev/null; then
    echo "setup: installing $TORCH_SPEC"
    "${PIP[@]}" install "$TORCH_SPEC" 2>&1 | grep -v "^WARNING: Location" || true
    .venv/bin/python -c "import torch" || { echo "setup: torch did not install" >&2; exit 1; }
fi

# Reinstall speckata only when pyproject.toml changed since the last setup.
stamp=.venv/.speckata-installed
if [ ! -f "$stamp" ] || ! cmp -s pyproject.toml "$stamp"; then
    echo "setup: installing speckata and its dependencies"
    "${PIP[@]}" install -e '.[dev]' 2>&1 | grep -v "^WARNING: Location" || true
    .venv/bin/python -c "import speckata, nbclient, matplotlib" || { echo "setup: install failed" >&2; exit 1; }
    cp pyproject.toml "$stamp"
fi
echo "setup: ready (.venv)"
