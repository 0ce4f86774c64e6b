"""examples/notebook/mutation_audit.ipynb runs as a reader runs it: every cell executed in
order by a Jupyter kernel (nbclient), from the notebook's own folder, with a fresh data
folder. No cell may error, and what the notebook displays must be the audit: the
`results` cell draws the mutation section (its `_repr_html_`) and the scores cell a table,
each naming the operators the audit ran (the five with a retrieval-side measure, and
remove_answer, which retrieval-only leaves unmeasured)."""

from __future__ import annotations

import pytest

from ragaudit import paths

NOTEBOOK = paths.REPO_ROOT / "examples" / "notebook" / "mutation_audit.ipynb"
OPERATORS = ("remove_answer", "supersede", "near_duplicate", "boundary", "dilute", "table_split")

# a kernel, MiniLM over 14 cases x every mutant: about 40 s; no generator
pytestmark = pytest.mark.slow(model=False)


def _html_of(cell: dict) -> str:
    return "".join(
        output["data"]["text/html"]
        for output in cell.get("outputs", [])
        if output.get("output_type") in ("execute_result", "display_data")
        and "text/html" in output.get("data", {})
    )


def test_the_notebook_runs_and_displays_the_audit(tmp_path, monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))  # the kernel inherits it
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(
        notebook, timeout=600, kernel_name="python3",
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )  # fmt: skip
    client.execute()  # raises CellExecutionError naming the cell on an error

    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    errors = [o for c in code for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert errors == []
    shown = {cell.source.strip().splitlines()[-1]: _html_of(cell) for cell in code}
    drawn = shown["results"]
    assert drawn.startswith("<pre>"), drawn[:200]
    table = next(html for last, html in shown.items() if last.startswith("scores[["))
    for operator in OPERATORS:
        assert operator in drawn, operator
        assert f">{operator}<" in table, operator
    assert "Python 3" in notebook.metadata["kernelspec"]["display_name"]
