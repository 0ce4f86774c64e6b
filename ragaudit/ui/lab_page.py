"""Lab: toggle k, chunk size, overlap, its rule, splitter and hybrid live over one probe.

The controls and what they change live in one `st.fragment`, so a toggle reruns only the
panel. Indexes and rankings are shared resources (see lab_engine), so k is a slice of a
stored ranking, and a chunking or hybrid setting seen once is instant.
"""

from __future__ import annotations

import time

from ragaudit import paths
from ragaudit.backends.catalogue import in_process_embedders
from ragaudit.corpus.files import manifest_sha256
from ragaudit.results.format import fmt_measure, fmt_ratio
from ragaudit.results.view import (
    cell_index,
    chunking_of,
    embedder_specs,
    is_mutation_audit,
    is_stack,
    recorded_corpus_path,
)
from ragaudit.stack.chunking import OVERLAP_RULES, Chunking
from ragaudit.stack.diagnostics import span_in
from ragaudit.ui import links
from ragaudit.ui.common import current_results
from ragaudit.ui.data import Loaded
from ragaudit.ui.lab_engine import (
    build_lab_index,
    diagnose_at_k,
    load_lab_corpus,
    probe_instances,
    probe_rankings,
    stack_refusal,
)
from ragaudit.ui.lab_timeline import render_instance_timeline, render_small_multiples

SIZES = [256, 512, 1000, 2000, 4000]
OVERLAPS = [0, 64, 128, 200, 400]
ALL_INSTANCES = "all instances"


def lab_index(embedder: str, chunking: str, n: int | None):
    """The shared live index for one chunking name (built once per server process)."""
    import streamlit as st

    @st.cache_resource(
        show_spinner="Chunking and embedding the corpus for this setting…", max_entries=8
    )
    def _cached(embedder: str, chunking: str, n: int | None, where: str):
        return build_lab_index(embedder, Chunking.from_name(chunking), n)

    return _cached(embedder, chunking, n, _where())


def _where() -> str:
    # Part of the cache keys: a different corpus or call cache is a different index.
    return f"{paths.corpus_dir()}|{paths.cache_path()}"


def lab_rankings(embedder: str, chunking: str, n: int | None, probe: str, hybrid: bool):
    """Rankings to the pool depth for every instance of `probe` (shared, built once)."""
    import streamlit as st

    @st.cache_resource(show_spinner="Ranking…", max_entries=64)
    def _cached(embedder, chunking, n, probe, hybrid, where):
        return probe_rankings(lab_index(embedder, chunking, n), probe, hybrid, n)

    return _cached(embedder, chunking, n, probe, hybrid, _where())


def render() -> None:
    """Draw the Lab page."""
    import streamlit as st

    st.title("Lab")
    st.caption(
        "Retrieval only, live over the committed corpus: nothing here is written to the "
        "results file."
    )
    loaded = current_results()  # once per rerun: each cached read is a copy of the file
    if loaded.results is not None and is_mutation_audit(loaded.results):
        st.info(mutation_audit_line(loaded.results))
        return
    try:
        n = _run_n(loaded)
        corpus = load_lab_corpus(n)
    except Exception as error:  # noqa: BLE001 - no corpus on disk: say so, no traceback
        st.error(f"The Lab needs the planted-fault corpus and could not load it: {error}")
        return
    probes = list(dict.fromkeys(i.probe for i in corpus.instances))
    if loaded.path is None:  # the link named a file the inspector may not open
        st.error(f"Not using this link's results: {loaded.problem}")
    embedders = list(
        dict.fromkeys(
            [*in_process_embedders(), *(embedder_specs(loaded.results) if loaded.results else [])]
        )
    )
    links.bind("lab_probe", "probe", probes)
    links.bind("lab_embedder", "embedder", embedders)
    col_probe, col_instance, col_embedder = st.columns(3)
    with col_probe:
        probe = st.selectbox("Probe", probes, key="lab_probe")
    instance_ids = [ALL_INSTANCES] + [i.instance_id for i in corpus.instances if i.probe == probe]
    links.bind("lab_instance", "instance", instance_ids, ALL_INSTANCES)
    with col_instance:
        instance_id = st.selectbox("Instance", instance_ids, key="lab_instance")
    with col_embedder:
        embedder = st.selectbox("Embedder", embedders, key="lab_embedder")
    links.publish_all(
        {"lab_probe": "probe", "lab_instance": "instance", "lab_embedder": "embedder"}
    )
    refusal = stack_refusal(loaded.results, embedder)
    if refusal:
        st.error(refusal)
        return
    if n is not None and n < load_lab_corpus().n:
        st.caption(f"The first {n} instances of each probe, as in the loaded results file.")
    live_panel(probe, None if instance_id == ALL_INSTANCES else instance_id, embedder, n)


