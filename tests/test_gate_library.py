"""The gate, the run's baseline vetting and compare as library calls: typed options in, a
verdict or a comparison out, nothing printed. Every count is the hand-written runs' own
(tests/helpers/gate_fixtures.py) or the shipped reference's boundary row under B and
A_prime, 24/25 → 19/25: six lost, one gained, one-sided exact McNemar
P(X >= 6 | n = 7) = 8/128 = 0.0625; the drop 5/25 = 20 points."""

from __future__ import annotations

import copy

import pytest
from helpers.gate_fixtures import gate_run, write_run

from ragaudit.cli.main import main
from ragaudit.comparison.compare import compare
from ragaudit.errors import RagauditError
from ragaudit.gating.baseline import results_vetter
from ragaudit.gating.gate import GateOptions, gate
from ragaudit.results.reference import REFERENCE_FILE

BOUNDARY_B = GateOptions(pairs=("B=A_prime",), cells=("boundary:B",))


def test_the_real_regression_is_a_verdict_failing_on_max_drop(capsys):
    verdict = gate(REFERENCE_FILE, REFERENCE_FILE, BOUNDARY_B)
    (cell,) = verdict.cells
    assert (cell.cell.passes_before, cell.cell.passes_after, cell.cell.n) == (24, 19, 25)
    assert (len(cell.cell.losses), len(cell.cell.gains)) == (6, 1)
    assert cell.p == pytest.approx(8 / 128)
    assert cell.drop_points == pytest.approx(20)
    assert cell.reasons == ("drop over --max-drop",)
    assert verdict.failed == (cell,)
    assert (verdict.baseline, verdict.results) == (REFERENCE_FILE, REFERENCE_FILE)
    assert "Change under test: config changed: B → A_prime" in verdict.notes
    assert capsys.readouterr() == ("", "")  # the library prints nothing


def test_options_are_typed_and_checked():
    wider = GateOptions(max_drop=20, pairs=("B=A_prime",), cells=("boundary:B",))
    assert not gate(REFERENCE_FILE, REFERENCE_FILE, wider).failed  # a 20-point drop is allowed
    with pytest.raises(RagauditError, match=r"alpha 0\.7: give a number in \(0, 0\.5\]"):
        GateOptions(alpha=0.7)
    with pytest.raises(RagauditError, match=r"max_drop -1: give a number in \[0, 100\]"):
        GateOptions(max_drop=-1)


def test_the_vetter_refuses_a_run_that_cannot_be_paired(tmp_path):
    before = gate_run({("boundary", "C"): [True] * 5})
    baseline = write_run(tmp_path / "base.json", before)
    vet = results_vetter(before, baseline, tmp_path / "new.json", GateOptions())
    vet(copy.deepcopy(before))  # the same run: nothing refused
    other = gate_run({("negation", "C"): [True] * 5})
    with pytest.raises(RagauditError, match="share no cell with paired instances"):
        vet(other)


def test_compare_returns_what_the_cli_prints_and_writes(tmp_path, capsys):
    a = write_run(tmp_path / "a.json", gate_run({("boundary", "C"): [True, True, False]}))
    b = write_run(tmp_path / "b.json", gate_run({("boundary", "C"): [True, False, True]}))
    comparison = compare(a, b)
    assert [(p.a.config, p.b.config) for p in comparison.runs.pairs] == [("C", "C")]
    assert capsys.readouterr() == ("", "")
    assert main(["compare", str(a), str(b), "--out", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(comparison.markdown())
    assert (tmp_path / "out" / "compare.md").read_text(encoding="utf-8") == comparison.markdown()
    assert (tmp_path / "out" / "compare.html").read_text(encoding="utf-8") == comparison.html()
    other = write_run(tmp_path / "c.json", gate_run({("boundary", "D"): [True]}))
    with pytest.raises(RagauditError, match="hold no .config, embedder. column in common"):
        compare(a, other)
