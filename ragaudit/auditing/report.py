"""The audit's terminal table and its results file. Every figure printed is read from the
results document, never recomputed here."""

from __future__ import annotations

from pathlib import Path

from ragaudit import paths
from ragaudit.errors import RagauditError
from ragaudit.fileio import write_json_atomic
from ragaudit.results.format import fmt_ratio, fmt_window
from ragaudit.results.io import DocumentKind, load_document
from ragaudit.results.publish import Published, publish_document
from ragaudit.results.schema import SCHEMA_VERSION


def default_audit_path() -> Path:
    """`data/results/audit-latest.json` (under RAGAUDIT_HOME when set)."""
    return paths.results_dir() / "audit-latest.json"


def write_results(results: dict, path: Path) -> Path:
    """Write atomically (temp file in the same folder + os.replace), NaN refused."""
    write_json_atomic(path, results, trailing_newline=True)
    return Path(path)


REQUIRED_FIELDS = ("schema_version", "kind", "created_at", "settings", "structure", "cases")

AUDIT_RESULTS = DocumentKind(
    "audit results", SCHEMA_VERSION, REQUIRED_FIELDS, "ragaudit audit", "audit", (1,)
)
"""The audit's results file as a document kind: the one schema version (results.schema;
version 1 files, from before there was one, read as they are) and its fields."""


def read_audit_results(path: Path) -> dict:
    """Load and check an audit results file; RagauditError names the file and the problem."""
    return load_document(path, AUDIT_RESULTS)


def _lost_calls(results: dict) -> bool:
    summary = results.get("summary")
    return isinstance(summary, dict) and bool(summary.get("failed_calls"))


def _is_good_audit_file(path: Path) -> bool:
    """True for an audit results file on disk in which every embedding call answered."""
    try:
        return not _lost_calls(read_audit_results(path))
    except RagauditError:  # missing, unreadable or another kind: not a good audit to keep
        return False


def publish_audit(path: Path, results: dict, *, allow_failed_calls: bool = False) -> Published:
    """Write the audit by the matrix's rule (results.publish): cases that lost an embedding
    call send it to `<stem>.failed.json` and leave the good file; a good audit replaces it,
    the good file it held kept as `<stem>.prev.json`."""
    return publish_document(
        path,
        results,
        lost=_lost_calls(results),
        is_good_file=_is_good_audit_file,
        write=lambda target, document: write_results(document, target),
        allow_failed_calls=allow_failed_calls,
        lost_words="cases lost embedding calls",
    )


def structure_words(structure: dict) -> tuple[str, list[str]]:
    """The structural check in words, for the table and the Audit page alike: the counts,
    and one flag per intent asked only one way."""
    counts = f"{structure['entries']} entries, {structure['distinct_phrasings']} distinct phrasings"
    flags = [
        f"intent {intent} is asked only one way: it is tested from one angle"
        for intent in structure["single_phrasing_intents"]
    ]
    return counts, flags


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _rank(source: dict) -> str:
    if source["rank"] is None:
        return "—"
    return str(source["rank"])


def render_table(results: dict) -> list[str]:
    """The terminal report, line by line."""
    lines = _inputs_lines(results)
    index = results["index"]
    if index is None:
        lines.append(f"index: none ({results.get('index_reason')})")
        lines.extend(_dilution_lines(results.get("dilution")))
        return lines
    split = index.get("split")
    split_text = (
        f"; {split['split']} documents split into {split['children']} subsections" if split else ""
    )
    lines.append(
        f"index: {index['indexed']} of {index['chunks']} chunks indexed "
        f"({index['chunking']}{split_text})"
    )
    lines.append(f"window: {fmt_window(index)}")
    lines.extend(_case_lines(results))
    lines.extend(_intent_lines(results))
    lines.extend(_dilution_lines(results.get("dilution")))
    lines.extend(_summary_lines(results))
    return lines


def _inputs_lines(results: dict) -> list[str]:
    """The structural check and the corpus read: what the audit was given."""
    counts, flags = structure_words(results["structure"])
    lines = [f"structure: {counts}"]
    lines.extend(f"  [flag] {flag}" for flag in flags)
    return lines + corpus_lines(results["corpus"])


def corpus_lines(corpus: dict) -> list[str]:
    """The corpus read, with each file skipped and why (audit and mutate alike)."""
    lines = [f"corpus: {corpus['documents']} documents, {corpus['skipped_count']} files skipped"]
    for skipped in corpus["skipped"]:
        lines.append(f"  [skipped] {skipped['path']}: {skipped['reason']}")
    return lines


