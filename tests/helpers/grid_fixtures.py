"""Hand-written attributions and severity classes laid over the synthetic results file,
for the Matrix page's attribution bars and the Severity page's grid (AppTest and browser
tests). Every figure is written here, so a test's expected value is counted by hand."""

from __future__ import annotations

import json
from pathlib import Path

from helpers.ui_fixtures import build_results

PRIMARY = "local:minilm"


def measure(count: int, n: int = 5) -> dict:
    """A recorded count/n measure (its interval is not what these tests read)."""
    return {"count": count, "n": n, "rate": count / n, "wilson": [0.0, 1.0]}


# (probe, config) -> the attribution written into the file.
ATTRIBUTIONS = {
    ("boundary", "B"): {
        "n": 5,
        "retrieval": measure(2),
        "generation": measure(1),
        "ceiling": measure(1),
        "correct": measure(1),
        "failed_call": measure(0),
        "no_oracle": measure(0),
    },
    ("boundary", "C"): {
        "n": 5,
        "retrieval": measure(0),
        "generation": measure(0),
        "ceiling": measure(0),
        "correct": measure(4),
        "failed_call": measure(1),
        "no_oracle": measure(0),
    },
    ("unanswerable", "B"): {  # no gold span: no oracle on any record
        "n": 5,
        "retrieval": measure(0),
        "generation": measure(2),
        "ceiling": measure(0),
        "correct": measure(3),
        "failed_call": measure(0),
        "no_oracle": measure(5),
    },
}


def with_attribution(results: dict) -> dict:
    """`results` with ATTRIBUTIONS on the primary's cells; control x B not generated."""
    for cell in results["cells"]:
        if cell["embedder"] == PRIMARY and (cell["probe"], cell["config"]) in ATTRIBUTIONS:
            cell["attribution"] = ATTRIBUTIONS[(cell["probe"], cell["config"])]
        if (cell["probe"], cell["config"], cell["embedder"]) == ("control", "B", PRIMARY):
            cell["generated"] = False  # drawn as "not run" in B's panel
    return results


# (probe, config) -> (class, branch) written into the file; branches are the fixture's rules.
CLASSES = {
    ("boundary", "B"): ("critical", "critical"),  # rule 8 of 8
    ("boundary", "C"): ("low", "loud_failures"),  # rule 4
    ("boundary", "M"): ("high", "check_flagged"),  # rule 6
    ("boundary", "A"): ("none", "no_failures"),  # rule 1
}
ORDER = ["none", "low", "medium", "high", "critical"]  # the spec's, best to worst


def with_severity(results: dict) -> dict:
    """`results` with CLASSES on the primary's cells; control x D records no class."""
    for cell in results["cells"]:
        key = (cell["probe"], cell["config"])
        if cell["embedder"] == PRIMARY and key in CLASSES:
            cell["severity"] = dict(zip(("class", "branch"), CLASSES[key], strict=True))
        if (cell["probe"], cell["config"], cell["embedder"]) == ("control", "D", PRIMARY):
            del cell["severity"]  # a file that records no class for this cell
    return results


def hand_results() -> dict:
    """The synthetic file (n=5) with both: what the pages and the browser test open."""
    return with_severity(with_attribution(build_results(n=5)))


def write_latest(home: Path, results: dict) -> Path:
    """`results` written as the data folder's results/latest.json (what the inspector opens
    by default); its path."""
    path = home / "results" / "latest.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(results))
    return path
