"""Shareable URLs: widget state mirrored into `st.query_params`.

A page calls `bind` before creating a keyed widget and `publish` after. A query value
the app did not write itself (a pasted link, `st.switch_page(..., query_params=...)`)
wins over the session; otherwise the widget's own value wins. A kept copy survives
Streamlit dropping a widget's state when the user visits another page.
"""

from __future__ import annotations

from collections.abc import Sequence

SHARED_PARAMS = ("probe", "config", "embedder", "instance", "measure")


def bind(key: str, param: str, options: Sequence[str], default: str | None = None) -> str | None:
    """Resolve the value of widget `key` from the URL, the session or `default`."""
    import streamlit as st

    state = st.session_state
    options = list(options)
    if not options:
        return None
    query = st.query_params.get(param)
    last_written = state.get(f"_q_{key}")
    kept = state.get(f"_kept_{key}")
    if query is not None and query != last_written and query in options:
        value = query
    elif state.get(key) in options:
        value = state[key]
    elif kept in options:
        value = kept
    elif query in options:
        value = query
    elif default in options:
        value = default
    else:
        value = options[0]
    if state.get(key) != value:
        state[key] = value
    return value


def publish(key: str, param: str) -> None:
    """Write widget `key`'s current value into the URL as `param`."""
    import streamlit as st

    value = st.session_state.get(key)
    if value is None:
        if param in st.query_params:
            del st.query_params[param]
        return
    text = str(value)
    if st.query_params.get(param) != text:
        st.query_params[param] = text
    st.session_state[f"_q_{key}"] = text
    st.session_state[f"_kept_{key}"] = value


def publish_all(params: dict[str, str]) -> None:
    """`publish` each widget key -> URL parameter, so a page's selection is a shareable link."""
    for key, param in params.items():
        publish(key, param)


def carried(*names: str) -> dict[str, str]:
    """The current values of shared URL params (to hand to another page)."""
    import streamlit as st

    return {n: st.query_params[n] for n in names if n in st.query_params}


CARRIED_FILES = ("results", "audit_results")
"""URL params naming the file a session opened: kept across pages."""


def chosen_file(name: str) -> str | None:
    """The file this session chose for `name` (``results``): the URL's, else the one
    carry_chosen_files will put back into it on this run."""
    import streamlit as st

    return st.query_params.get(name) or st.session_state.get(f"_carried_{name}")


def carry_chosen_files() -> None:
    """Keep the file a session chose in the URL on every page: the navigation's sidebar
    links carry no query params, so a person who opened `?results=other.json` would land
    on the default file on the next page. The session remembers the last value the URL
    gave and puts it back where a page's URL lacks it."""
    import streamlit as st

    for name in CARRIED_FILES:
        kept = f"_carried_{name}"
        if name in st.query_params:
            st.session_state[kept] = st.query_params[name]
        elif kept in st.session_state:
            st.query_params[name] = st.session_state[kept]
