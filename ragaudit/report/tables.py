"""The report's sections on how the run went and what it measured: header, conditions,
controls, retrieval, generation, quoted replies, grading patterns. Each returns blocks
(see report.render); every figure and every quoted reply is read from the results file.
"""

from __future__ import annotations

from ragaudit.report.render import Block
from ragaudit.results import view
from ragaudit.results.format import (
    fmt_cell,
    fmt_contention,
    fmt_elapsed,
    fmt_generation_tokens,
    fmt_measure,
    fmt_model_calls,
    percent,
)

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


def probe_table(results: dict, embedder: str, measure: str, probes: list[str]) -> Block:
    """Probe x config table of one measure in the originating study's form; `not run` where
    not run. The user's stack is a column beside the configs, under its own embedder
    (view.matrix_columns)."""
    columns = view.matrix_columns(results, embedder)
    cells = view.column_cells(results, probes, columns)
    layers = view.probe_layers(results)
    rows = [
        [probe, layers[probe]] + [fmt_cell(cells[(probe, c.label)], measure) for c in columns]
        for probe in probes
    ]
    return ("table", ["Probe", "Layer", *(c.label for c in columns)], rows)


def title_section(results: dict) -> list[Block]:
    """The report's title."""
    return [("h", 1, "ragaudit report")]


def rendered_from(results: dict) -> str:
    """The report's first words on its results file: when it was written, its schema,
    preset and completeness."""
    run = results.get("run") or {}
    return (
        f"Rendered from the results file written {results.get('created_at')} "
        f"(schema {results.get('schema_version')}, preset {run.get('preset')}, "
        f"complete: {str(results.get('complete')).lower()})."
    )


def models_line(results: dict) -> str:
    """The generator and the embedders the run named."""
    generator = (results.get("generator") or {}).get("spec") or "none (generation not run)"
    embedders = ", ".join(
        f"{e['spec']} ({e.get('role', 'embedder')})" for e in results.get("embedders") or []
    )
    return f"Generator: {generator}. Embedders: {embedders}."


def header_section(results: dict) -> list[Block]:
    """What the report was rendered from: run, corpus, models."""
    corpus = results.get("corpus") or {}
    run = results.get("run") or {}
    return [
        ("h", 2, "The run"),
        (
            "p",
            f"{rendered_from(results)} Corpus seed {corpus.get('seed')}, {corpus.get('n')} "
            f"instances per probe, {corpus.get('documents')} documents, manifest sha256 "
            f"{corpus.get('sha256')}.",
        ),
        ("p", models_line(results)),
        (
            "p",
            f"Generation ran on configs {', '.join(run.get('gen_configs') or []) or 'none'}"
            f", probes: {', '.join(run.get('gen_probes') or []) or 'every probe'}."
            if run.get("generate", bool(results.get("generator")))
            else "Generation was not run.",
        ),
    ]


def _generation_cost(results: dict) -> list[Block]:
    """The tokens generation cost, for a run that generated."""
    counts = (results.get("run") or {}).get("generation_counts")
    return [("p", fmt_generation_tokens(counts))] if counts else []


def _unmatched_contexts(results: dict) -> list[Block]:
    """Each pipeline column's contexts that match no document, as its run recorded them."""
    indexes = (results.get("run") or {}).get("indexes") or []
    return [
        ("p", f"{index.get('embedder')}: {index['unmatched_line']}.")
        for index in indexes
        if isinstance(index, dict) and index.get("unmatched_line")
    ]


def conditions_section(results: dict) -> list[Block]:
    """How the run went: model calls, timing, contention, and each model's digest."""
    cond = results.get("conditions") or {}
    timing, contention = fmt_elapsed(cond), fmt_contention(cond)
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
        ("p", fmt_model_calls(cond)),
        ("p", timing),
        ("p", contention),
        *_generation_cost(results),
        ("table", ["Model", "Kind", "Name", "Digest"], rows),
        *_unmatched_contexts(results),
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


def controls_section(results: dict) -> list[Block]:
    """Each embedder's control certification and the control tables."""
    blocks: list[Block] = [
        ("h", 2, "Controls"),
        (
            "p",
            "Controls are ordinary questions whose answer sits inside one chunk. An embedder "
            "is certified only if its control cells ran and passed; cells under an "
            "uncertified embedder are marked so.",
        ),
    ]
    for embedder in view.embedder_specs(results):
        cert = view.certification(results, embedder) or {}
        if cert.get("certified"):
            verdict = (
                f"certified: every control cell reached at least {percent(cert['pass_rate'])}%"
            )
        else:
            failing = ", ".join(cert.get("failing_cells") or [])
            reason = cert.get("reason") or "no control verdict recorded"
            verdict = f"not certified: {reason}" + (f" ({failing})" if failing else "")
        blocks += [("h", 3, f"Controls, {embedder}"), ("p", f"{embedder}: {verdict}.")]
        controls = view.probes_for(results, embedder, layer="control")
        if controls:
            blocks.append(probe_table(results, embedder, "gold_in_context", controls))
            if any(c.get("generated") for c in results["cells"] if c["embedder"] == embedder):
                blocks.append(("h", 3, f"Correct answers on the controls, {embedder}"))
                blocks.append(probe_table(results, embedder, "correct", controls))
    return blocks


def retrieval_section(results: dict) -> list[Block]:
    """Gold in context per probe x config, one table per embedder."""
    blocks: list[Block] = [
        ("h", 2, "Retrieval: did the evidence reach the model"),
        ("p", "Share of instances whose gold span was whole inside a retrieved chunk."),
    ]
    for embedder in view.table_embedders(results):
        columns = view.matrix_columns(results, embedder)
        probes = view.column_probes(results, columns, skip="control")
        if probes:
            mark = " (uncertified)" if view.uncertified(results, embedder) else ""
            blocks.append(("h", 3, f"Gold in context, {embedder}{mark}"))
            blocks.append(probe_table(results, embedder, "gold_in_context", probes))
    return blocks


def generation_section(results: dict) -> list[Block]:
    """Correct answers per probe x config, and every verdict's share per generated cell."""
    blocks: list[Block] = [("h", 2, "Generation: was the answer right")]
    generated = [c for c in results.get("cells") or [] if c.get("generated")]
    if not generated:
        return blocks + [("p", "Generation did not run in this results file.")]
    for embedder in view.table_embedders(results):
        columns = view.matrix_columns(results, embedder)
        shown = {(c.config, c.embedder) for c in columns}
        if not any((c["config"], c["embedder"]) in shown for c in generated):
            continue
        mark = " (uncertified)" if view.uncertified(results, embedder) else ""
        probes = view.column_probes(results, columns)
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


def quotes_section(results: dict) -> list[Block]:
    """One reply quoted per verdict, chosen by the recorded quote rule."""
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


def patterns_section(results: dict) -> list[Block]:
    """The regular expressions behind the abstention and denial verdicts."""
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
