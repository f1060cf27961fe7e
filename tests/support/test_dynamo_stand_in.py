"""speckata/grading/dynamo_stand_in.py: torch.optim trains exactly as with torch._dynamo, without importing it.

Each case runs in a fresh interpreter: the stand-in is a process's sys.modules entry.
"""

from __future__ import annotations

import json
import subprocess
import sys

from speckata.manifest import repo_root

TRAIN = """
import json, sys, torch
if sys.argv[1] == "stand-in":
    from speckata.grading.dynamo_stand_in import install
    install()
torch.manual_seed(0)
weights = []
for optimizer, options in [(torch.optim.Adam, {}), (torch.optim.AdamW, {"weight_decay": 0.1}),
                           (torch.optim.SGD, {"lr": 0.1, "momentum": 0.9}), (torch.optim.RMSprop, {})]:
    model = torch.nn.Linear(5, 3)
    steps = optimizer(model.parameters(), **options)
    for _ in range(3):
        steps.zero_grad()
        model(torch.randn(4, 5)).pow(2).sum().backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        steps.step()
    weights.append([p.detach().double().reshape(-1).tolist() for p in model.parameters()])
print(json.dumps({"module": type(sys.modules.get("torch._dynamo")).__name__, "weights": weights}))
"""

ANYTHING_ELSE = """
import json, sys, torch
from speckata.grading.dynamo_stand_in import install
install()
seen = [type(sys.modules["torch._dynamo"]).__name__]
compiling = torch._dynamo.is_compiling()  # any other attribute: the real module
seen.append(type(sys.modules["torch._dynamo"]).__name__)
model = torch.nn.Linear(2, 2)
steps = torch.optim.Adam(model.parameters())  # after the real import, the real module's calls
model(torch.ones(2)).sum().backward()
steps.step()
doubled = torch.compile(lambda x: x * 2, backend="eager")(torch.ones(2)).tolist()
print(json.dumps({"seen": seen, "compiling": compiling, "doubled": doubled,
                  "same": torch._dynamo is sys.modules["torch._dynamo"]}))
"""

GRADER = """
import json, sys
from pathlib import Path
from speckata.grading.learner_code import folder_function
from speckata.grading.target import set_target
set_target(Path("solutions"))
folder_function("01-speculative-step", "speculative_step")  # a numpy exercise: torch is never imported
seen = ["torch" in sys.modules]
folder_function("11-distill-draft", "distill")
seen.append(type(sys.modules.get("torch._dynamo")).__name__)
print(json.dumps(seen))
"""


def run(script: str, *arguments: str):
    done = subprocess.run([sys.executable, "-c", script, *arguments], cwd=repo_root(), capture_output=True, text=True,
                          timeout=300, check=False, env={"OMP_NUM_THREADS": "1", "PATH": ""})
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_optimizers_take_the_same_steps_and_torch_dynamo_is_never_imported():
    real, stand_in = run(TRAIN, "real"), run(TRAIN, "stand-in")
    assert real["module"] == "module" and stand_in["module"] == "DynamoStandIn"
    assert stand_in["weights"] == real["weights"]  # bit for bit: the same update, the same order


def test_anything_else_asked_of_it_imports_the_real_module_which_then_serves_everything():
    seen = run(ANYTHING_ELSE)
    assert seen == {"seen": ["DynamoStandIn", "module"], "compiling": False, "doubled": [2.0, 2.0], "same": True}


def test_the_grader_installs_it_once_an_exercise_module_is_imported_beside_torch():
    assert run(GRADER) == [False, "DynamoStandIn"]
