"""The report: every figure and every quoted reply is read from the results file.

Sections are built once as blocks (headings, paragraphs, tables, lists, quotes) and
rendered to Markdown or HTML, so the two formats cannot disagree.
"""

from __future__ import annotations

import math

Block = tuple
NOT_RUN = "not run"
QUOTED_VERDICTS = (
    "trap_taken",
    "labels_only",
    "partial_list",
    "denied_record",
    "wrong",
    "empty",
    "abstained",
    "failed_call",
)
OUTCOME_VERDICTS = ("correct", *QUOTED_VERDICTS)


def percent(rate: float) -> int:
    """A rate as a whole percentage, halves rounded up (not to even)."""
    return int(math.floor(rate * 100 + 0.5))


def fmt_measure(m: dict | None, *, interval: bool = False) -> str:
    """`76% 19/25`, optionally with its Wilson interval; `n/a` for a null measure."""
    if m is None:
        return "n/a"
    text = f"{percent(m['rate'])}% {m['count']}/{m['n']}"
    if interval:
        lo, hi = m["wilson"]
        text += f" [{percent(lo)}–{percent(hi)}%]"
    return text


def fmt_p(p: float | None) -> str:
    """A p-value to four decimals."""
    return "n/a" if p is None else ("< 0.0001" if p < 0.0001 else f"{p:.4f}")


def config_names(results: dict) -> list[str]:
    """Config names in the results file's order."""
    return [c["name"] for c in results.get("configs") or []]


def cell_index(results: dict) -> dict:
    """Cells keyed by (probe, config, embedder)."""
    return {(c["probe"], c["config"], c["embedder"]): c for c in results.get("cells") or []}


def embedder_specs(results: dict) -> list[str]:
    """Embedder specs, declared ones first."""
    specs = [e["spec"] for e in results.get("embedders") or []]
    return specs + sorted({c["embedder"] for c in results.get("cells") or []} - set(specs))


def probes_of(results: dict, embedder: str, *, layer: str | None = None, skip: str | None = None):
    """(probe, layer) pairs with cells under `embedder`, optionally by layer."""
    seen: dict[str, str] = {}
    for cell in results.get("cells") or []:
        if cell["embedder"] == embedder:
            seen.setdefault(cell["probe"], cell.get("layer") or "")
    return [
        (p, lay)
        for p, lay in seen.items()
        if (layer is None or lay == layer) and (skip is None or lay != skip)
    ]


def uncertified(results: dict, embedder: str) -> bool:
    """True unless the embedder's controls ran and passed."""
    cert = (results.get("control_certification") or {}).get(embedder) or {}
    return not cert.get("certified", False)


def probe_table(results: dict, embedder: str, measure: str, probes: list) -> Block:
    """Probe x config table of one measure in the seed's form; `not run` where not run."""
    cells = cell_index(results)
    configs = config_names(results)
    rows = []
    for probe, layer in probes:
        row = [probe, layer]
        for config in configs:
            cell = cells.get((probe, config, embedder))
            if cell is None or (measure != "gold_in_context" and not cell.get("generated")):
                row.append(NOT_RUN)
            else:
                row.append(fmt_measure(cell["measures"].get(measure)))
        rows.append(row)
    return ("table", ["Probe", "Layer", *configs], rows)


def _header(results: dict) -> list[Block]:
    corpus = results.get("corpus") or {}
    run = results.get("run") or {}
    generator = (results.get("generator") or {}).get("spec") or "none (generation not run)"
    embedders = ", ".join(
        f"{e['spec']} ({e.get('role', 'embedder')})" for e in results.get("embedders") or []
    )
    return [
        ("h", 1, "ragaudit report"),
        (
            "p",
            f"Rendered from the results file written {results.get('created_at')} "
            f"(schema {results.get('schema_version')}, preset {run.get('preset')}, "
            f"complete: {str(results.get('complete')).lower()}). Corpus seed "
            f"{corpus.get('seed')}, {corpus.get('n')} instances per probe, "
            f"{corpus.get('documents')} documents, manifest sha256 {corpus.get('sha256')}.",
        ),
        ("p", f"Generator: {generator}. Embedders: {embedders}."),
        (
            "p",
            f"Generation ran on configs {', '.join(run.get('gen_configs') or []) or 'none'}"
            f", probes: {', '.join(run.get('gen_probes') or []) or 'every probe'}."
            if run.get("generate", bool(results.get("generator")))
            else "Generation was not run.",
        ),
    ]


