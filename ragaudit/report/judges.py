"""The judges section of the report: how often each LLM-judge metric misses a planted fault,
built from a judges scorecard alone (judges.scorecard) as report blocks, so the Markdown,
the HTML page, docs/judges.md and `ragaudit judges`'s printed table read the same figures.
"""

from __future__ import annotations

from ragaudit.judges.format import (
    MEASURED_AGAINST,
    NO_VERDICT_ORDER,
    OUTCOME_WORDS,
    fmt_auroc,
    fmt_calls,
    fmt_no_verdict,
    fmt_score,
    fmt_seconds,
    fmt_share,
    fmt_stability,
    fmt_tokens,
)
from ragaudit.report.render import Block, blocks_to_markdown
from ragaudit.results.format import fmt_digest, fmt_ratio

REASON_CHARS = 240
KIND_NOTE = (
    "The kind is ragaudit's verdict on the answer; `correct` rows have no wrong answer to "
    "flag, so what they show is the context metrics' recall of missed gold."
)
MISSED_HEADERS = ["Metric", "Record", "ragaudit's verdict (branch)", "Answer", "Score",
                  "The metric's reason (or its judge's last reply)"]  # fmt: skip


def _metrics(scorecard: dict) -> list[dict]:
    return scorecard["metrics"]


def summary_rows(scorecard: dict) -> list[list[str]]:
    """One row per metric: what it is scored against and its figures."""
    rows = []
    for metric in _metrics(scorecard):
        entry = scorecard["summary"][metric["name"]]
        overall = entry["overall"]
        rows.append(
            [
                f"`{metric['name']}` ({metric['library']} {metric['version']})",
                MEASURED_AGAINST[metric["measures"]],
                f"{metric['threshold']:g}",
                fmt_share(overall["recall"]),
                fmt_share(overall["false_positive"]),
                fmt_auroc(overall["auroc"]),
                fmt_no_verdict(overall),
                fmt_stability(entry["stability"]),
                fmt_calls(entry["cost"]),
                fmt_tokens(entry["cost"]),
            ]
        )
    return rows


SUMMARY_HEADERS = [
    "Metric",
    "Scored against",
    "Flags below",
    "Recall (flagged / should be)",
    "False positives (flagged / should pass)",
    "AUROC",
    "No verdict",
    "Stability (two runs)",
    "Judge calls / sample",
    "Tokens / sample",
]


def _by(scorecard: dict, field: str) -> tuple[list[str], list[list[str]]]:
    names = [m["name"] for m in _metrics(scorecard)]
    groups = sorted({g for n in names for g in scorecard["summary"][n][field]})
    rows = []
    for group in groups:
        row = [group]
        for name in names:
            rates = scorecard["summary"][name][field].get(group)
            row.append(fmt_share(rates["recall"]) if rates else "—")
        rows.append(row)
    return [field.removeprefix("by_").capitalize(), *[f"`{n}`" for n in names]], rows


def _outcome_rows(scorecard: dict) -> list[list[str]]:
    rows = []
    for metric in _metrics(scorecard):
        outcomes = scorecard["summary"][metric["name"]]["outcomes"]
        total = sum(outcomes.values())
        cells = [fmt_ratio(outcomes.get(o, 0), total) for o in ("scored", *NO_VERDICT_ORDER)]
        rows.append([f"`{metric['name']}`", *cells, str(outcomes.get("not_applicable", 0))])
    return rows


def findings(scorecard: dict) -> list[str]:
    """The two or three things a user should know, each built from the summary."""
    out = []
    for metric in _metrics(scorecard):
        entry = scorecard["summary"][metric["name"]]
        probes = [
            (rates["recall"]["count"] / rates["recall"]["n"], probe, rates)
            for probe, rates in entry["by_probe"].items()
            if rates["recall"]["n"]
        ]
        if metric["measures"] == "answer" and probes:
            rate, probe, rates = min(probes, key=lambda item: (item[0], -item[2]["recall"]["n"]))
            missed = rates["recall"]["n"] - rates["recall"]["count"]
            if not missed:
                continue  # it flagged every wrong answer it saw: nothing passed
            silent = rates["no_verdict"]["should_flag"]["count"]  # not flagged, yet not passed
            how = f"{missed - silent} passed as faithful" + (
                f", {silent} with no verdict" if silent else ""
            )
            out.append(
                f"`{metric['name']}` passes wrong answers most often on **{probe}**: it "
                f"flags {fmt_share(rates['recall'])} of them ({how})."
            )
    evaluations = [e for e in scorecard["evaluations"] if e["outcome"] != "not_applicable"]
    empty = [e for e in evaluations if e["outcome"] not in ("scored",)]
    if evaluations:
        kinds = {}
        for evaluation in empty:
            kinds[evaluation["outcome"]] = kinds.get(evaluation["outcome"], 0) + 1
        detail = ", ".join(f"{k} {OUTCOME_WORDS[o]}" for o, k in sorted(kinds.items()))
        out.append(
            "The judge gave nothing usable (no verdict) on "
            f"{fmt_ratio(len(empty), len(evaluations))} of its evaluations"
            + (f": {detail}" if detail else "")
            + "; each counts as not flagged."
        )
    measured = [
        (entry["stability"]["agree"], name)
        for name, entry in scorecard["summary"].items()
        if entry["stability"]["agree"]["n"]
    ]
    if measured:
        agree, name = min(measured, key=lambda item: item[0]["count"] / item[0]["n"])
        if agree["count"] == agree["n"]:
            out.append("Every metric gave the same outcome both times on every record run twice.")
            return out
        out.append(
            f"Least stable between two runs: `{name}`, the same outcome on "
            f"{fmt_share(agree)} of the records run twice."
        )
    return out