def mutation_audit_line(results: dict) -> str:
    """Why the Lab shows nothing for a mutation audit's file, and what does instead."""
    corpus = recorded_corpus_path(results) or "your corpus"
    cases = (results.get("run") or {}).get("cases_file") or "CASES"
    column = next(iter(results.get("configs") or []), {})
    settings = column.get("file") or "SETTINGS"
    flag = "--stack" if is_stack(column) else "--settings"
    return (
        f"This file is a mutation audit of your corpus (`{corpus}`, `ragaudit mutate`). The "
        "Lab re-ranks the planted-fault corpus only: it does not read your corpus or re-run "
        f"your column ({column.get('name') or 'its column'}), so it has nothing live to show "
        "for this file. To rank the control row's phrasings under another k or overlap, "
        f"change them in a copy of `{settings}` and run `ragaudit audit {corpus} {cases} "
        f"{flag} COPY` (the Audit page draws it) or `ragaudit mutate` with it. This run's "
        "mutants are on the Matrix and Instance pages."
    )


def _controls() -> tuple[int, str, int, int, str, bool]:
    import streamlit as st

    # the toggle's column wide enough for "Hybrid" whole at 1500 px (1 of 12 cut it to "Hy…")
    cols = st.columns([3, 2, 1.5, 1.5, 2, 1.5])
    with cols[0]:
        k = st.slider("k (chunks retrieved)", 1, 10, 3, key="lab_k")
    with cols[1]:
        splitter = st.radio("Splitter", ["recursive", "fixed"], horizontal=True, key="lab_splitter")
    with cols[2]:
        size = st.selectbox("Chunk size", SIZES, index=SIZES.index(1000), key="lab_size")
    with cols[3]:
        overlap = st.selectbox("Overlap", OVERLAPS, index=0, key="lab_overlap")
    with cols[4]:
        # The fixed splitter's sliding window is its own tail carry: no rule to pick.
        rule = st.radio(
            "Overlap rule",
            OVERLAP_RULES,
            key="lab_overlap_rule",
            disabled=splitter == "fixed",
            help="carry_tail: the previous chunk's tail (at most `overlap` characters, from a "
            "separator) is prefixed to each overlap-0 chunk. langchain: LangChain's merge "
            "re-uses trailing pieces within one recursion level.",
        )
    with cols[5]:
        hybrid = st.toggle("Hybrid", key="lab_hybrid")
    rule = "carry_tail" if splitter == "fixed" else rule
    return int(k), str(splitter), int(size), int(overlap), str(rule), bool(hybrid)


def _run_n(loaded: Loaded) -> int | None:
    """The loaded results' instances per probe, so the Lab indexes the corpus the run did."""
    return (loaded.results or {}).get("corpus", {}).get("n") if loaded.results else None


def live_panel(probe: str, instance_id: str | None, embedder: str, n: int | None) -> None:
    """The fragment: controls, the probe's retrieval rate and the retrieved chunks."""
    import streamlit as st

    @st.fragment
    def panel() -> None:
        k, splitter, size, overlap, rule, hybrid = _controls()
        if overlap >= size:
            st.error(f"Overlap {overlap} must be smaller than the chunk size {size}.")
            return
        chunking = Chunking(splitter, size, overlap, rule)  # type: ignore[arg-type]
        started = time.perf_counter()
        try:
            lab = lab_index(embedder, chunking.name, n)
            rankings = lab_rankings(embedder, chunking.name, n, probe, hybrid)
        except Exception as error:  # noqa: BLE001 - a model that cannot load: one line, no traceback
            st.error(f"Could not build the index for {embedder}: {error}")
            return
        instances = probe_instances(probe, n)
        found = {
            i.instance_id: diagnose_at_k(lab, i, rankings[i.instance_id], k) for i in instances
        }
        elapsed_ms = (time.perf_counter() - started) * 1000
        st.session_state["lab_last_ms"] = elapsed_ms
        st.session_state["lab_index_counts"] = (len(lab.chunk_by_id), lab.computed)  # for bench
        st.session_state["lab_index_shipped"] = lab.shipped
        _summary(found, lab, k, hybrid, elapsed_ms)
        _recorded(probe, embedder, (chunking, k, hybrid))
        if lab.errors:
            st.warning(
                f"{lab.failed_chunks} of {len(lab.chunk_by_id)} chunks could not be embedded; "
                f"this index is incomplete: {lab.errors[0]}"
            )
        drawing = time.perf_counter()
        if instance_id is None:
            render_small_multiples(lab, instances, rankings, k)
        shown = instance_id or (instances[0].instance_id if instances else None)
        if shown is None:
            return
        instance = next(i for i in instances if i.instance_id == shown)
        _retrieved(lab, instance, rankings[shown][:k], found[shown])
        if instance_id is not None:  # all instances: the small multiples drew it already
            render_instance_timeline(lab, instance, rankings[shown][:k])
        st.session_state["lab_draw_ms"] = (time.perf_counter() - drawing) * 1000

    panel()


