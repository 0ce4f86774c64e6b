"""The inspector's pages: the one list app.py's navigation and every page link read.

A page is its render function (a ``"module:function"`` string, imported when the page is
drawn). The shipped pages also have a thin file in pages/, which Streamlit reaches by path
(a deep link before the navigation has run, AppTest's switch_page); a page without one is
drawn through the navigation alone. A plugin package adds a page through the
`ragaudit.pages` entry-point group (ragaudit.registry): a `Page` listed after these. To add
a page, see docs/extending.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragaudit.registry import GROUPS, Registry, resolve


@dataclass(frozen=True)
class Page:
    """One page of the inspector."""

    key: str
    """Its URL path (``/lab``), and the name of its thin file, pages/<key>.py."""
    title: str
    """What the navigation and the browser tab call it."""
    render: str
    """``"module:function"`` drawing it: `function()` takes no arguments and reads the
    session's results file itself (ragaudit.ui.common.current_results)."""
    default: bool = False
    """The page a bare URL opens."""

    @property
    def file(self) -> str:
        """Its thin file, relative to app.py (it may not exist)."""
        return f"pages/{self.key}.py"


PAGES_IN_ORDER: tuple[Page, ...] = (
    Page("matrix", "Matrix", "ragaudit.ui.matrix_page:render", default=True),
    Page("instance", "Instance", "ragaudit.ui.instance_page:render"),
    Page("lab", "Lab", "ragaudit.ui.lab_page:render"),
    Page("severity", "Severity & detectability", "ragaudit.ui.severity_page:render"),
    Page("compare", "Compare", "ragaudit.ui.compare_page:render"),
    Page("runs", "Runs", "ragaudit.ui.runs_page:render"),
    Page("audit", "Audit", "ragaudit.ui.audit_page:render"),
    Page("cases", "Cases", "ragaudit.ui.cases_page:render"),
    Page("judges", "Judges", "ragaudit.ui.judges_page:render"),
)
"""The pages ragaudit ships, in the order the navigation lists them (plugins' pages follow:
pages_in_order)."""

PAGES = {page.key: page.file for page in PAGES_IN_ORDER}
"""Page key -> its file, as `st.switch_page` takes it."""


def page_registry() -> Registry[Page]:
    """A fresh registry of the shipped pages and the plugins' (nothing imported yet)."""
    registry: Registry[Page] = Registry("page", GROUPS["page"])
    for page in PAGES_IN_ORDER:
        registry.add(page.key, page)
    return registry


def pages_in_order() -> tuple[Page, ...]:
    """Every page the navigation lists: the shipped ones, then the plugins'; a plugin's
    `Page` must be keyed by the name it is registered under."""
    from ragaudit.errors import RagauditError

    registry = page_registry()
    listed = tuple(registry.items())
    for name, page in zip(registry.names(), listed, strict=True):
        if getattr(page, "key", None) != name:
            raise RagauditError(
                f"page {name!r} ({registry.origin(name)}) is not a Page keyed {name!r}"
            )
    return listed


def navigation_pages(root: Path, pages: Sequence[Page] = PAGES_IN_ORDER) -> list[Any]:
    """`st.Page` objects for `pages`: by file when pages/<key>.py sits under `root` (the
    folder of app.py), else by render function."""
    import streamlit as st

    built = []
    for page in pages:
        source = page.file if (root / page.file).is_file() else _drawn(page)
        built.append(st.Page(source, title=page.title, url_path=page.key, default=page.default))
    return built


def _drawn(page: Page) -> Callable[[], None]:
    def draw() -> None:
        from ragaudit.ui.entry import run_page

        run_page(resolve(page.render))

    draw.__name__ = page.key  # Streamlit names a callable page after its function
    return draw
