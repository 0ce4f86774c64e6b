from ragaudit.ui.severity_page import render

render()
