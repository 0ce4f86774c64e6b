"""Cases: review the cases mined from your documents (render function in ui.cases_page)."""

from ragaudit.ui.cases_page import render
from ragaudit.ui.entry import run_page

run_page(render)
