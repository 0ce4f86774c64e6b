from ragaudit.ui.entry import run_page
from ragaudit.ui.instance_page import render

run_page(render)
