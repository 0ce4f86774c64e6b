"""The report as one document: its sections in reading order, rendered as Markdown, as one
HTML page, or as the text `ragaudit report` prints (the probe x config tables; a mutation
audit's section).

Sections are built once as blocks and rendered by report.render, so the formats cannot
disagree. Every figure and every quoted reply is read from the results file. A mutation
audit's file (`run.kind` "mutate") has its own, shorter layout: `layout` is the one place
the report tells the two apart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ragaudit.report.attribution import attribution_section
from ragaudit.report.failures_first import failures_first_section, failures_first_text
from ragaudit.report.findings import (
    citation_section,
    comparisons_section,
    detectability_section,
    severity_section,
)
from ragaudit.report.mutation import (
    mutation_header_section,
    mutation_lines,
    mutation_replies_section,
    mutation_section,
)
from ragaudit.report.pictures import (
    answers_pictures,
    attribution_pictures,
    retrieval_pictures,
    severity_pictures,
)
from ragaudit.report.render import Block, blocks_to_html, blocks_to_markdown
from ragaudit.report.stack import stack_section
from ragaudit.report.table_wide import table_wide_section
from ragaudit.report.tables import (
    conditions_section,
    controls_section,
    generation_section,
    header_section,
    patterns_section,
    quotes_section,
    retrieval_section,
    title_section,
)
from ragaudit.report.windows import windows_section
from ragaudit.results import view

SECTIONS = (
    title_section,
    failures_first_section,
    header_section,
    conditions_section,
    stack_section,
    mutation_section,
    windows_section,
    controls_section,
    retrieval_section,
    retrieval_pictures,
    generation_section,
    answers_pictures,
    quotes_section,
    table_wide_section,
    patterns_section,
    comparisons_section,
    detectability_section,
    citation_section,
    severity_section,
    severity_pictures,
    attribution_section,
    attribution_pictures,
)
"""Reading order: what failed first (each entry linked to its table), then how the run went
and its controls, then what it measured; each picture (HTML only) after the tables it
draws."""


MUTATION_SECTIONS = (
    title_section,
    mutation_header_section,
    conditions_section,
    mutation_section,
    mutation_replies_section,
)
"""A mutation audit's report: one count per operator (killed / applicable). The matrix's
per-probe tables, what-failed list and severity are left out: their rates count phrasings
per operator, so beside the score they would be a second, different number for it."""


@dataclass(frozen=True)
class Layout:
    """What the report of one kind of results file holds."""

    sections: tuple[Callable[[dict], list[Block]], ...]
    terminal: Callable[[dict], str]
    """What `ragaudit report` prints."""


def _matrix_terminal(results: dict) -> str:
    return failures_first_text(results) + "\n" + render_tables(results)  # failed first


def _mutation_terminal(results: dict) -> str:
    return "\n".join(mutation_lines(results)) + "\n"


MATRIX = Layout(SECTIONS, _matrix_terminal)
MUTATION = Layout(MUTATION_SECTIONS, _mutation_terminal)


def layout(results: dict) -> Layout:
    """The layout of `results`: a mutation audit's, or the matrix's for every other file."""
    return MUTATION if view.is_mutation_audit(results) else MATRIX


def report_blocks(results: dict) -> list[Block]:
    """All sections' blocks, in reading order."""
    return [block for section in layout(results).sections for block in section(results)]


def render_markdown(results: dict) -> str:
    """The report as Markdown."""
    return blocks_to_markdown(report_blocks(results))


def render_html(results: dict) -> str:
    """The report as one self-contained HTML page."""
    return blocks_to_html(report_blocks(results), title="ragaudit report")


def render_terminal(results: dict) -> str:
    """What `ragaudit report` prints: for a matrix run what failed, then the probe x config
    tables; for a mutation audit its section, as `ragaudit mutate` printed it."""
    return layout(results).terminal(results)


def render_tables(results: dict) -> str:
    """The probe x config tables (controls, retrieval, generation, severity) for stdout,
    each under its nearest heading."""
    keep = [b for b in report_blocks(results) if b[0] in ("h", "table") and b[0:2] != ("h", 1)]
    tables = []
    for i, block in enumerate(keep):
        if block[0] == "table" and block[1][:2] == ["Probe", "Layer"]:
            heading = next((b for b in reversed(keep[:i]) if b[0] == "h"), None)
            tables += [heading, block] if heading else [block]
    return blocks_to_markdown([b for b in tables if b])
