from ragaudit.ui.entry import run_page
from ragaudit.ui.lab_page import render

run_page(render)
