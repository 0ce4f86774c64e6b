"""Audit: your own corpus and queries (render function by the audit feature)."""

from ragaudit.ui.audit_page import render
from ragaudit.ui.entry import run_page

run_page(render)
