"""Render functions for the Streamlit inspector's pages (app.py and pages/ are thin)."""
