"""What `ragaudit app` serves: Streamlit's own server over app.py (st.App, which `streamlit
run` finds here by name), with one middleware, ragaudit.ui.one_backend, so that a page
opened by its own address logs no console error. Only built when this file is run.

Streamlit's legacy `pages/` mode is switched off before the first session: app.py's
navigation names every page, a plugin's too. Left on (Streamlit turns it off only once a
session has run st.navigation), a server's first request runs a navigation of the files in
pages/, which answers a page with no file there, a plugin's, with "Page not found".
"""

import streamlit as st
from starlette.middleware import Middleware
from streamlit.runtime.pages_manager import PagesManager

from ragaudit import paths
from ragaudit.ui.one_backend import OneBackendBase

PagesManager.uses_pages_directory = False  # what st.navigation sets (Streamlit 1.67)
app = st.App(str(paths.app_script()), middleware=[Middleware(OneBackendBase)])
