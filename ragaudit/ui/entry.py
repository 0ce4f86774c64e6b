"""How a page file runs its render function, whichever way Streamlit reached it."""

from __future__ import annotations

from collections.abc import Callable

from ragaudit.ui.frame import draw_with_progress
from ragaudit.ui.lab_engine import warm_up
from ragaudit.ui.links import carry_chosen_files
from ragaudit.ui.recorded import draw_recorded_label


def run_page(render: Callable[[], None]) -> None:
    """Run `render`, first handing over to app.py's navigation if Streamlit skipped it.

    Streamlit treats a folder named `pages/` beside the entry script as legacy multipage
    discovery until the entry script has called `st.navigation` once in the server's
    life. So when a server's first request is a deep link (`/severity?probe=...`), it
    runs this file directly, without app.py's navigation, titles and wide layout. Turning
    the legacy mode off and rerunning lets app.py run and resolve the same page: both
    modes derive a page's identity from its url_path, which app.py keeps equal to the
    file name. (PagesManager.uses_pages_directory is Streamlit's own switch for this;
    st.navigation sets it the same way.) Only a session's first run is rerun: later runs
    carry widget events (a click) that a rerun would drop; AppTest, which re-enters
    legacy mode on every run, takes that path.
    """
    import streamlit as st
    from streamlit.runtime.pages_manager import PagesManager

    started = st.session_state.get(_STARTED, False)
    st.session_state[_STARTED] = True
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        if not started:
            st.rerun()
    carry_chosen_files()  # a sidebar link drops ?results=: the session puts it back
    draw_recorded_label()  # the shipped reference run says it is one, on every page
    draw_with_progress(render)
    warm_up()  # after the page is drawn: the Lab's fixed costs, once per server process


_STARTED = "_ragaudit_session_started"
