"""`Results`: one results document as a typed object, for Python and notebooks.

The document stays the plain dict every reader takes (its fields are the TypedDicts of
ragaudit.results.documents); `Results` adds the views a user asks for: cells and instance
records as pandas DataFrames (the instance rows are the export's, so a column means what it
means in `ragaudit export`), what failed, a mutation audit's scores and survivors, the
report as Markdown or HTML, and an inline display in Jupyter drawn by the same formatter
and SVG code as the report. Nothing is written unless `save` is called.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from ragaudit.errors import RagauditError


class Results:
    """A results document (`document`), of the kind its run header says (`kind`)."""

    def __init__(self, document: dict, path: Path | None = None) -> None:
        self.document = document
        self.path = path
        """Where it was read or saved, if anywhere."""

    @property
    def kind(self) -> str:
        """``matrix``, ``mutate``, ``audit``, ``judges``, ``drift`` or ``harness-check``."""
        run = self.document.get("run") or {}
        return run.get("kind") or self.document.get("kind") or "matrix"

    def __repr__(self) -> str:
        records = len(self.document.get("instances") or self.document.get("cases") or [])
        where = f" from {self.path}" if self.path else ""
        return f"<ragaudit Results: {self.kind}, {records} records{where}>"

    def cells(self) -> Any:
        """One row per (probe, config, embedder) cell, as the results file records it."""
        import pandas as pd

        return pd.DataFrame(self.document.get("cells") or [])

    def instances(self) -> Any:
        """One row per instance record, the export's columns (docs/export.md)."""
        from ragaudit.export.table import records_frame

        return records_frame(self.document)

    def failures(self) -> Any:
        """What failed, as data: the report's first section, one row per failed cell, worst
        first (report.failures_first)."""
        import pandas as pd

        from ragaudit.report.failures_first import failed_cells

        rows = [
            {
                "probe": c.probe,
                "config": c.config,
                "embedder": c.embedder,
                "severity": c.severity,
                "branch": c.branch,
                "failures": c.failures,
                "n": c.n,
                "failure_low": c.failure_wilson[0] if c.failure_wilson else None,
                "failure_high": c.failure_wilson[1] if c.failure_wilson else None,
                "attribution": c.attribution,
                "why": c.why,
                "failed": c.failed,
            }  # fmt: skip
            for c in failed_cells(self.document)
        ]
        return pd.DataFrame(rows)

    def mutation_scores(self) -> Any:
        """A mutation audit's score per operator (killed over applicable, its interval)."""
        import pandas as pd

        return pd.DataFrame(self._mutation().get("scores") or [])

    def survivors(self) -> Any:
        """A mutation audit's surviving mutants, one row each."""
        import pandas as pd

        return pd.DataFrame(self._mutation().get("survivors") or [])

    def report(self, format: str = "md") -> str:
        """The report as ``md`` (Markdown) or ``html`` (one self-contained page); an audit's
        is its table, as `ragaudit audit` prints it."""
        from ragaudit.report.document import render_html, render_markdown

        renderers = {"md": render_markdown, "html": render_html}
        if format not in renderers:
            raise RagauditError(f"report format {format!r}: give 'md' or 'html'")
        if self.kind == "audit":
            text = self._audit_table()
            return f"```\n{text}\n```\n" if format == "md" else f"<pre>{html.escape(text)}</pre>"
        if self.kind not in ("matrix", "mutate"):
            raise RagauditError(f"{self.kind} results have no report: read .document")
        return renderers[format](self.document)

    def save(self, path: str | Path) -> Path:
        """Write the document to `path` (atomically; the parent folder must exist), as the
        command that makes its kind writes it."""
        from ragaudit.fileio import check_writable, write_json_atomic
        from ragaudit.results.io import write_results

        path = Path(path)
        check_writable(path, "path")
        if self.kind in ("matrix", "mutate"):
            write_results(path, self.document, complete=self.document.get("complete", True))
        else:  # audit, judges, drift, harness-check: their own top-level fields
            write_json_atomic(path, self.document, trailing_newline=True)
        self.path = path
        return path

    def _repr_html_(self) -> str:
        """What failed and the heatmap (a mutation audit: its section), as the report draws
        them, inline in Jupyter."""
        from ragaudit.report.document import render_terminal

        if self.kind == "audit":
            return f"<pre>{html.escape(self._audit_table())}</pre>"
        if self.kind not in ("matrix", "mutate"):
            return f"<pre>{html.escape(repr(self))}</pre>"
        if self.kind == "mutate":
            return f"<pre>{html.escape(render_terminal(self.document))}</pre>"
        from ragaudit.report.failures_first import failures_first_section
        from ragaudit.report.render import blocks_to_html
        from ragaudit.report.svg import measure_grid
        from ragaudit.results import view

        parts = [blocks_to_html(failures_first_section(self.document), title="ragaudit")]
        embedders = view.table_embedders(self.document) if self.document.get("cells") else []
        if embedders:
            grid = measure_grid(self.document, embedders[0], "gold_in_context")
            parts.append(grid or "")
        return "\n".join(parts)

    def _audit_table(self) -> str:
        from ragaudit.auditing.report import render_table

        return "\n".join(render_table(self.document))

    def _mutation(self) -> dict:
        section = self.document.get("mutation")
        if section is None:
            raise RagauditError(f"{self.kind} results have no mutation section")
        return section