def _summary(found: dict[str, dict], lab, k: int, hybrid: bool, elapsed_ms: float) -> None:
    import streamlit as st

    with_gold = [d for d in found.values() if d.get("gold_in_context") is not None]
    arrived = sum(1 for d in with_gold if d["gold_in_context"])
    preserved = sum(1 for d in with_gold if d.get("span_preserved"))
    n = len(with_gold)
    if n:
        st.markdown(
            f"**Gold in context: {fmt_ratio(arrived, n)}** · span preserved "
            f"{fmt_ratio(preserved, n)} · `{lab.chunking}`, k={k}{', hybrid' if hybrid else ''}"
        )
    else:
        st.markdown(f"This probe has no gold spans to retrieve ({len(found)} instances).")
    shipped = f"{lab.shipped} shipped with the reference run, " if lab.shipped else ""
    st.caption(
        f"{len(lab.chunk_by_id)} chunks; index built in {lab.build_seconds:.1f} s "
        f"({lab.embedded} vectors added: {shipped}{lab.computed} embeddings computed, the rest "
        f"from the call cache); this update took {elapsed_ms:.0f} ms"
    )


def _recorded(probe: str, embedder: str, setting: tuple) -> None:
    """The loaded results' figure for this probe at a config with exactly this setting."""
    import streamlit as st

    results = current_results().results
    if not results:
        return
    for config in results["configs"]:
        if is_stack(config):
            continue  # cut by the user's splitter: no Lab setting is the same
        # A config recorded before overlap rules reads as the rule it used (langchain).
        chunking = Chunking.from_name(chunking_of(config))
        if (chunking, config["k"], bool(config.get("hybrid"))) != setting:
            continue
        cell = cell_index(results).get((probe, config["name"], embedder))
        if cell:
            measure = cell["measures"].get("gold_in_context")
            st.caption(
                f"The results file records {fmt_measure(measure)} for {probe} at config "
                f"{config['name']} (the same setting) under {embedder}."
                + ("" if _same_corpus(results) else _OTHER_CORPUS)
            )


_OTHER_CORPUS = (
    " The corpus on disk is not the one that run used (its manifest sha256 differs), so "
    "the two figures need not agree."
)


def _same_corpus(results: dict) -> bool:
    """The corpus on disk is the run's (its manifest digest is the one recorded)."""
    try:
        return manifest_sha256() == results.get("corpus", {}).get("sha256")
    except Exception:  # noqa: BLE001 - unreadable manifest: treat as not the same
        return False


def _retrieved(lab, instance, hits: list, diagnostics: dict) -> None:
    import streamlit as st

    arrived = diagnostics.get("gold_in_context")
    st.markdown(
        f"**{instance.instance_id}**: {instance.question}  \n"
        f"gold in context: `{arrived}` · gold rank `{diagnostics.get('gold_rank')}` · "
        f"trap rank `{diagnostics.get('trap_rank')}`"
    )
    lines = []
    for hit in hits:
        chunk = lab.chunk_by_id[hit.chunk_id]
        tags = []
        if any(span_in(s, chunk) for s in instance.gold_spans):
            tags.append(":orange-background[holds gold]")
        if any(span_in(s, chunk) for s in instance.trap_spans):
            tags.append(":red-background[holds trap]")
        bm25 = "" if hit.bm25_score is None else f" · bm25 {hit.bm25_score:.2f}"
        dense = "" if hit.dense_score is None else f" · cosine {hit.dense_score:.4f}"
        lines.append(
            f"{hit.rank}. `{hit.chunk_id}` score {hit.score:.4f}{dense}{bm25} {' '.join(tags)}"
        )
    st.markdown("**Retrieved chunks**\n\n" + "\n".join(lines))
    with st.expander("Chunk texts"):
        for hit in hits:
            st.caption(f"rank {hit.rank} · {hit.chunk_id}")
            st.text(lab.chunk_by_id[hit.chunk_id].text)
