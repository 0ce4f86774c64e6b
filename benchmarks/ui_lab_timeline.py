"""`python -m benchmarks.ui`, the Lab timeline's figure: the chosen instance's chunk
timeline redrawn after an overlap change whose embeddings the call cache holds, beside the
same page's unchanged rerun (its baseline render), measured in the same run.

Two cases: the index of the new chunking still in memory (a setting seen before), and
rebuilt from the call cache's vectors (a chunking a run or an earlier session embedded; no
embedding computed). Then the same change with "all instances" drawn as small multiples.
Run after `bench_lab`, whose overlap change leaves both chunkings' embeddings cached.
"""

from __future__ import annotations

import json
import statistics
import timeit

from ragaudit import paths

PROBE, INSTANCE = "boundary", "boundary-000"


def _seconds(fn, repeat: int = 1) -> float:
    """Median wall seconds of `fn()` over `repeat` calls."""
    return statistics.median(timeit.repeat(fn, repeat=repeat, number=1))


def _lab_app(embedder: str, instance: str | None):
    """An AppTest on the Lab page over `PROBE` (and `instance`, if given), rendered once."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(paths.app_script()), default_timeout=1800)
    at.query_params.update({"embedder": embedder, "probe": PROBE})
    if instance:
        at.query_params["instance"] = instance
    at.run()
    at.switch_page("pages/lab.py").run()
    if at.exception:
        raise RuntimeError(f"the Lab did not render: {at.exception[0].value}")
    return at


def _overlap_changes(at, overlap: int) -> dict:
    """Whole reruns and the page's drawing time over overlap changes 0 <-> `overlap`, each
    followed by an unchanged rerun (the baseline, interleaved so load on the machine weighs
    on both alike)."""
    page, baseline, work, drawing = [], [], [], []
    for value in (overlap, 0) * 3:
        page.append(_seconds(lambda v=value: at.selectbox(key="lab_overlap").set_value(v).run()))
        work.append(at.session_state["lab_last_ms"])
        drawing.append(at.session_state["lab_draw_ms"])
        baseline.append(_seconds(at.run))
    return {
        "page_ms": statistics.median(page) * 1000,
        "baseline_ms": statistics.median(baseline) * 1000,
        "retrieval_ms": statistics.median(work),
        "drawing_ms": statistics.median(drawing),
    }


def bench_lab_timeline(embedder: str, overlap: int) -> dict:
    """The figures: warm overlap changes, the change after the in-memory indexes are
    dropped (rebuilt from cached embeddings), and the small multiples; each beside the
    unchanged rerun of the same page."""
    import streamlit as st

    at = _lab_app(embedder, INSTANCE)
    _overlap_changes(at, overlap)  # both indexes built, rankings warm
    figures = {"warm": _overlap_changes(at, overlap)}
    st.cache_resource.clear()  # the in-memory indexes go; the call cache's vectors stay
    figures["rebuilt_s"] = _seconds(at.selectbox(key="lab_overlap").set_value(overlap).run)
    figures["rebuilt_drawing_ms"] = at.session_state["lab_draw_ms"]
    figures["rebuilt_chunks"], figures["rebuilt_computed"] = at.session_state["lab_index_counts"]
    figures["rebuilt_baseline_ms"] = _seconds(at.run, 3) * 1000
    grid = _lab_app(embedder, None)
    _overlap_changes(grid, overlap)
    figures["grid"] = _overlap_changes(grid, overlap)
    (chart,) = grid.get("plotly_chart")  # the grid: one subplot (and title) per instance
    figures["grid_panels"] = len(json.loads(chart.proto.spec)["layout"]["annotations"])
    return figures


def report_lab_timeline(embedder: str, overlap: int) -> None:
    """Measure and print the Lab timeline's figures, each with its baseline and ratio."""
    m = bench_lab_timeline(embedder, overlap)
    warm, grid = m["warm"], m["grid"]
    print(
        f"lab timeline redraw, overlap 0 <-> {overlap}, {INSTANCE}, index in memory: "
        f"whole rerun {warm['page_ms']:.0f} ms (retrieval {warm['retrieval_ms']:.0f} ms, "
        f"timeline drawing {warm['drawing_ms']:.0f} ms); baseline unchanged rerun "
        f"{warm['baseline_ms']:.0f} ms (x{warm['page_ms'] / warm['baseline_ms']:.2f})"
    )
    rebuilt_ms = m["rebuilt_s"] * 1000
    print(
        f"lab timeline redraw, overlap -> {overlap}, index rebuilt from the call cache "
        f"({m['rebuilt_chunks']} chunks, {m['rebuilt_computed']} embeddings computed): whole "
        f"rerun {m['rebuilt_s']:.2f} s (timeline drawing {m['rebuilt_drawing_ms']:.0f} ms); "
        f"baseline unchanged rerun {m['rebuilt_baseline_ms']:.0f} ms "
        f"(x{rebuilt_ms / m['rebuilt_baseline_ms']:.1f})"
    )
    print(
        f"lab small multiples ({m['grid_panels']} timelines in one figure, all of {PROBE}), "
        f"overlap 0 <-> {overlap}, index in memory: whole rerun {grid['page_ms']:.0f} ms "
        f"(drawing {grid['drawing_ms']:.0f} ms); baseline unchanged rerun "
        f"{grid['baseline_ms']:.0f} ms (x{grid['page_ms'] / grid['baseline_ms']:.2f})"
    )
