"""The report as one document: its sections in reading order, rendered as Markdown, as one
HTML page, or as the probe x config tables `ragaudit report` prints.

Sections are built once as blocks and rendered by report.render, so the formats cannot
disagree. Every figure and every quoted reply is read from the results file.
"""

from __future__ import annotations

from ragaudit.report.attribution import attribution_section
from ragaudit.report.failures_first import failures_first_section
from ragaudit.report.findings import (
    citation_section,
    comparisons_section,
    detectability_section,
    severity_section,
)
from ragaudit.report.mutation import mutation_section
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


def report_blocks(results: dict) -> list[Block]:
    """All sections' blocks, in reading order."""
    return [block for section in SECTIONS for block in section(results)]


def render_markdown(results: dict) -> str:
    """The report as Markdown."""
    return blocks_to_markdown(report_blocks(results))


def render_html(results: dict) -> str:
    """The report as one self-contained HTML page."""
    return blocks_to_html(report_blocks(results), title="ragaudit report")


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
