"""The ragaudit inspector: navigation only; each page calls a render function in ragaudit.ui."""

from pathlib import Path

import streamlit as st

st.set_page_config(page_title="ragaudit inspector", layout="wide")

_HERE = Path(__file__).parent
_pages = [
    st.Page("pages/matrix.py", title="Matrix", url_path="matrix", default=True),
    st.Page("pages/instance.py", title="Instance", url_path="instance"),
    st.Page("pages/lab.py", title="Lab", url_path="lab"),
    st.Page("pages/severity.py", title="Severity & detectability", url_path="severity"),
    st.Page("pages/runs.py", title="Runs", url_path="runs"),
]
# The Audit page comes with the audit feature; show it once its render module exists.
if (_HERE / "ragaudit" / "ui" / "audit_page.py").exists():
    _pages.append(st.Page("pages/audit.py", title="Audit", url_path="audit"))
st.navigation(_pages).run()
