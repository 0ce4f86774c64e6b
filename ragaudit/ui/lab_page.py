"""Lab: live k / chunk size / overlap / splitter / hybrid over one probe."""


def render() -> None:
    """Draw the Lab page."""
    import streamlit as st

    st.title("Lab")
