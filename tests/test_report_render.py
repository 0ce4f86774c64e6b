"""The rendered report: every number traced to the results file, tables cell by cell, the
severity rules string for string, quotes chosen by the stated rule, and the command."""

from __future__ import annotations

import ast
import html
import json
import re
from pathlib import Path

import pytest
from helpers.analysis_fixtures import analysed_results

import ragaudit.report
from ragaudit.cli.main import main as cli_main
from ragaudit.report.document import render_html, render_markdown, render_tables

NUMBER_RE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?")
CELL_RE = re.compile(r"^(\d+)% (\d+)/(\d+)$")


@pytest.fixture(scope="module")
def results():
    return analysed_results()


@pytest.fixture(scope="module")
def markdown(results):
    return render_markdown(results)


def _pool(value, out):
    """Every number in the results file, including those inside its strings."""
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, int | float):
        out.append(float(value))
        if 0 <= value <= 1:
            out.append(float(value) * 100)
    elif isinstance(value, str):
        out.extend(float(t) for t in NUMBER_RE.findall(value))
    elif isinstance(value, dict):
        if isinstance(value.get("start"), int) and isinstance(value.get("end"), int):
            out.append(float(value["end"] - value["start"]))  # a span's length, as said
        for key, item in value.items():
            if key != "chunks":  # chunk texts are never printed
                _pool(item, out)
                _pool(key, out)
            if key == "wilson" and item:  # a failure rate's interval: the recorded one's complement
                out.extend((1 - float(bound)) * 100 for bound in item)
    elif isinstance(value, list):
        for item in value:
            _pool(item, out)


def untraced_numbers(text: str, results: dict) -> list[str]:
    """Numbers in `text` that no value in the results file rounds to."""
    pool: list[float] = []
    _pool(results, pool)
    missing = []
    for token in NUMBER_RE.findall(text):
        decimals = len(token.split(".")[1]) if "." in token else 0
        tolerance = 0.5 * 10**-decimals + 1e-9
        if not any(abs(v - float(token)) <= tolerance for v in pool):
            missing.append(token)
    return missing


def table_mismatches(markdown: str, results: dict) -> list[str]:
    """Check every probe x config table cell against the cell it names."""
    cells = {(c["probe"], c["config"], c["embedder"]): c for c in results["cells"]}
    embedders = [e["spec"] for e in results["embedders"]]
    section = heading = ""
    header: list[str] = []
    problems = []
    for line in markdown.splitlines():
        if line.startswith("## "):
            section, heading, header = line[3:], "", []
        elif line.startswith("### "):
            heading, header = line[4:], []
        elif line.startswith("| Probe | Layer |"):
            header = [h.strip() for h in line.strip("|").split("|")]
        elif line.startswith("| ") and header and not line.startswith("| ---"):
            row = [c.strip() for c in line.strip("|").split("|")]
            embedder = next(e for e in embedders if e in heading)
            measure = "correct" if "Correct answers" in heading else "gold_in_context"
            for config, text in zip(header[2:], row[2:], strict=True):
                cell = cells.get((row[0], config, embedder))
                if section == "Severity":
                    expected = "not run" if cell is None else cell["severity"]["class"]
                elif cell is None or (measure == "correct" and not cell["generated"]):
                    expected = "not run"
                elif cell["measures"][measure] is None:
                    # retrieval ran on a probe with no gold span: nothing to find
                    expected = "n/a: no gold to retrieve" if measure == "gold_in_context" else "n/a"
                else:
                    m = cell["measures"][measure]
                    match = CELL_RE.match(text)
                    ok = (
                        match
                        and (int(match[2]), int(match[3])) == (m["count"], m["n"])
                        # whole percent, halves up: floor(100 * count / n + 1/2)
                        and int(match[1]) == (200 * m["count"] + m["n"]) // (2 * m["n"])
                    )
                    expected = text if ok else f"{m['count']}/{m['n']}"
                if text != expected:
                    problems.append(
                        f"{section}/{heading} {row[0]} {config}: {text!r} != {expected!r}"
                    )
        elif not line.startswith("|"):
            header = header if line.strip() == "" else []
    return problems


def test_every_number_in_the_report_comes_from_the_results_file(results, markdown):
    assert untraced_numbers(markdown, results) == []
    page = re.sub(r"<style>.*?</style>", "", render_html(results), flags=re.DOTALL)
    visible = html.unescape(re.sub(r"<[^>]+>", " ", page))
    assert untraced_numbers(visible, results) == []


def test_the_number_check_can_fail(results, markdown):
    tampered = markdown.replace("0.645", "7.777", 1)
    assert tampered != markdown
    assert untraced_numbers(tampered, results) == ["7.777"]


