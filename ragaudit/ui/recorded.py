"""The banner over every page while the inspector shows the shipped reference run: a
recorded run (its date, models and digests; results.reference), not one made here, and a
link to the local run once there is one."""

from __future__ import annotations

from urllib.parse import quote

from ragaudit import paths
from ragaudit.results.reference import is_reference, recorded_label
from ragaudit.ui.allowed import Refused
from ragaudit.ui.data import load, results_path
from ragaudit.ui.runs import run_status


def draw_recorded_label() -> None:
    """Draw the recorded-run banner when this session's results file is the reference run;
    nothing otherwise (or when the file cannot be read: the page says why)."""
    import streamlit as st

    try:
        path = results_path(st.query_params.get("results"))
    except Refused:
        return
    if not is_reference(path):
        return
    loaded = load(path)
    if loaded.results is None:
        return
    local = load(paths.default_results_path())
    finished = local.results is not None and local.results.get("complete")
    own = "" if finished else f" {_own_run()}"  # a finished one is linked below instead
    st.info(f"{recorded_label(loaded.results)}{own}", icon=":material/history:")
    if finished:
        st.markdown(f"[Open your own run]({_results_link(local.path)}) (`{local.path.name}`)")


def _own_run() -> str:
    """What the banner says of a run of one's own: the one `ragaudit demo` started in the
    background while it is going, else where to start one."""
    status = run_status()
    if status is not None and status.alive:
        where = f" ({status.stage}: {status.done}/{status.total})" if status.total else ""
        return (
            f"Your own run is computing in the background{where}; the Runs page follows it, "
            "and it writes the local results file."
        )
    return (
        "Start your own run (the quick one takes minutes) from the Runs page; it writes the "
        "local results file."
    )


def _results_link(path) -> str:
    """A link to this page over `path` (a file in the results folder, which links may name)."""
    return f"?results={quote(str(path))}"
