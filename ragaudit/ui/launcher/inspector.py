"""What `ragaudit app` serves: Streamlit's own server over app.py (st.App, which `streamlit
run` finds here by name), with one middleware, ragaudit.ui.one_backend, so that a page
opened by its own address logs no console error. Only built when this file is run."""

import streamlit as st
from starlette.middleware import Middleware

from ragaudit import paths
from ragaudit.ui.one_backend import OneBackendBase

app = st.App(str(paths.app_script()), middleware=[Middleware(OneBackendBase)])
