"""Instance: one cell's instances, and one instance under one config explained in full."""

from __future__ import annotations

from ragaudit.results.format import (
    APPROXIMATE_SPAN,
    fmt_approximate_boxes,
    fmt_cell,
    fmt_diagnostic,
)
from ragaudit.results.view import (
    cell_index,
    cell_records,
    chunking_of,
    column_for,
    column_probes,
    config_by_name,
    config_names,
    embedder_specs,
    is_mutation_audit,
    matrix_columns,
    phrasing_name,
    span_exact,
    verdict_of,
)
from ragaudit.stack.diagnostics import diagnostic_fields
from ragaudit.ui import links, mutant_record
from ragaudit.ui.attribution import render_oracle
from ragaudit.ui.common import results_or_stop
from ragaudit.ui.docview import (
    chunk_boxes,
    document_text,
    highlighted_html,
    spans_of,
    timeline_figure,
)
from ragaudit.ui.downloads import render_instance_downloads
from ragaudit.ui.instance_flips import render_flips
from ragaudit.ui.planted_diff import planted_view, render_planted
from ragaudit.ui.windows import retrieved_window_note, retrieved_window_tags


def _label(record: dict) -> str:
    gold = record.get("gold_in_context")
    arrived = "gold arrived" if gold else ("gold missed" if gold is False else "no gold")
    return f"{record['instance_id']} · {arrived} · {verdict_of(record)}"


def held_roles(hit: dict, spans: list[dict], fallback: str) -> list[str]:
    """`holds <role>` for each distinct role of the spans lying whole inside the hit."""
    roles = [
        s.get("role") or fallback
        for s in spans
        if s["doc_id"] == hit["doc_id"] and hit["start"] <= s["start"] and hit["end"] >= s["end"]
    ]
    return [f"holds {role}" for role in dict.fromkeys(roles)]


def render() -> None:
    """Draw the Instance page."""
    import streamlit as st

    st.title("Instance")
    results = results_or_stop("instance")
    table_embedder, probe, config = _choose_cell(results)
    embedder = column_for(results, config, table_embedder).embedder  # a stack's own
    records = cell_records(results, probe, config, embedder) if probe else []
    if not records:
        st.write(f"Not run: no records for {probe} × {config} under {embedder}.")
        return
    mutation = is_mutation_audit(results)
    cell = cell_index(results).get((probe, config, embedder))
    head = f"**{probe} × {config}** under `{embedder}`: "
    if mutation:  # a cell of operator x column: its mutation score, not a matrix rate
        st.markdown(head + mutant_record.cell_line(results, probe))
    else:
        st.markdown(
            head + f"gold in context {fmt_cell(cell, 'gold_in_context')}"
            f" · span preserved {fmt_cell(cell, 'span_preserved')}"
            f" · answer correct {fmt_cell(cell, 'correct')}"
        )
    table = st.dataframe(
        [
            mutant_record.table_row(results, r, verdict_of(r)) if mutation else _row(r)
            for r in records
        ],
        hide_index=True,
        width="stretch",
        height=min(36 * (len(records) + 1) + 4, 260),
        key="instance_table",
        on_select="rerun",
        selection_mode="single-row",
    )
    by_id = {phrasing_name(r): r for r in records}
    links.bind("instance_instance", "instance", list(by_id))
    _open_selected_row(table, records)
    label = (lambda r: mutant_record.label(results, r)) if mutation else _label
    instance_id = st.selectbox(
        "Phrasing" if mutation else "Instance",
        list(by_id),
        key="instance_instance",
        format_func=lambda i: label(by_id[i]),
    )
    links.publish("instance_instance", "instance")
    record = by_id[instance_id]
    render_instance_downloads(results, probe, config, embedder, record["instance_id"])
    _render_record(results, record, config_by_name(results)[config], table_embedder)


def _row(record: dict) -> dict:
    """One row of a matrix cell's table."""
    return {
        "instance": record["instance_id"],
        "gold in context": fmt_diagnostic("gold_in_context", record.get("gold_in_context")),
        "span preserved": fmt_diagnostic("span_preserved", record.get("span_preserved")),
        "gold rank": fmt_diagnostic("gold_rank", record.get("gold_rank")),
        "margin": fmt_diagnostic("margin", record.get("margin")),
        "verdict": verdict_of(record),
    }


