from ragaudit.ui.entry import run_page
from ragaudit.ui.severity_page import render

run_page(render)
