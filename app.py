"""The ragaudit inspector: navigation only; each page calls a render function in ragaudit.ui.

An installed wheel carries a copy of this file and pages/ (see ragaudit/paths.py); page
paths are relative to this file, so both copies resolve their own pages/.
"""

import streamlit as st

from ragaudit.ui.frame import set_frame

_pages = [
    st.Page("pages/matrix.py", title="Matrix", url_path="matrix", default=True),
    st.Page("pages/instance.py", title="Instance", url_path="instance"),
    st.Page("pages/lab.py", title="Lab", url_path="lab"),
    st.Page("pages/severity.py", title="Severity & detectability", url_path="severity"),
    st.Page("pages/compare.py", title="Compare", url_path="compare"),
    st.Page("pages/runs.py", title="Runs", url_path="runs"),
    st.Page("pages/audit.py", title="Audit", url_path="audit"),
]
page = st.navigation(_pages)
set_frame(page.title)  # the tab's title names the page and the results file
page.run()
