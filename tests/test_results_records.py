"""Malformed records (issue 25, item 19): the loader checks every record's required fields
once, so `compare`, `export`, `report` and the inspector's pages all say the same one line
naming the record and the field (exit 2, no file written), never a KeyError or TypeError
traceback, and `export` never writes a row of empty fields. Each command runs
`ragaudit.cli.main.main` in this process; one case also runs the installed script."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.ui_fixtures import open_app, write_results

from ragaudit.cli.main import main

RAGAUDIT = [str(Path(sys.executable).parent / "ragaudit")]

# (what replaces a list of a good file, the message's words after "<file>: ")
CARRIES = "(every record of '{}' carries one)"
MALFORMED = {
    "instance-without-fields": (
        "instances", [{"x": 1}], "instances[0] has no 'key' " + CARRIES.format("instances")
    ),
    "cell-with-null-config": (
        "cells", [{"config": None}], "cells[0] has no 'probe' " + CARRIES.format("cells")
    ),
    "model-spec-a-list": (
        "models", [{"spec": ["list"]}], 'models[0].spec must be a string, not ["list"]'
    ),
    "instance-config-null": (
        "instances", "config=None", "instances[1] has no 'config' " + CARRIES.format("instances")
    ),
}  # fmt: skip


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A good results file and one malformed copy of it per case."""
    folder = tmp_path_factory.mktemp("records")
    good = write_results(folder / "good.json", n=3)
    data = json.loads(good.read_text())
    bad = {}
    for name, (field, value, _words) in MALFORMED.items():
        copy = json.loads(json.dumps(data))
        if value == "config=None":  # one record among good ones
            copy["instances"][1]["config"] = None
        else:
            copy[field] = value
        bad[name] = folder / f"{name}.json"
        bad[name].write_text(json.dumps(copy))
    return good, bad


def ragaudit(*argv: str, home: Path) -> subprocess.CompletedProcess:
    """The installed script in its own process, as a user runs it."""
    env = {**os.environ, "RAGAUDIT_HOME": str(home)}
    return subprocess.run([*RAGAUDIT, *argv], capture_output=True, text=True, timeout=300, env=env)


def in_process(*argv: str, home: Path, monkeypatch, capfd) -> tuple[int, str]:
    """`ragaudit ARGV` in this process: (exit status, stderr)."""
    monkeypatch.setenv("RAGAUDIT_HOME", str(home))
    capfd.readouterr()
    status = main(list(argv))
    return status, capfd.readouterr().err


COMMANDS = {
    "export": lambda bad, good, out: ["export", "--results", str(bad), "--out", str(out / "x.csv")],
    "report": lambda bad, good, out: ["report", "--results", str(bad), "--out", str(out)],
    "compare A": lambda bad, good, out: ["compare", str(bad), str(good), "--out", str(out)],
    "compare B": lambda bad, good, out: ["compare", str(good), str(bad), "--out", str(out)],
}  # fmt: skip


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize("case", list(MALFORMED))
def test_each_command_names_the_record_and_field(
    files, tmp_path, command, case, monkeypatch, capfd
):
    good, bad = files
    out = tmp_path / "out"
    out.mkdir()
    before = {p: p.read_bytes() for p in (good, bad[case])}
    argv = COMMANDS[command](bad[case], good, out)
    status, stderr = in_process(*argv, home=tmp_path / "home", monkeypatch=monkeypatch, capfd=capfd)
    name = command.split()[0]
    assert status == 2, stderr[-2000:]
    assert stderr == f"ragaudit {name}: {bad[case]}: {MALFORMED[case][2]}\n"
    assert list(out.iterdir()) == []  # nothing written
    assert {p: p.read_bytes() for p in before} == before


def test_the_installed_script_names_the_record_and_field(files, tmp_path):
    good, bad = files
    out = tmp_path / "out"
    out.mkdir()
    case = "instance-config-null"
    done = ragaudit(*COMMANDS["export"](bad[case], good, out), home=tmp_path / "home")
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr == f"ragaudit export: {bad[case]}: {MALFORMED[case][2]}\n"
    assert list(out.iterdir()) == []  # nothing written


@pytest.mark.parametrize("page", [None, "pages/instance.py", "pages/severity.py"])
def test_the_pages_say_the_same_line(files, ragaudit_home, monkeypatch, page):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    _good, bad = files
    results = ragaudit_home / "results"
    results.mkdir()
    planted = results / "bad.json"
    planted.write_bytes(bad["model-spec-a-list"].read_bytes())
    at = open_app(planted, page=page)
    assert not at.exception
    (error,) = at.error
    assert error.value == f"Cannot show results: {planted}: {MALFORMED['model-spec-a-list'][2]}"


def test_export_writes_no_row_of_empty_fields(files, tmp_path, monkeypatch, capfd):
    """The good file: every row carries its record's key, probe, instance, config, embedder."""
    good, _bad = files
    out = tmp_path / "records.csv"
    argv = ("export", "--results", str(good), "--out", str(out))
    status, stderr = in_process(*argv, home=tmp_path / "home", monkeypatch=monkeypatch, capfd=capfd)
    assert status == 0, stderr
    rows = list(csv.DictReader(out.open()))
    records = json.loads(good.read_text())["instances"]
    assert len(rows) == len(records)
    identity = ("key", "probe", "instance_id", "config", "embedder")
    assert [tuple(r[f] for f in identity) for r in rows] == [
        tuple(r[f] for f in identity) for r in records
    ]
