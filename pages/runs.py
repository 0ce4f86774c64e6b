from ragaudit.ui.runs_page import render

render()
