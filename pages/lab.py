from ragaudit.ui.lab_page import render

render()