def _choose_cell(results: dict) -> tuple[str, str | None, str]:
    """The embedder, probe and config selectors, bound to the page's query parameters."""
    import streamlit as st

    embedders = embedder_specs(results)
    configs = config_names(results)
    links.bind("instance_embedder", "embedder", embedders)
    cols = st.columns(3)
    with cols[0]:
        embedder = st.selectbox("Embedder", embedders, key="instance_embedder")
    probes = column_probes(results, matrix_columns(results, embedder))
    links.bind("instance_probe", "probe", probes)
    links.bind("instance_config", "config", configs)
    with cols[1]:
        probe = st.selectbox("Probe", probes, key="instance_probe")
    with cols[2]:
        config = st.selectbox("Config", configs, key="instance_config")
    links.publish_all(
        {"instance_embedder": "embedder", "instance_probe": "probe", "instance_config": "config"}
    )
    return embedder, probe, config


def _open_selected_row(table, records: list[dict]) -> None:
    """A newly selected table row opens that instance (the selection persists, so only a
    change of selection moves the instance selectbox)."""
    import streamlit as st

    rows = list(((table or {}).get("selection") or {}).get("rows") or [])
    chosen = phrasing_name(records[rows[0]]) if rows and rows[0] < len(records) else None
    if chosen is not None and chosen != st.session_state.get("_instance_table_last"):
        st.session_state["instance_instance"] = chosen
    st.session_state["_instance_table_last"] = chosen


def _render_record(results: dict, record: dict, config: dict, table_embedder: str) -> None:
    import streamlit as st

    mutation = is_mutation_audit(results)
    against = f" against {record['meta']['mutant']}" if mutation else ""
    st.subheader(f"{phrasing_name(record)}{against} under {config['name']}")
    st.caption(config.get("description") or chunking_of(config))
    if mutation:
        mutant_record.render_mutant_head(results, record)
    st.markdown(f"**Question.** {record['question']}")
    gold = record.get("gold_answer")
    none = "none: the mutant removed it" if mutation else "none: unanswerable"
    st.markdown(
        f"**Gold answer.** {', '.join(gold) if isinstance(gold, list) else gold if gold else none}"
    )
    for span in record.get("gold_spans") or []:
        st.markdown(
            f"**Gold sentence** (`{span['doc_id']}` chars {span['start']}–{span['end']}): "
            f"{span['text']}"
        )
    for span in record.get("trap_spans") or []:
        st.markdown(f"**Trap** (`{span['doc_id']}`): {span['text']}")
    if record.get("retrieval_error"):
        st.error(f"Retrieval failed for this record: {record['retrieval_error']}")

    planted = planted_view(results, record)  # a mutation audit's record: what was planted
    if planted is not None:
        render_planted(results, record)
    _render_documents(results, record, config, drawn=planted.doc_id if planted else None)
    if mutation:
        mutant_record.render_phrasings(results, record)
    _render_retrieved(results, record)
    st.markdown("**Diagnostics and margins**")
    st.dataframe(
        [
            {
                "measure": name,
                "value": fmt_diagnostic(name, record.get(name)),
            }
            for name in diagnostic_fields()  # in record order
            if name in record
        ],
        hide_index=True,
    )
    _render_generation(record)
    render_oracle(results, record)
    if mutation:  # one column: the phrasing under every operator instead of every config
        mutant_record.render_across_operators(results, record)
    else:
        render_flips(results, record, table_embedder)


def _render_documents(results: dict, record: dict, config: dict, drawn: str | None = None) -> None:
    """The record's answer-bearing documents and those its spans lie in (but `drawn`, the
    mutant document its planted diff has drawn already)."""
    import streamlit as st

    chunking = record.get("chunking") or chunking_of(config)
    doc_ids = list(record.get("answer_doc_ids") or [])
    for span in (record.get("trap_spans") or []) + (record.get("gold_spans") or []):
        if span["doc_id"] not in doc_ids:
            doc_ids.append(span["doc_id"])
    doc_ids = [d for d in doc_ids if d != drawn]
    if not doc_ids:
        if drawn is not None:
            return
        st.write("No answer-bearing document: this question has no answer in the corpus.")
        return
    for doc_id in doc_ids[:3]:
        _render_document(results, record, doc_id, chunking, expanded=len(doc_ids) == 1)
    if len(doc_ids) > 3:
        st.caption(f"{len(doc_ids) - 3} more answer-bearing documents not drawn.")


