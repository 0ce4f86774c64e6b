"""The ragaudit inspector: navigation only; each page calls a render function in ragaudit.ui.

An installed wheel carries a copy of this file and pages/ (see ragaudit/paths.py); page
paths are relative to this file, so both copies resolve their own pages/.
"""

from pathlib import Path

import streamlit as st

from ragaudit.ui import pages
from ragaudit.ui.frame import set_frame

page = st.navigation(pages.navigation_pages(Path(__file__).parent, pages.pages_in_order()))
set_frame(page.title)  # the tab's title names the page and the results file
page.run()
