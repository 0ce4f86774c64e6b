"""Issue 40, item 15: gate and compare pair records by (instance id, config, embedder), so a
file holding one instance twice under one column is refused (exit 2, one line naming the
key), and so is a `flaky` mark of another type than the object `run --repeat` writes. The
files are written by hand (helpers.gate_fixtures): every count is the test's own."""

from __future__ import annotations

import copy

import pytest
from helpers.gate_fixtures import PRIMARY, gate_run, write_run

from ragaudit.cli.main import main


@pytest.fixture(autouse=True)
def _home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))


def _lost_first_then_passing_copy() -> tuple[dict, dict]:
    """Five control instances passing before; after, control-000 is lost (the control drops
    20 points: the gate fails it), and a passing copy of it follows the lost one."""
    before = gate_run({("control", "C"): [True] * 5})
    after = gate_run({("control", "C"): [False, True, True, True, True]})
    passing = copy.deepcopy(before["instances"][0])
    after["instances"].append(passing)  # instances[5]: control-000 again, passing
    return before, after


def test_the_loss_fails_the_gate_without_the_duplicate(tmp_path, capsys):
    """The check below can fail: the same loss, recorded once, is a failing control cell."""
    before, after = _lost_first_then_passing_copy()
    after["instances"].pop()
    base, new = write_run(tmp_path / "base.json", before), write_run(tmp_path / "new.json", after)
    assert main(["gate", "--baseline", str(base), "--results", str(new)]) == 1
    assert "lost control-000" in capsys.readouterr().out


@pytest.mark.parametrize("side", ["results", "baseline"])
def test_gate_refuses_an_instance_recorded_twice(tmp_path, capsys, side):
    before, after = _lost_first_then_passing_copy()
    if side == "baseline":
        before, after = after, before
    base, new = write_run(tmp_path / "base.json", before), write_run(tmp_path / "new.json", after)
    junit = tmp_path / "gate.xml"
    code = main(["gate", "--baseline", str(base), "--results", str(new), "--junit", str(junit)])
    captured = capsys.readouterr()
    named = new if side == "results" else base
    assert code == 2
    assert captured.err == (
        f"ragaudit gate: {named}: instances[0] and instances[5] are both instance "
        f"'control-000' under config 'C', embedder '{PRIMARY}' (a run records each instance "
        "once per column); refusing to pair by id\n"
    )
    assert captured.out == "" and not junit.exists()


def test_compare_refuses_an_instance_recorded_twice(tmp_path, capsys):
    before, after = _lost_first_then_passing_copy()
    base, new = write_run(tmp_path / "a.json", before), write_run(tmp_path / "b.json", after)
    out = tmp_path / "out"
    assert main(["compare", str(base), str(new), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"{new}: instances[0] and instances[5] are both instance 'control-000'" in err
    assert not out.exists()


@pytest.mark.parametrize("mark", ["yes", 1, True, 0, False, "", [], ["seed 17"]])
def test_gate_refuses_a_flaky_mark_of_another_type(tmp_path, capsys, mark):
    """An answer lost on superseded-001, its record marked flaky with a wrong type: a truthy
    mark used to leave it out (exit 0), a falsy one to count it (exit 1), silently."""
    before = gate_run({("superseded", "C"): [True] * 3}, measure="correct")
    after = gate_run({("superseded", "C"): [True, False, True]}, measure="correct")
    after["instances"][1]["flaky"] = mark
    base, new = write_run(tmp_path / "base.json", before), write_run(tmp_path / "new.json", after)
    assert main(["gate", "--baseline", str(base), "--results", str(new)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ragaudit gate: {new}: instances[1].flaky must be an object or null")
    assert err.count("\n") == 1


def test_a_flaky_mark_as_run_repeat_writes_it_still_leaves_the_instance_out(tmp_path, capsys):
    before = gate_run({("superseded", "C"): [True] * 3}, measure="correct")
    after = gate_run({("superseded", "C"): [True, False, True]}, measure="correct")
    after["instances"][1]["flaky"] = {
        "conditions": ["seed 17", "seed 18"],
        "verdicts": ["trap_taken", "correct"],
    }
    base, new = write_run(tmp_path / "base.json", before), write_run(tmp_path / "new.json", after)
    assert main(["gate", "--baseline", str(base), "--results", str(new)]) == 0
    assert "1 flaky instance(s) left out" in capsys.readouterr().out