def _render_document(
    results: dict, record: dict, doc_id: str, chunking: str, *, expanded: bool
) -> None:
    """One document: its recorded chunk boundaries over the record's spans, then its text."""
    import streamlit as st

    spans = spans_of(record, doc_id)
    doc = document_text(results, doc_id, spans)
    boxes = chunk_boxes(results, doc_id, chunking, record.get("retrieved") or [])
    drawn = "its chunks are not recorded" if boxes is None else f"{len(boxes)} chunks drawn"
    st.markdown(
        f"**Document `{doc_id}` under `{chunking}`**: {drawn}; {_cut_verdict(record, spans)}."
    )
    if boxes is None:
        st.caption(
            f"This results file records no chunk offsets for {doc_id} under {chunking} "
            "(chunk_offsets), so its chunk boundaries are not drawn."
        )
        boxes = []
    if any(b.approximate for b in boxes):
        st.caption(fmt_approximate_boxes(sum(b.approximate for b in boxes), len(boxes)))
    if doc.source == "results":
        st.caption(
            f"Text pieced from the chunks the results file holds ({doc.missing}), so text "
            "outside the chunks it holds may be missing."
        )
    length = len(doc.text) if doc.text else max((b.end for b in boxes), default=1)
    st.plotly_chart(
        timeline_figure(boxes, spans, length, f"{doc_id} · {chunking}"),
        key=f"instance_doc_{doc_id}",
        config={"displayModeBar": False},
    )
    if doc.text:
        with st.expander(f"Text of `{doc_id}` with chunk edges", expanded=expanded):
            st.markdown(highlighted_html(doc.text, boxes, spans), unsafe_allow_html=True)
    else:
        st.caption(f"The text of {doc_id} is not in the results file, and {doc.missing}.")


def _cut_verdict(record: dict, spans: list[dict]) -> str:
    """What the record's span_preserved says about the gold spans in this document."""
    doc_ids = {s["doc_id"] for s in spans}
    gold = [s for s in record.get("gold_spans") or [] if s["doc_id"] in doc_ids]
    recorded = record.get("span_preserved")
    if not gold or recorded is None:
        return "no gold span in this document"
    if recorded:
        return "no gold span is cut (span_preserved: true)"
    return "the gold span is cut by a chunk boundary (span_preserved: false)"


def _render_retrieved(results: dict, record: dict) -> None:
    import streamlit as st

    hits = sorted(record.get("retrieved") or [], key=lambda h: h["rank"])
    st.markdown(f"**Retrieved chunks** ({len(hits)}, in rank order)")
    st.caption(retrieved_window_note(results, record))
    gold, trap = record.get("gold_spans") or [], record.get("trap_spans") or []
    chunks = results.get("chunks", {})
    for hit in hits:
        tags = held_roles(hit, gold, "gold") + held_roles(hit, trap, "trap")
        tags += retrieved_window_tags(results, record, hit)
        if not span_exact(chunks.get(hit["chunk_id"])):
            tags.append(APPROXIMATE_SPAN)  # its splitter rewrote it: start/end are a best fit
        bm25 = "" if hit.get("bm25_score") is None else f" · bm25 {hit['bm25_score']:.3f}"
        dense = "" if hit.get("dense_score") is None else f" · dense {hit['dense_score']:.4f}"
        label = f"rank {hit['rank']} · score {hit['score']:.4f}{dense}{bm25} · `{hit['chunk_id']}`"
        if tags:
            label += " · " + ", ".join(tags)
        with st.expander(label):
            text = chunks.get(hit["chunk_id"], {}).get("text")
            if text is None:
                st.caption("chunk text not in the results file")
            else:
                inside = [
                    s
                    for s in gold + trap
                    if s["doc_id"] == hit["doc_id"]
                    and hit["start"] <= s["start"]
                    and hit["end"] >= s["end"]
                ]
                local = [
                    dict(s, start=s["start"] - hit["start"], end=s["end"] - hit["start"])
                    for s in inside
                ]
                st.markdown(highlighted_html(text, [], local), unsafe_allow_html=True)


def _render_generation(record: dict) -> None:
    import streamlit as st

    generation, grade, check = (
        record.get("generation"),
        record.get("grade"),
        record.get("citation_check"),
    )
    st.markdown("**Model reply**")
    if generation is None:
        st.write("Generation did not run for this record.")
        return
    if generation.get("status") == "failed_call":
        st.error(
            f"The model call failed after retries: {generation.get('error')} (counted as "
            "failed_call)"
        )
    reply = generation.get("reply")
    st.code(reply if reply else "(empty reply)", language=None, wrap_lines=True)
    replay = "replayed from cache" if generation.get("replayed") else "computed"
    st.caption(
        f"{generation.get('generator')} · {replay} · citations: "
        f"{', '.join(generation.get('citations') or []) or 'none'}"
    )
    if grade:
        st.markdown(
            f"**Verdict** `{grade['verdict']}` (correct: {grade.get('correct')}) · branch "
            f"`{grade.get('branch')}`"
        )
    if check:
        st.markdown(f"**Citation check** `{check.get('outcome')}`: {check.get('detail') or ''}")
