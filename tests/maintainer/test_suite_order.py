"""A suite runs its fixed cases first, its generated cases next, its statistical and cost tests last
(speckata/grading/ordering.py), so `kata check -x` shows a wrong answer before any slow test starts."""

from __future__ import annotations

import subprocess
import sys

from speckata.manifest import repo_root

SUITES = ["tests/test_01_speculative_step.py", "tests/test_08_batched_verifier.py", "tests/test_12_cross_tokenizer.py"]
LAST = {
    "tests/test_01_speculative_step.py": ["test_random_cases_match_the_reference[100]", "test_first_token_is_distributed_as_p"],
    "tests/test_08_batched_verifier.py": [
        "test_the_number_of_operations_does_not_grow_with_the_batch_or_gamma",
        "test_no_tensor_as_large_as_the_inputs_is_built",
        "test_the_token_at_every_position_is_distributed_as_p",
    ],
    "tests/test_12_cross_tokenizer.py": ["test_verify_emits_tokens_distributed_as_p", "test_generated_text_is_distributed_as_the_target"],
}


def collected() -> list[str]:
    run = subprocess.run([sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider", "--target=solutions", *SUITES],
                         cwd=repo_root(), capture_output=True, text=True, timeout=300, check=False)
    return [line for line in run.stdout.splitlines() if "::" in line]


def test_slow_tests_run_last_and_each_file_stays_together():
    nodes = collected()
    files = [node.split("::")[0] for node in nodes]
    assert files == sorted(files, key=SUITES.index), "a file's tests were interleaved with another file's"
    for suite, last in LAST.items():
        names = [node.split("::")[1] for node in nodes if node.startswith(suite)]
        assert names[-len(last):] == last, f"{suite} ends with {names[-len(last):]}, not {last}"
        generated = [i for i, name in enumerate(names) if "random" in name or "generated" in name]
        fixed = [i for i, name in enumerate(names) if "bad_input" in name or "worked_example" in name]
        assert max(fixed) < min(generated), f"{suite}: a fixed case runs after a generated one"
