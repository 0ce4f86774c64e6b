"""AppTest helpers for the inspector's tests: open the app on a page, read what it shows."""

from __future__ import annotations

import functools
import json
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app.py"


@functools.cache
def installed_components():
    """Streamlit's registry of the installed v2 components, found once per process. An
    AppTest looks for them on its first run by reading the metadata of every installed
    distribution (about 1,200 parses here: most of a page test's time), and what is
    installed does not change during a session."""
    from streamlit.components.v2.component_manager import BidiComponentManager

    manager = BidiComponentManager()
    manager.discover_and_register_components(start_file_watching=False)
    return manager


def open_app(results_path: Path | None = None, page: str | None = None, **query: str):
    """An AppTest of the inspector, optionally on `page` with URL query params, run once."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=30)
    at._bidi_component_manager = installed_components()  # what its first run would find
    if results_path is not None:
        at.query_params["results"] = str(results_path)
    for name, value in query.items():
        at.query_params[name] = value
    at.run()
    if page is not None:
        at.switch_page(page).run()
    return at


def texts(at) -> str:
    """Every markdown, caption, info, warning, error and text element's text, joined."""
    parts = []
    for kind in (
        "markdown",
        "caption",
        "info",
        "warning",
        "error",
        "text",
        "title",
        "subheader",
        "code",
    ):
        parts.extend(str(element.value) for element in getattr(at, kind))
    return "\n".join(parts)


def chart_specs(at) -> list[dict]:
    """The plotly figure JSON of every chart on the page."""
    return [json.loads(element.proto.spec) for element in at.get("plotly_chart")]


def click_chart(at, key: str, point: dict):
    """Select `point` on the plotly chart whose key is `key`, as a click on it does, and
    run the page again; returns the AppTest."""
    at.session_state[key] = {
        "selection": {"points": [point], "point_indices": [0], "box": [], "lasso": []}
    }
    return at.run()
