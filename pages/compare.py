"""Compare: two runs side by side (render function in ragaudit.ui.compare_page)."""

from ragaudit.ui.compare_page import render
from ragaudit.ui.entry import run_page

run_page(render)