def _case_lines(results: dict) -> list[str]:
    """One row per phrasing × expected source: its rank, whether it made the top-k, the
    verdict; then the error of a failed call and the floor's note."""
    k = results["settings"]["values"]["k"]
    header = (
        f"{'case':<28} {'question':<40} {'expected source':<34} {'rank':>5} "
        f"{'top-' + str(k):>6}  verdict"
    )
    lines = ["", header, "-" * len(header)]
    for case in results["cases"]:
        verdict = {"pass": "pass", "fail": "FAIL", "failed_call": "FAILED CALL"}[case["status"]]
        for i, source in enumerate(case["sources"]):
            inside = "yes" if source["in_top_k"] else "no"
            if source["via_backfill"]:
                inside = "yes*"
            optional = "" if source["required"] else " (any)"
            lines.append(
                f"{_cut(case['case_id'], 28) if i == 0 else '':<28} "
                f"{_cut(case['question'], 40) if i == 0 else '':<40} "
                f"{_cut(source['source'] + optional, 34):<34} {_rank(source):>5} {inside:>6}  "
                f"{verdict if i == 0 else ''}"
            )
        if case["status"] == "failed_call":
            lines.append(f"{'':<28} error: {case['error']}")
        floor_line = _floor_note(case, results["settings"]["values"])
        if floor_line:
            lines.append(f"{'':<28} {floor_line}")
    if any(s["via_backfill"] for c in results["cases"] for s in c["sources"]):
        lines.append("  * reached the top-k only through the floor's backfill")
    return lines


def _intent_lines(results: dict) -> list[str]:
    """Per intent: phrasings passed, and each expected source's ranks across phrasings."""
    k = results["settings"]["values"]["k"]
    lines = ["", "per intent: spread of each expected source's rank across phrasings"]
    for intent in results["intents"]:
        lines.append(
            f"  {intent['intent']}: "
            f"{fmt_ratio(intent['passed'], intent['phrasings'])} phrasings pass"
            + ("  [flag] single phrasing" if intent["single_phrasing"] else "")
        )
        for row in intent["sources"]:
            ranks = ", ".join("—" if r is None else str(r) for r in row["ranks"].values())
            spread = f"spread {row['spread']}" if row["spread"] is not None else "spread unknown"
            flag = "  RED FLAG: a phrasing pushes it out of the top-k" if row["red_flag"] else ""
            lines.append(
                f"    {row['source']}: ranks {ranks} ({spread}); in top-{k} "
                f"{fmt_ratio(row['in_top_k_count'], row['phrasings'])}{flag}"
            )
    return lines


def _summary_lines(results: dict) -> list[str]:
    summary = results["summary"]
    lines = [
        "",
        f"summary: {fmt_ratio(summary['passed'], summary['cases'])} phrasings pass; "
        f"{summary['failed']} fail; {summary['failed_calls']} failed embedding calls "
        f"(kept in the denominator); {summary['passage_embedding_failures']} chunks "
        "could not be embedded",
    ]
    for failure in results["conditions"]["embedding_failures"]:
        lines.append(f"  [failed call] {failure['kind']} {failure['item']}: {failure['error']}")
    return lines


def _floor_note(case: dict, settings: dict) -> str | None:
    """The floor's story for one phrasing, when it had to act (the
    originating study's audit: "no statutes at all in the top twelve, so the floor had
    nothing to draw on")."""
    policy, floor = case.get("policy"), settings.get("floor")
    if not policy or not floor or not (policy["floor_unfilled"] or policy["floor_backfilled"]):
        return None
    reach = settings["backfill_range"] or settings["candidate_pool"]
    return (
        f"floor: {policy['floor_type_in_backfill_range']} {floor['source_type']} within the "
        f"first {reach} candidates; {policy['floor_backfilled']} backfilled, "
        f"{policy['floor_unfilled']} of {policy['floor_slots']} reserved slots left unfilled"
    )


def _dilution_lines(dilution: dict | None) -> list[str]:
    if not dilution:
        return []
    lines = ["", f"dilution: longest chunks of {dilution['chunking']} (subsection markers)"]
    for chunk in dilution["longest_chunks"]:
        verdict = "would split" if chunk["would_split"] else (chunk["excluded_by"] or "no markers")
        lines.append(
            f"  {chunk['chars']:>6} chars {chunk['markers']:>3} markers  {chunk['chunk_id']}"
            f"  [{verdict}]"
        )
    split = dilution["splitter"]
    lines.append(
        f"splitter: {split['split']} of {split['candidates']} documents with markers split "
        f"into {split['children']} subsections; {split['excluded']} excluded "
        f"({split['no_markers']} documents have no markers)"
    )
    for rule, count in split["excluded_by_rule"].items():
        lines.append(f"  excluded by {rule}: {count}")
    cap = dilution["per_source_cap"]
    lines.append(
        f"per-source cap: {cap} slots per source"
        if cap is not None
        else f"per-source cap: none ({dilution['per_source_cap_reason']})"
    )
    return lines