def _conditions(results: dict) -> list[Block]:
    cond = results.get("conditions") or {}
    calls = cond.get("calls") or {}
    elapsed = cond.get("elapsed_seconds")
    timing = (
        f"Elapsed: {elapsed} seconds."
        if elapsed is not None
        else f"Elapsed time withheld: {cond.get('elapsed_seconds_reason') or 'no reason recorded'}."
    )
    seen = cond.get("contention_seen") or {}
    configured = "yes" if cond.get("contention_detection_configured") else "no"
    contention = (
        f"Contention detection configured: {configured}"
        f" (pattern from {cond.get('contention_pattern_env')}); seen before: "
        f"{', '.join(seen.get('before') or []) or 'nothing'}; after: "
        f"{', '.join(seen.get('after') or []) or 'nothing'}."
    )
    rows = [
        [
            m.get("spec"),
            m.get("kind"),
            m.get("name"),
            m.get("digest")
            if m.get("digest") != "unavailable"
            else f"unavailable: {m.get('digest_reason')}",
        ]
        for m in results.get("models") or []
    ]
    blocks = [
        ("h", 2, "Conditions"),
        (
            "p",
            f"Model calls: {calls.get('replayed')} replayed from cache, "
            f"{calls.get('computed')} computed, {calls.get('failed')} failed.",
        ),
        ("p", timing),
        ("p", contention),
        ("table", ["Model", "Kind", "Name", "Digest"], rows),
    ]
    failed = cond.get("failed_calls") or []
    if failed:
        items = [
            f"{f.get('model')} ({f.get('kind')}): {f.get('error')} — "
            f"{', '.join(f.get('instance_keys') or [])}"
            for f in failed
        ]
        blocks += [("p", "Failed model calls, kept in every denominator:"), ("ul", items)]
    return blocks


def _controls(results: dict) -> list[Block]:
    blocks: list[Block] = [
        ("h", 2, "Controls"),
        (
            "p",
            "Controls are ordinary questions whose answer sits inside one chunk. An embedder "
            "is certified only if its control cells ran and passed; cells under an "
            "uncertified embedder are marked so.",
        ),
    ]
    for embedder in embedder_specs(results):
        cert = (results.get("control_certification") or {}).get(embedder) or {}
        if cert.get("certified"):
            verdict = (
                f"certified: every control cell reached at least {percent(cert['pass_rate'])}%"
            )
        else:
            failing = ", ".join(cert.get("failing_cells") or [])
            verdict = f"not certified: {cert.get('reason')}" + (f" ({failing})" if failing else "")
        blocks += [("h", 3, f"Controls, {embedder}"), ("p", f"{embedder}: {verdict}.")]
        controls = probes_of(results, embedder, layer="control")
        if controls:
            blocks.append(probe_table(results, embedder, "gold_in_context", controls))
            if any(c.get("generated") for c in results["cells"] if c["embedder"] == embedder):
                blocks.append(("h", 3, f"Correct answers on the controls, {embedder}"))
                blocks.append(probe_table(results, embedder, "correct", controls))
    return blocks


def _retrieval(results: dict) -> list[Block]:
    blocks: list[Block] = [
        ("h", 2, "Retrieval: did the evidence reach the model"),
        ("p", "Share of instances whose gold span was whole inside a retrieved chunk."),
    ]
    for embedder in embedder_specs(results):
        probes = probes_of(results, embedder, skip="control")
        if probes:
            mark = " (uncertified)" if uncertified(results, embedder) else ""
            blocks.append(("h", 3, f"{embedder}{mark}"))
            blocks.append(probe_table(results, embedder, "gold_in_context", probes))
    return blocks