def _missed_rows(scorecard: dict) -> list[list[str]]:
    samples = {s["key"]: s for s in scorecard["samples"]}
    evaluations = {(e["key"], e["metric"], e["repetition"]): e for e in scorecard["evaluations"]}
    rows = []
    for metric in _metrics(scorecard):
        if metric["measures"] != "answer":
            continue
        for key in scorecard["summary"][metric["name"]]["overall"]["missed"]:
            sample, evaluation = samples[key], evaluations[(key, metric["name"], 1)]
            # RAGAS gives no reason of its own: its judge's last reply (the verdicts) instead
            replies = evaluation.get("judge_replies") or [""]
            reason = evaluation.get("reason") or (f"judge: {replies[-1]}" if replies[-1] else "")
            reason = " ".join(reason.split())[:REASON_CHARS]
            rows.append(
                [
                    f"`{metric['name']}`",
                    f"`{key}`",
                    f"{sample['verdict']} (`{sample['branch']}`)",
                    sample["answer"][:80],
                    fmt_score(evaluation),
                    reason or "—",
                ]
            )
    return rows


def conditions_text(scorecard: dict) -> str:
    """The judge, its digest, the sample, the calls and the wall time, in one paragraph."""
    judge, sampling, conditions = scorecard["judge"], scorecard["sampling"], scorecard["conditions"]
    source = scorecard["source"]
    digest = judge.get("digest")
    shown = (
        f"sha256 {fmt_digest(digest)}"
        if digest and digest != "unavailable"
        else (f"digest unavailable: {judge.get('digest_reason')}")
    )
    state = "" if scorecard.get("complete") else " **Partial: the run has not finished.**"
    return (
        f"Judge `{judge['spec']}` ({judge['model']}, {shown}), "
        f"{judge['settings'].get('server', 'server')}. "
        f"{sampling['samples']} records of {source.get('records_available')} generated in the "
        f"results file of {str(source.get('created_at') or '')[:10]}: up to "
        f"{sampling['per_group']} per probe and verdict (seed {sampling['seed']}); the first "
        f"{min(sampling['stability'], sampling['samples'])} run twice for "
        f"stability. {_calls_sentence(conditions)} --workers "
        f"{conditions['workers']}. Wall time of the sessions that computed calls: "
        f"{fmt_seconds(conditions.get('computing_seconds'))}.{state}"
    )


def _calls_sentence(conditions: dict) -> str:
    """The judge calls over every recorded session of the run, then this session's: a
    scorecard built by replaying or carrying computed nothing itself."""
    calls = conditions["calls"]
    now = f"{calls['computed']} computed, {calls['replayed']} replayed, {calls['failed']} failed"
    sessions = conditions.get("sessions") or []
    if not sessions:
        return f"Judge calls this session: {now};"
    computed = sum(entry.get("computed", 0) for entry in sessions)
    failed = sum(entry.get("failed", 0) for entry in sessions)
    return (
        f"Judge calls over the run's {len(sessions)} recorded sessions: {computed} computed, "
        f"{failed} failed (this session: {now});"
    )


def judges_blocks(scorecard: dict, level: int = 2) -> list[Block]:
    """The judges section as report blocks."""
    probe_headers, probe_rows = _by(scorecard, "by_probe")
    kind_headers, kind_rows = _by(scorecard, "by_kind")
    thresholds = "; ".join(
        f"`{m['name']}`: {m['threshold']:g}, {m['threshold_source']}" for m in _metrics(scorecard)
    )
    return [
        ("h", level, "LLM judges: how often each metric misses a planted fault"),
        ("p", conditions_text(scorecard)),
        ("ul", findings(scorecard)),
        ("table", SUMMARY_HEADERS, summary_rows(scorecard)),
        (
            "p",
            f"Thresholds: {thresholds}. A NaN, parse failure, failed judge call or library "
            "error is no verdict: it stays in every denominator and counts as not flagged. "
            "AUROC scores a no verdict as a pass. Context metrics are not applicable to a "
            "question with no answer (nothing to recall) and are left out of their rates.",
        ),
        ("h", level + 1, "Recall per probe"),
        ("table", probe_headers, probe_rows),
        ("h", level + 1, "Recall per failure kind"),
        ("p", KIND_NOTE),
        ("table", kind_headers, kind_rows),
        ("h", level + 1, "Outcomes"),
        (
            "table",
            ["Metric", *[OUTCOME_WORDS[o] for o in ("scored", *NO_VERDICT_ORDER)], "n/a"],
            _outcome_rows(scorecard),
        ),
        ("h", level + 1, "Wrong answers the answer metrics passed"),
        ("table", MISSED_HEADERS, _missed_rows(scorecard)),
    ]  # fmt: skip


def render_judges_markdown(scorecard: dict) -> str:
    return blocks_to_markdown(judges_blocks(scorecard, level=1))


def scorecard_table(scorecard: dict) -> str:
    """The summary table and the findings, for stdout."""
    return blocks_to_markdown(
        [("table", SUMMARY_HEADERS, summary_rows(scorecard)), ("ul", findings(scorecard))]
    )
