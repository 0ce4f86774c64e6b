"""Judges: how often each LLM-judge metric misses a planted fault (ui.judges_page)."""

from ragaudit.ui.entry import run_page
from ragaudit.ui.judges_page import render

run_page(render)
