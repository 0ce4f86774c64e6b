"""`python -m benchmarks.ui`, the Compare page's figure: its first render for two full
(n=25) results files, beside the Matrix page's first render of one of them (the page's
baseline render), measured in the same run; then opening one flipped instance under both
runs, beside the Compare page's unchanged rerun.

The two files are the synthetic n=25 one of tests.helpers.fixture (A) and a copy of it
(B) in which every fifth record's gold_in_context is flipped, its cells recounted, so B
holds the same corpus and models with a known share of flips.
"""

from __future__ import annotations

import copy
import json
import os
import statistics
import timeit
from pathlib import Path

from ragaudit import paths
from ragaudit.fileio import write_text_atomic
from tests.helpers.fixture.build import build_results
from tests.helpers.fixture.cells import cells

FLIP_EVERY = 5
"""B flips the gold_in_context of every FLIP_EVERY-th record that has one."""


def _seconds(fn, repeat: int = 1) -> float:
    """Median wall seconds of `fn()` over `repeat` calls."""
    return statistics.median(timeit.repeat(fn, repeat=repeat, number=1))


def write_pair(folder: Path, n: int = 25) -> tuple[Path, Path, int]:
    """The two results files in `folder`, and how many records B flipped."""
    a = build_results(n=n)
    b = copy.deepcopy(a)
    valued = [r for r in b["instances"] if r.get("gold_in_context") is not None]
    for record in valued[::FLIP_EVERY]:
        record["gold_in_context"] = not record["gold_in_context"]
    b["cells"] = cells(b["instances"])
    b["created_at"] = "2026-11-30T09:00:00+00:00"
    paths_out = folder / "a.json", folder / "b.json"
    for path, results in zip(paths_out, (a, b), strict=True):
        write_text_atomic(path, json.dumps(results, allow_nan=False))
    os.utime(paths_out[0], (1, 1))  # A the older, so the page opens it as run A
    return *paths_out, len(valued[::FLIP_EVERY])


def bench_compare(home: Path) -> dict:
    """Cold first renders of the Compare page (two files) and of the Matrix page (one),
    then a flipped instance opened under both runs against an unchanged rerun."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    (home / "results").mkdir(parents=True, exist_ok=True)
    a, b, flipped = write_pair(home / "results")
    os.environ.update(RAGAUDIT_HOME=str(home), RAGAUDIT_RESULTS=str(a))

    def matrix_first_render():
        st.cache_data.clear()
        AppTest.from_file(str(paths.app_script()), default_timeout=120).run()

    opened = {}

    def compare_first_render():
        at = AppTest.from_file(str(paths.app_script()), default_timeout=120)
        at.run()
        st.cache_data.clear()  # the Matrix page loaded A: the Compare page starts cold
        started = timeit.default_timer()
        at.switch_page("pages/compare.py").run()
        opened["at"], opened["s"] = at, timeit.default_timer() - started
        if at.exception or not at.dataframe:
            raise RuntimeError(f"the Compare page did not render: {at.exception}")
        return opened["s"]

    matrix_first_render()  # warm imports once, for both
    matrix = _seconds(matrix_first_render, 3)
    compare = statistics.median(compare_first_render() for _ in range(3))
    at = opened["at"]
    unchanged = _seconds(lambda: at.run(), 3)
    at.session_state["compare_flips"] = {"selection": {"rows": [0], "columns": []}}
    both = _seconds(lambda: at.run())
    charts = len(at.get("plotly_chart"))
    return {
        "megabytes": round((a.stat().st_size + b.stat().st_size) / 1e6, 1),
        "flipped": flipped,
        "compare_first_render_s": compare,
        "matrix_first_render_s": matrix,
        "unchanged_rerun_s": unchanged,
        "both_sides_s": both,
        "both_sides_charts": charts,
    }


def report_compare(home: Path) -> None:
    """Run the Compare figure in `home` (its RAGAUDIT_HOME) and print it beside its baselines;
    the environment is put back afterwards."""
    saved = {k: os.environ.get(k) for k in ("RAGAUDIT_HOME", "RAGAUDIT_RESULTS")}
    try:
        m = bench_compare(home)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    print(
        f"compare first render of two n=25 files ({m['megabytes']} MB together, "
        f"{m['flipped']} records flipped in B): {m['compare_first_render_s']:.2f} s; "
        f"baseline Matrix first render of one of them {m['matrix_first_render_s']:.2f} s "
        f"(x{m['compare_first_render_s'] / m['matrix_first_render_s']:.2f})"
    )
    print(
        f"compare: a flipped instance opened under both runs ({m['both_sides_charts']} "
        f"timelines drawn): {m['both_sides_s'] * 1000:.0f} ms whole AppTest rerun; baseline "
        f"unchanged rerun {m['unchanged_rerun_s'] * 1000:.0f} ms "
        f"(x{m['both_sides_s'] / m['unchanged_rerun_s']:.2f})"
    )
