"""The judges scorecard: one JSON document per judge run (`kind: judges-scorecard`), read
back by the report, the inspector and the export through the one loader (results.io).

It carries the samples (each with ragaudit's verdict, branch and gold_in_context), every
evaluation (outcome, score, flag, the metric's reason and the judge's replies, calls and
tokens), the summary per metric (judges.scoring) and the run's conditions: the judge and
its digest, the libraries' versions, the calls replayed / computed / failed with the
failures' reasons, the workers, and the wall time of every session that computed calls.

Writing: a run in progress writes `<stem>.partial.json` after each evaluation. The file
itself is replaced only by a run whose judge calls all succeeded (the good one it replaces
is kept as `<stem>.prev.json`); a run with failed judge calls writes `<stem>.failed.json`
and leaves the earlier scorecard where it is, so a judge that is down cannot cost a good
scorecard (results.publish, the matrix's rule).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from ragaudit import paths
from ragaudit.errors import RagauditError
from ragaudit.fileio import now_iso, write_json_atomic
from ragaudit.judges.metrics import Metric
from ragaudit.judges.samples import Sample
from ragaudit.judges.scoring import score_metric
from ragaudit.results.io import DocumentKind, load_document, partial_path
from ragaudit.results.publish import Published, publish_document
from ragaudit.results.schema import SCHEMA_VERSION

SCORECARD = DocumentKind(
    "judges scorecard",
    SCHEMA_VERSION,
    ("judge", "metrics", "sampling", "samples", "evaluations", "summary", "conditions"),
    "ragaudit judges",
    "judges-scorecard",
    (1,),  # written before the one schema version
)
SHIPPED = Path(__file__).resolve().parent.parent / "assets" / "reference" / "judges.json.gz"
"""The reference scorecard the package carries (the shipped reference run, judged)."""


def default_path() -> Path:
    """Where `ragaudit judges` writes unless told: the data folder's results/judges.json."""
    return paths.results_dir() / "judges.json"


def shipped_scorecard() -> Path | None:
    return SHIPPED if SHIPPED.is_file() else None


def scorecard_to_show() -> Path | None:
    """The scorecard the inspector and demo open: RAGAUDIT_JUDGES, else a local complete
    one, else the shipped reference scorecard (None when there is none)."""
    chosen = os.environ.get("RAGAUDIT_JUDGES")
    if chosen:
        return Path(chosen)
    local = default_path()
    return local if local.is_file() else shipped_scorecard()


def load_scorecard(path: str | Path) -> dict:
    """Read and check a scorecard (one line naming the file and the problem if it is not)."""
    return load_document(path, SCORECARD)


def plan_id(plan: dict) -> str:
    """What makes two sessions the same run (the records limit aside: a run extended
    slice by slice is one run)."""
    same = {key: value for key, value in plan.items() if key != "max_records"}
    return hashlib.sha256(json.dumps(same, sort_keys=True).encode()).hexdigest()[:16]


def build(
    *,
    source: dict,
    judge: dict,
    metrics: list[Metric],
    versions: dict[str, str],
    plan: dict,
    samples: list[Sample],
    evaluations: list[dict],
    conditions: dict,
    complete: bool,
) -> dict:
    """The scorecard document (its summary computed from the evaluations)."""
    by_key = {sample.key: sample for sample in samples}
    order = {
        (s.key, m.name): i for i, (s, m) in enumerate((s, m) for s in samples for m in metrics)
    }
    evaluations = sorted(
        evaluations,
        key=lambda e: (e["repetition"], order.get((e["key"], e["metric"]), 0)),
    )
    return {
        "kind": SCORECARD.kind,
        "schema_version": SCHEMA_VERSION,
        "created_at": now_iso(),
        "complete": complete,
        "source": source,
        "judge": judge,
        "metrics": [
            {
                "name": metric.name,
                "library": metric.library,
                "version": versions[metric.library],
                "measures": metric.measures,
                "threshold": metric.threshold,
                "threshold_source": metric.threshold_source,
                "calls_in_source": metric.calls_in_source,
            }
            for metric in metrics
        ],
        "sampling": {**plan, "plan_id": plan_id(plan), "samples": len(samples)},
        "samples": [sample.to_json() for sample in samples],
        "evaluations": evaluations,
        "summary": {metric.name: score_metric(metric, by_key, evaluations) for metric in metrics},
        "conditions": conditions,
    }


def write_in_progress(path: Path, document: dict) -> None:
    write_json_atomic(partial_path(path), document)


def judge_failed(document: dict) -> bool:
    """Whether an evaluation of the scorecard failed at the judge."""
    evaluations = document.get("evaluations")
    return any(
        isinstance(e, dict) and e.get("outcome") == "judge_failed" for e in evaluations or ()
    )


def _is_good_scorecard(path: Path) -> bool:
    try:
        document = load_scorecard(path)
    except RagauditError:  # missing, unreadable or another kind: not a good one to keep
        return False
    return document.get("complete") is True and not judge_failed(document)


def publish(path: Path, document: dict) -> Published:
    """Write the finished scorecard by the module's rule and drop the partial file."""
    return publish_document(
        path,
        document,
        lost=judge_failed(document),
        is_good_file=_is_good_scorecard,
        write=write_json_atomic,
        lost_words="judge calls failed",
        override=None,
    )


def sessions_path(path: Path) -> Path:
    return path.with_name(f"{path.stem}.sessions.json")


def read_sessions(path: Path) -> list[dict]:
    """The earlier sessions of runs into `path` (a missing or unreadable ledger: none)."""
    try:
        sessions = json.loads(sessions_path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [s for s in sessions if isinstance(s, dict)] if isinstance(sessions, list) else []


def record_session(path: Path, sessions: list[dict]) -> None:
    write_json_atomic(sessions_path(path), sessions)


def computing_seconds(sessions: list[dict], plan: str) -> float:
    """The wall time of this plan's sessions that computed judge calls, summed."""
    return round(
        sum(s["seconds"] for s in sessions if s.get("plan_id") == plan and s.get("computed")), 1
    )


def ship(source: str | Path, target: Path = SHIPPED) -> Path:
    """Compress the scorecard `source` into the package as the reference scorecard (checked
    first; a run still in progress is refused)."""
    from ragaudit.fileio import read_text, write_bytes_atomic
    from ragaudit.results.compressed import gzip_bytes

    document = load_scorecard(source)
    if not document.get("complete"):
        raise RagauditError(f"{source}: the run that writes this scorecard has not finished")
    write_bytes_atomic(target, gzip_bytes(read_text(source, str(source))))
    return target


if __name__ == "__main__":
    import sys

    if len(sys.argv) != 2:
        sys.exit("usage: python -m ragaudit.judges.scorecard SCORECARD.json")
    print(f"wrote {ship(sys.argv[1])}")
