"""The README's ladder table lists the manifest's exercises, in order, as the manifest says."""

from __future__ import annotations

import re

from speckata.manifest import load_manifest, repo_root


def test_readme_ladder_matches_the_manifest():
    readme = (repo_root() / "README.md").read_text()
    section = readme.split("## The ladder", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if re.match(r"\| `\d\d-", line)]
    listed = [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]
    expected = [
        [f"`{e.id}`", e.title, e.track, e.difficulty, ", ".join(f"`{f}`" for f in e.functions)]
        for e in load_manifest()
    ]
    assert listed == expected, "README's ladder differs from speckata/manifest.toml; regenerate the table"


def test_readme_model_sizes_match_the_committed_weights():
    import json

    settings = json.loads((repo_root() / "speckata" / "models" / "weights" / "settings.json").read_text())["models"]
    readme = (repo_root() / "README.md").read_text()
    target_m = round(settings["target"]["parameters"] / 1e6, 1)
    draft_k = round(settings["draft"]["parameters"] / 1e3, -1) / 1
    assert f"a {target_m}M-parameter character-level target" in readme
    assert f"a {draft_k:.0f}k-parameter draft" in readme
