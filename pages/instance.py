from ragaudit.ui.instance_page import render

render()
