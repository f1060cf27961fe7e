"""The committed pass-cost tables of ``python -m speckata.bench cost`` (exercise 26-serving-crossover), as numpy arrays.

MEASURED on the machine and with the command each file records (one CPU thread), not on a GPU:

>>> table = measured_cost_table("shipped")
>>> table["target_cost"].ndim, table["draft_cost"].ndim, table["threads"]
(3, 2, 1)
"""

from __future__ import annotations

import json

import numpy as np

from speckata.manifest import repo_root

COST_FILES = {"shipped": "speckata/bench/results/cost-shipped.json", "smollm2": "speckata/real/results/cost-smollm2.json"}


def measured_cost_table(model: str) -> dict:
    """target_cost (num_B, N, num_L) and draft_cost (num_B, num_L) medians in seconds, batch_sizes,
    context_lengths, and the record's command, model, machine, threads and load average; the spreads (min, max) too."""
    record = json.loads((repo_root() / COST_FILES[model]).read_text())
    return {"target_cost": np.array(record["target_cost"]["median"]), "draft_cost": np.array(record["draft_cost"]["median"]),
            "target_min": np.array(record["target_cost"]["min"]), "target_max": np.array(record["target_cost"]["max"]),
            "batch_sizes": list(record["batch_sizes"]), "context_lengths": list(record["context_lengths"]),
            "load_average": record.get("load_average"),
            **{key: record[key] for key in ("command", "model", "machine", "threads", "repeats")}}
