"""The Audit page's code-check panels: `ragaudit drift` (each retrieval constant of the
production and evaluation code side by side, at file:line) and `ragaudit harness-check`
(each finding at file:line). Each is shown when its results file is present under the
results folder; only those two fixed names are read (a URL never chooses a file)."""

from __future__ import annotations

from pathlib import Path

from ragaudit.drift.output import KIND as DRIFT_KIND
from ragaudit.drift.output import default_drift_path
from ragaudit.errors import RagauditError
from ragaudit.harness.output import HARNESS_CHECK, default_check_path, summary, summary_line
from ragaudit.results.format import NOT_MEASURED, fmt_ratio
from ragaudit.results.io import DocumentKind
from ragaudit.results.schema import SCHEMA_VERSION as DRIFT_VERSION
from ragaudit.ui.data import read_cached

DRIFT = DocumentKind(
    "drift results", DRIFT_VERSION, ("constants",), "ragaudit drift PROD EVAL", DRIFT_KIND,
    (1,),
)  # fmt: skip


def load_check(path: Path, kind: DocumentKind) -> tuple[dict | None, str | None]:
    """The document at `path` (None when absent), or None and the one-line problem."""
    if not path.exists():
        return None, None
    try:
        return read_cached(path, kind), None
    except RagauditError as error:
        return None, str(error)


def at(side: dict | None) -> str:
    """`file:line` of one side's constant; `file (default)` for a settings default; `—`."""
    if side is None:
        return "—"
    if side.get("line") is None:
        return f"{side.get('file', NOT_MEASURED)} (default)"
    return f"{side['file']}:{side['line']}"


def _value(side: dict | None) -> str:
    return "—" if side is None else str(side.get("value"))


def drift_rows(document: dict) -> list[dict]:
    """One row per constant: both values and both locations, and the verdict."""
    rows = []
    for entry in document["constants"]:
        production, evaluation = entry.get("production"), entry.get("evaluation")
        if production is None or evaluation is None:
            verdict = f"{'evaluation' if production is None else 'production'} only"
        elif entry.get("differs"):
            looser = entry.get("looser")
            verdict = f"differs; looser: {looser}" if looser else "differs"
        else:
            verdict = "same"
        rows.append(
            {
                "constant": entry["constant"],
                "production": _value(production),
                "production at": at(production),
                "evaluation": _value(evaluation),
                "evaluation at": at(evaluation),
                "verdict": verdict,
                "why": entry.get("why") or "",
            }
        )
    return rows


def drift_headline(document: dict) -> str:
    """`Drift: constants on both sides that differ 25% 2/8; on one side only 1`."""
    entries = document["constants"]
    both = [e for e in entries if None not in (e.get("production"), e.get("evaluation"))]
    differ = sum(1 for e in both if e.get("differs"))
    return (
        f"Drift: constants on both sides that differ {fmt_ratio(differ, len(both))}; "
        f"on one side only {len(entries) - len(both)}"
    )


def finding_rows(document: dict) -> list[dict]:
    """One row per finding, at file:line, a waived one with its reason."""
    return [
        {
            "at": f"{f['file']}:{f['line']}",
            "rule": f["rule"],
            "waived": f"waived: {f.get('reason')}" if f.get("waived") else "",
            "message": f["message"],
            "snippet": f.get("snippet", ""),
        }
        for f in document["findings"]
    ]


def harness_headline(document: dict) -> str:
    """The command's own summary line, read from the file (or counted from its findings)."""
    counts = document.get("summary")
    if counts is None:
        files = document.get("files")
        if files is None:
            return f"harness-check: {len(document['findings'])} findings; files: {NOT_MEASURED}"
        counts = summary(document["findings"], len(files))
    return summary_line(counts)


def render_code_checks() -> None:
    """Draw the drift and harness-check panels, each when its file is present."""
    import streamlit as st

    _panel(st, default_drift_path(), DRIFT, _drift_body)
    _panel(st, default_check_path(), HARNESS_CHECK, _harness_body)


def _panel(st, path: Path, kind: DocumentKind, body) -> None:
    document, problem = load_check(path, kind)
    if problem:
        st.error(f"Cannot show the {kind.name}: {problem}")
    elif document is not None:
        body(st, document, path)


def _drift_body(st, document: dict, path: Path) -> None:
    rows = drift_rows(document)
    failing = any(r["verdict"] != "same" for r in rows)
    with st.expander(drift_headline(document), expanded=failing):
        st.caption(
            f"`{path}` · written {document.get('created_at', NOT_MEASURED)} · production "
            f"`{document.get('production', NOT_MEASURED)}` · evaluation "
            f"`{document.get('evaluation', NOT_MEASURED)}`"
        )
        st.dataframe(rows, hide_index=True, width="stretch")


def _harness_body(st, document: dict, path: Path) -> None:
    rows = finding_rows(document)
    with st.expander(harness_headline(document), expanded=any(not r["waived"] for r in rows)):
        paths = ", ".join(f"`{p}`" for p in document.get("paths", [])) or NOT_MEASURED
        st.caption(
            f"`{path}` · written {document.get('created_at', NOT_MEASURED)} · scanned {paths}"
        )
        if rows:
            st.dataframe(rows, hide_index=True, width="stretch")
