"""Cases: review the cases `ragaudit cases` mined from your documents, then save the ones
you keep.

One cases file of the data folder's results folder at a time (ui.cases_files; `?cases=`
names one by its name in that listing). Its counts, then each intent: its phrasings,
answer and anchor, the checks the miner ran and what they found, whether the generator
knew the answer without context, and the sentence it came from highlighted in its
document. Each intent is accepted, rejected or left undecided, and may be edited; "Save
reviewed cases" writes the accepted ones to `results/<stem>.reviewed.yaml`
(ui.cases_review builds it), a file `ragaudit mutate` and `ragaudit audit` read.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ragaudit.errors import RagauditError
from ragaudit.results.format import fmt_ratio
from ragaudit.ui.allowed import Refused
from ragaudit.ui.cases_checks import check_rows, dropped_rows
from ragaudit.ui.cases_files import cases_files, read_cases, reviewed_path, write_reviewed
from ragaudit.ui.cases_review import (
    ACCEPT,
    DECISIONS,
    REJECT,
    UNDECIDED,
    Edit,
    as_written,
    edit_problem,
    edited_fields,
    reviewed_document,
)
from ragaudit.ui.cases_source import SourceText, corpus_documents, fact_html, source_text

QUERY_PARAM = "cases"
"""`?cases=NAME`: a cases file of the results folder, by its name in the listing."""
SAVE_KEY = "cases_save"


def render() -> None:
    """Draw the Cases page."""
    import streamlit as st

    from ragaudit import paths

    st.title("Cases: review mined cases")
    files = cases_files()
    if not files:
        st.write(f"No cases file in `{paths.results_dir()}` yet. Mine some from your documents:")
        st.code(f"ragaudit cases DOCS --out {paths.results_dir() / 'cases.yaml'}", language="bash")
        return
    path = _chosen(st, files)
    try:
        document = read_cases(path)
    except (RagauditError, OSError) as error:
        st.error(f"Cannot show {path.name}: {error}")
        return
    _counts(st, document)
    documents, problem = corpus_documents(document)
    decisions, edits, texts = {}, {}, {}
    for intent in document["intents"]:
        name = intent["intent"]
        source = source_text(intent, documents, problem)
        decisions[name], edits[name] = _intent(st, path.name, intent, source)
        texts[name] = source.text
    _save(st, path, document, decisions, edits, texts)


def _chosen(st, files: list[Path]) -> Path:
    """The file the session reviews: the selectbox's, first set from `?cases=` when that
    names a listed file; the choice is mirrored into the URL."""
    names = [path.name for path in files]
    asked = st.query_params.get(QUERY_PARAM)
    if asked and asked not in names:
        st.caption(f"`?{QUERY_PARAM}={asked}` is not a cases file of the results folder.")
    index = names.index(asked) if asked in names else 0
    name = st.selectbox("Cases file", names, index=index, key="cases_file")
    st.query_params[QUERY_PARAM] = name
    return files[names.index(name)]


def _counts(st, document: Mapping) -> None:
    """The miner's counts, each over its denominator through the one formatter: the
    candidates checked of those mined, and what became of those checked."""
    counts = document.get("counts") or {}
    candidates = int(counts.get("candidates") or 0)
    checked = int(counts.get("checked", candidates) or 0)  # a file without it: all were
    kept = int(counts.get("kept", len(document["intents"])) or 0)
    known = int(counts.get("known_without_context") or 0)
    unverified = int(counts.get("unverified") or 0)
    parts = [f"**{candidates} candidates**"]
    if "checked" in counts:
        parts.append(f"checked {fmt_ratio(checked, candidates)}")
    parts += [f"kept {fmt_ratio(kept, checked)}", f"unverified {fmt_ratio(unverified, checked)}",
              f"known without context {fmt_ratio(known, kept)} of kept"]  # fmt: skip
    st.markdown(" · ".join(parts))
    rejected = counts.get("rejected") or {}
    if rejected:
        reasons = (f"{reason} {fmt_ratio(int(n), checked)}" for reason, n in rejected.items())
        st.markdown(f"Rejected: {' · '.join(reasons)}")
    for listed, title in (("rejected", "Rejected candidates"), ("unverified", "Unverified")):
        if document.get(listed):
            with st.expander(f"{title} ({len(document[listed])})"):
                st.dataframe(dropped_rows(document[listed]), hide_index=True, width="stretch")
    generated = document.get("generated_by") or {}
    generator = (generated.get("generator") or {}).get("spec") or "none (templates)"
    corpus = (generated.get("corpus") or {}).get("path")
    st.caption(f"Mined from `{corpus}` · generator {generator} · seed {generated.get('seed')}")


def _intent(st, file: str, intent: Mapping, source: SourceText) -> tuple[str, Edit]:
    """One intent's card: what it is, its checks, its source, and the reviewer's controls."""
    name = intent["intent"]
    key = f"cases:{file}:{name}"
    provenance = intent.get("provenance") or {}
    with st.container(border=True):
        st.subheader(name)
        written = as_written(intent)
        st.markdown(f"**Answer** `{written.answer}` · **anchor** `{written.anchor}`")
        st.markdown("\n".join(f"{i}. {q}" for i, q in enumerate(written.phrasings, 1)))
        expected = intent.get("expect") or intent.get("expect_any") or []
        st.caption(
            f"expects {', '.join(map(str, expected))} · {provenance.get('method', 'method?')}"
            f" · language {provenance.get('language', '?')}"
        )
        _known(st, intent, provenance)
        _checks(st, provenance.get("checks") or {})
        _source(st, intent, source)
        decision = st.radio(
            f"Decision on {name}", DECISIONS, key=f"{key}:decision", horizontal=True
        )
        edit = _editor(st, key, name, written)
        if edited_fields(intent, edit):
            problem = edit_problem(edit, source.text, source.doc_id)
            if problem:
                st.error(f"Edit not valid: {problem}")
            else:
                st.caption(f"Edited: {', '.join(edited_fields(intent, edit))}.")
    return decision, edit


def _known(st, intent: Mapping, provenance: Mapping) -> None:
    known = intent.get("known_without_context")
    if known:
        generator = (provenance.get("generator") or {}).get("spec") or "the generator"
        st.warning(
            f"Known without context: {generator} answered it with no document, so this case "
            "says little about retrieval."
        )
    else:
        st.caption(f"known_without_context: {'unknown' if known is None else 'false'}")


def _checks(st, checks: Mapping) -> None:
    """Each check the miner ran, its outcome and what it recorded."""
    rows = check_rows(checks)
    if rows:
        st.dataframe(rows, hide_index=True, width="stretch")


def _source(st, intent: Mapping, source: SourceText) -> None:
    recorded = (intent.get("provenance") or {}).get("source") or {}
    if source.problem is not None or source.text is None:
        st.warning(f"Source not drawn: {source.problem}")
        if recorded.get("sentence"):
            st.markdown(f"> {recorded['sentence']}")
        return
    heading = recorded.get("heading")
    st.caption(
        f"Source `{source.doc_id}`, answer at characters {recorded['start']}–{recorded['end']}"
        + (f", under “{heading}”" if heading else "")
    )
    st.markdown(fact_html(source.text, recorded), unsafe_allow_html=True)


def _editor(st, key: str, name: str, written: Edit) -> Edit:
    """The intent's fields as the reviewer has them (the file's until edited)."""
    with st.expander(f"Edit {name}: phrasings, answer, anchor"):
        phrasings = tuple(
            st.text_input(f"Phrasing {i}", value=q, key=f"{key}:phrasing:{i}")
            for i, q in enumerate(written.phrasings, 1)
        )
        answer = st.text_input("Answer", value=written.answer, key=f"{key}:answer")
        anchor = st.text_input("Anchor", value=written.anchor, key=f"{key}:anchor")
    return Edit(phrasings, answer, anchor)


def _save(st, path: Path, document: Mapping, decisions: dict, edits: dict, texts: dict) -> None:
    """The review's tally and the button writing the accepted intents."""
    total = len(document["intents"])
    tally = {d: sum(1 for v in decisions.values() if v == d) for d in DECISIONS}
    st.subheader("Save")
    st.markdown(
        f"Accepted {fmt_ratio(tally[ACCEPT], total)} · rejected "
        f"{fmt_ratio(tally[REJECT], total)} · undecided {fmt_ratio(tally[UNDECIDED], total)}"
        " (only accepted intents are written)"
    )
    target = reviewed_path(path)
    st.caption(f"Writes `{target}`" + (", replacing it." if target.exists() else "."))
    if not st.button("Save reviewed cases", key=SAVE_KEY, type="primary"):
        return
    if not tally[ACCEPT]:
        st.error("Nothing saved: accept at least one intent (a cases file holds one or more).")
        return
    problems = []
    for intent in document["intents"]:
        name = intent["intent"]
        source = (intent.get("provenance") or {}).get("source") or {}
        if decisions[name] == ACCEPT and edited_fields(intent, edits[name]):
            problem = edit_problem(edits[name], texts[name], str(source.get("doc_id")))
            problems += [f"{name}: {problem}"] if problem else []
    if problems:
        st.error("Nothing saved: " + "; ".join(problems))
        return
    try:
        written = write_reviewed(path, reviewed_document(document, decisions, edits, texts))
    except (Refused, OSError) as error:
        st.error(f"Nothing saved: {error}")
        return
    st.success(f"Saved {tally[ACCEPT]} accepted intents to `{written}`.")
