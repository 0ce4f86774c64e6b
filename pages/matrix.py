from ragaudit.ui.matrix_page import render

render()