def test_every_table_cell_matches_its_results_cell(results, markdown):
    assert table_mismatches(markdown, results) == []
    assert markdown.count("| Probe | Layer |") >= 7


def _tables_part(markdown: str) -> tuple[str, str]:
    # (what failed, the rest): a tampering meant for a table starts after the summary
    head, rest = markdown.split("## The run", 1)
    return head + "## The run", rest


def test_the_table_check_can_fail(results, markdown):
    head, rest = _tables_part(markdown)
    tampered = head + rest.replace("50% 5/10", "60% 6/10", 1)
    assert tampered != markdown
    assert len(table_mismatches(tampered, results)) == 1
    swapped = head + rest.replace("| medium |", "| high |", 1)
    assert len(table_mismatches(swapped, results)) == 1


def test_severity_rules_are_rendered_string_for_string(results, markdown):
    rendered = re.findall(r"^- \*\*(\w+)\*\* \((\w+)\) (.+)$", markdown, flags=re.MULTILINE)
    rules = [(r["class"], r["branch"], r["text"]) for r in results["severity_rules"]]
    assert rendered == rules
    page = render_html(results)
    items = re.findall(r"<li><strong>(\w+)</strong> \((\w+)\) (.+?)</li>", page)
    assert [(a, b, html.unescape(c)) for a, b, c in items] == rules


def test_quotes_follow_the_stated_rule(results, markdown):
    assert f"Rule: {results['analysis']['quote_rule']}." in markdown
    for verdict in ("trap_taken", "labels_only", "partial_list", "wrong", "abstained"):
        first = next(
            r for r in results["instances"] if (r.get("grade") or {}).get("verdict") == verdict
        )
        block = markdown.split(f"\n{verdict}: {first['key']} ")[1].split("\n\n")[1]
        assert block == "> " + first["generation"]["reply"]
    assert "denied_record: no instance has this verdict." in markdown
    assert "> (empty reply)" in markdown
    assert "> (no reply: ModelCallFailed: timed out)" in markdown


def test_conditions_and_failed_calls_are_named(results, markdown):
    assert "Model calls: 3 replayed from cache, 117 computed, 2 failed." in markdown
    assert "Elapsed time withheld: 3 of 122 calls were replayed from cache." in markdown
    assert "unavailable: weights were removed before the run" in markdown
    assert "boundary/boundary-005/B/local:minilm" in markdown
    assert "local:e5-small (uncertified)" in markdown


def test_render_tables_has_the_probe_tables_and_html_escapes(results):
    tables = render_tables(results)
    assert "| boundary | architectural | not run | 30% 3/10 | 30% 3/10 | not run |" in tables
    assert "Detectability" not in tables
    results = json.loads(json.dumps(results))
    first = next(r for r in results["instances"] if r["generation"])
    first["grade"]["verdict"] = "wrong"
    first["generation"]["reply"] = "<script>alert(1)</script>"
    page = render_html(results)
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_report_command_writes_markdown_and_html(results, tmp_path, capsys):
    path = tmp_path / "results.json"
    path.write_text(json.dumps(results, allow_nan=False), encoding="utf-8")
    out = tmp_path / "out"
    assert cli_main(["report", "--results", str(path), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| boundary | architectural |" in printed
    assert (out / "report.md").read_text(encoding="utf-8") == render_markdown(results)
    assert (out / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert (
        cli_main(["report", "--results", str(path), "--format", "md", "--out", str(tmp_path / "m")])
        == 0
    )
    assert not (tmp_path / "m" / "report.html").exists()


def test_report_command_errors_are_one_line(tmp_path, capsys):
    assert cli_main(["report", "--results", str(tmp_path / "missing.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "missing.json" in err
    results = analysed_results()
    results["cells"] = []
    results.pop("severity_rules")
    path = tmp_path / "unanalysed.json"
    path.write_text(json.dumps(results), encoding="utf-8")
    assert cli_main(["report", "--results", str(path)]) == 2
    assert "cannot render a report" in capsys.readouterr().err


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """A cycle in `graph` (module -> modules it imports), or None."""
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> list[str] | None:
        if node in path:
            return path[path.index(node) :] + [node]
        if node in done:
            return None
        for target in sorted(graph.get(node, ())):
            found = visit(target, [*path, node])
            if found:
                return found
        done.add(node)
        return None

    return next((c for node in sorted(graph) if (c := visit(node, [])) is not None), None)


def test_report_modules_import_one_way():
    assert _cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]  # the check can fail
    graph = {}
    for path in Path(ragaudit.report.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        graph[f"ragaudit.report.{path.stem}"] = {
            node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
            and (node.module or "").startswith("ragaudit.report.")
        }
    assert len(graph) >= 4 and _cycle(graph) is None