def _generation(results: dict) -> list[Block]:
    blocks: list[Block] = [("h", 2, "Generation: was the answer right")]
    generated = [c for c in results.get("cells") or [] if c.get("generated")]
    if not generated:
        return blocks + [("p", "Generation did not run in this results file.")]
    for embedder in embedder_specs(results):
        if not any(c["embedder"] == embedder for c in generated):
            continue
        mark = " (uncertified)" if uncertified(results, embedder) else ""
        probes = [p for p in probes_of(results, embedder)]
        blocks.append(("h", 3, f"Correct answers, {embedder}{mark}"))
        blocks.append(probe_table(results, embedder, "correct", probes))
    rows = []
    for cell in generated:
        m = cell["measures"]
        rows.append(
            [cell["probe"], cell["config"], cell["embedder"]]
            + [fmt_measure(m.get(v)) for v in OUTCOME_VERDICTS]
        )
    blocks += [
        ("h", 3, "How the answers came out"),
        (
            "p",
            "correct counts answers graded right (on an unanswerable question the right "
            "answer is an abstention, so it also counts under abstained); every other column "
            "is one verdict. An empty reply is neither an abstention nor a wrong value; a "
            "failed call is neither, and stays in the count.",
        ),
        ("table", ["Probe", "Config", "Embedder", *OUTCOME_VERDICTS], rows),
    ]
    return blocks


def _quotes(results: dict) -> list[Block]:
    rule = (results.get("analysis") or {}).get("quote_rule")
    blocks: list[Block] = [("h", 2, "Replies, quoted by rule"), ("p", f"Rule: {rule}.")]
    for verdict in QUOTED_VERDICTS:
        record = next(
            (
                r
                for r in results.get("instances") or []
                if (r.get("grade") or {}).get("verdict") == verdict
            ),
            None,
        )
        if record is None:
            blocks.append(("p", f"{verdict}: no instance has this verdict."))
            continue
        generation = record.get("generation") or {}
        check = (record.get("citation_check") or {}).get("outcome")
        cited = ", ".join(generation.get("citations") or []) or "nothing"
        blocks.append(
            (
                "p",
                f"{verdict}: {record['key']} (branch {record['grade'].get('branch')}; "
                f"citation check: {check}; cited: {cited}).",
            )
        )
        reply = generation.get("reply")
        if generation.get("status") == "failed_call":
            blocks.append(("quote", f"(no reply: {generation.get('error')})"))
        else:
            blocks.append(("quote", reply if reply and reply.strip() else "(empty reply)"))
    return blocks


def _patterns(results: dict) -> list[Block]:
    patterns = results.get("grading_patterns") or {}
    blocks: list[Block] = [
        ("h", 2, "Grading patterns"),
        (
            "p",
            "Abstention and denial-of-record verdicts come from these regular expressions, "
            "matched case-insensitively. A reply worded otherwise is missed, and a match is "
            "not proof on its own: read the quoted replies.",
        ),
    ]
    for name, regexes in patterns.items():
        blocks += [("p", f"{name}:"), ("ul", [f"`{regex}`" for regex in regexes])]
    return blocks


def report_blocks(results: dict) -> list[Block]:
    """All sections, in reading order: conditions and controls first."""
    from ragaudit.report.findings import (
        citation_section,
        comparisons_section,
        detectability_section,
        severity_section,
    )

    blocks: list[Block] = []
    for section in (
        _header,
        _conditions,
        _controls,
        _retrieval,
        _generation,
        _quotes,
        _patterns,
        comparisons_section,
        detectability_section,
        citation_section,
        severity_section,
    ):
        blocks.extend(section(results))
    return blocks


def render_markdown(results: dict) -> str:
    """The report as Markdown."""
    from ragaudit.report.render import blocks_to_markdown

    return blocks_to_markdown(report_blocks(results))


def render_html(results: dict) -> str:
    """The report as one self-contained HTML page."""
    from ragaudit.report.render import blocks_to_html

    return blocks_to_html(report_blocks(results), title="ragaudit report")


def render_tables(results: dict) -> str:
    """The probe x config tables (controls, retrieval, generation, severity) for stdout."""
    from ragaudit.report.render import blocks_to_markdown

    keep = [b for b in report_blocks(results) if b[0] in ("h", "table") and b[0:2] != ("h", 1)]
    tables = []
    for i, block in enumerate(keep):
        if block[0] == "table" and block[1][:2] == ["Probe", "Layer"]:
            heading = next((b for b in reversed(keep[:i]) if b[0] == "h"), None)
            tables += [heading, block] if heading else [block]
    return blocks_to_markdown([b for b in tables if b])
