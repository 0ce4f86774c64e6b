from ragaudit.ui.entry import run_page
from ragaudit.ui.matrix_page import render

run_page(render)
