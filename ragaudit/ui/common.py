"""What every page does first: find the results file, load it, or say why it cannot."""

from __future__ import annotations

from ragaudit.results.publish import failed_path
from ragaudit.ui.data import Loaded, load_from_url
from ragaudit.ui.pages import PAGES  # page links: the list app.py's navigation reads
from ragaudit.ui.runs import start_run


def current_results() -> Loaded:
    """Load the results file this session points at (URL, env or default). A URL naming a
    file the inspector may not open comes back refused: no path, `problem` says why."""
    import streamlit as st

    return load_from_url(st.query_params.get("results"))


def link_params(**values: str | None) -> dict[str, str]:
    """Query params for a link to another page: the given values plus `results`."""
    import streamlit as st

    params = {k: str(v) for k, v in values.items() if v is not None}
    if "results" in st.query_params:
        params["results"] = st.query_params["results"]
    return params


def results_or_stop(prefix: str) -> dict:
    """Return the loaded results, or draw the no-results / bad-file state and stop."""
    import streamlit as st

    loaded = current_results()
    if loaded.results is not None:
        if not loaded.results.get("complete", False):
            st.info(
                f"Partial results: a run is still writing {loaded.path}. "
                "Figures cover the records written so far; rerun the page to refresh."
            )
        return loaded.results
    if loaded.missing:
        st.write(f"No results yet at `{loaded.path}`: run the quick matrix to make some.")
        failed = failed_path(loaded.path)
        if failed.is_file():  # the run left the good file alone, and there was none yet
            st.warning(
                f"The last run lost model calls, so its results went to `{failed}`, not "
                f"`{loaded.path.name}`; open them with `?results={failed}`."
            )
        if st.button("Start the default quick run", key=f"{prefix}_start_default", type="primary"):
            try:
                start_run(["--quick"], out=loaded.path)
            except RuntimeError as error:
                st.error(str(error))
            else:
                st.switch_page(PAGES["runs"], query_params=link_params())
    else:
        st.error(f"Cannot show results: {loaded.problem}")
        if loaded.path is not None:  # a refused link has no file to fix
            st.caption("Fix or remove the file, or start a new run from the Runs page.")
    st.stop()
    raise AssertionError("unreachable")  # st.stop() raises
