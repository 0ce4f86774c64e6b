"""Issue 11, defects 5 and 6, as a user meets them on the command line: each bad input is
one line on stderr naming the file, field or value, exit 2, no traceback, and nothing is
modified (the input's bytes, the data folder); no value is clamped without a word."""

from __future__ import annotations

import hashlib
import json
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.analysis_fixtures import analysed_results

from ragaudit.backends.cache import CallCache
from ragaudit.cli.main import main
from ragaudit.errors import RagauditError
from ragaudit.results.io import write_results

SEED = 20261201  # every random byte in this file comes from here


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def one_line_error(capsys, *argv: str) -> str:
    """Run `ragaudit argv` in-process; assert exit 2 and one stderr line; return it."""
    status = main(list(argv))
    err = capsys.readouterr().err
    assert status == 2, (argv, err)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err.rstrip("\n")


@pytest.fixture
def results_file(tmp_path) -> Path:
    """A complete, analysed results file (the report renders it)."""
    path = tmp_path / "results" / "latest.json"
    write_results(path, analysed_results())
    return path


# -- defect 5: tracebacks instead of one-line errors ----------------------------------------


def test_a_binary_configs_file_is_one_line_naming_it(ragaudit_home, tmp_path, capsys):
    configs = tmp_path / "configs.yaml"
    configs.write_bytes(b"- name: X\n  k: 3\n\xff\xfe\x00binary")
    before = sha256(configs)
    line = one_line_error(capsys, "run", "--configs", str(configs), "--no-generate")
    assert line == f"ragaudit run: configs file {configs}: not UTF-8 text (byte 17)"
    assert sha256(configs) == before
    assert list(ragaudit_home.iterdir()) == []  # refused before any work


def test_a_binary_results_file_is_one_line_in_report(tmp_path, capsys):
    results = tmp_path / "latest.json"
    results.write_bytes(random.Random(SEED).randbytes(4096))
    line = one_line_error(capsys, "report", "--results", str(results))
    assert line.startswith(f"ragaudit report: {results}: not UTF-8 text (byte ")
    assert [p.name for p in tmp_path.iterdir()] == ["latest.json"]  # no report written


def test_a_fifo_given_as_results_is_refused_without_being_opened(tmp_path, capsys):
    fifo = tmp_path / "latest.json"
    os.mkfifo(fifo)  # opening it for reading would block until a writer came
    line = one_line_error(capsys, "report", "--results", str(fifo))
    assert line == f"ragaudit report: {fifo}: not a regular file"


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_a_non_finite_number_in_results_is_refused_at_load(results_file, capsys, constant):
    data = json.loads(results_file.read_text())
    text = json.dumps(data, indent=1).replace(
        '"wilson_confidence": 0.95', f'"wilson_confidence": {constant}'
    )
    assert constant in text
    results_file.write_text(text)
    line = one_line_error(capsys, "report", "--results", str(results_file))
    assert line == (
        f"ragaudit report: {results_file}: not valid JSON ({constant} is not a number JSON "
        "allows; ragaudit writes finite numbers only)"
    )
    assert sorted(p.name for p in results_file.parent.iterdir()) == ["latest.json"]


def test_a_results_field_of_the_wrong_type_is_one_line_naming_the_field(results_file, capsys):
    data = json.loads(results_file.read_text())
    results_file.write_text(json.dumps({**data, "cells": {"A": 1}}))
    line = one_line_error(capsys, "report", "--results", str(results_file))
    assert line == (
        f"ragaudit report: {results_file}: field 'cells' must be a list, not {{'A': 1}}"
    )
    data["analysis"]["wilson_confidence"] = "high"  # deeper than the loader checks
    results_file.write_text(json.dumps(data))
    line = one_line_error(capsys, "report", "--results", str(results_file))
    assert line == (
        f"ragaudit report: {results_file}: cannot render a report: a field is missing or "
        "holds a value the results schema (docs/results-schema.md) does not allow "
        "(ValueError: could not convert string to float: 'high')"
    )


def corrupt_cache(path: Path) -> None:
    """A real cache of 300 stored calls with a run of pages in its middle zeroed (a bad
    sector, a torn copy): page 1 and the schema still read, so only a read of every
    page finds it."""
    cache = CallCache(path)
    rng = random.Random(SEED)
    cache.put_many("local:minilm", "embed", [(f"key-{i}", rng.randbytes(1536)) for i in range(300)])
    cache.close()
    data = bytearray(path.read_bytes())
    page = 4096
    middle = len(data) // page // 2 * page
    data[middle : middle + 8 * page] = bytes(8 * page)
    path.write_bytes(bytes(data))


def test_a_cache_damaged_mid_file_is_refused_at_open_untouched(ragaudit_home, tmp_path, capsys):
    (tmp_path / "corpus" / "statutes").mkdir(parents=True)
    (tmp_path / "corpus" / "statutes" / "act.txt").write_text("Work tools are excluded.")
    cases = tmp_path / "cases.yaml"
    cases.write_text(
        "intents:\n  - intent: tools\n    expect: [statutes/act]\n"
        "    phrasings: [Are work tools excluded, Do tools count]\n"
    )
    cache = ragaudit_home / "cache.sqlite"
    corrupt_cache(cache)
    before = sha256(cache)
    line = one_line_error(capsys, "audit", str(tmp_path / "corpus"), str(cases))
    assert line == (
        f"ragaudit audit: {cache}: not a readable ragaudit model-call cache (database disk "
        "image is malformed); it was left untouched: move it aside to start a fresh cache"
    )
    assert sha256(cache) == before
    # nothing ran: besides the cache, only the run lock the audit took (released: no PID left)
    assert sorted(p.name for p in ragaudit_home.iterdir()) == ["cache.sqlite", "run.lock"]
    assert (ragaudit_home / "run.lock").read_text() == ""


def test_a_busy_cache_is_called_busy_and_never_called_discardable(tmp_path):
    path = tmp_path / "cache.sqlite"
    CallCache(path).close()
    holder = sqlite3.connect(path)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")  # another process mid-write, as in two runs at once
    try:
        with pytest.raises(RagauditError) as caught:
            CallCache(path, timeout=0.2)
    finally:
        holder.close()
    message = str(caught.value)
    assert message == (
        f"{path}: the model-call cache is busy (database is locked): another process is "
        "writing it; the cache is fine, rerun when that process has finished"
    )
    CallCache(path).close()  # and it was fine


@pytest.mark.parametrize("kind", ["under_a_file", "fifo", "proc"])
def test_an_unwritable_out_is_refused_before_any_work(ragaudit_home, tmp_path, capsys, kind):
    if kind == "under_a_file":
        (tmp_path / "notes.txt").write_text("keep me")
        out, why = tmp_path / "notes.txt" / "r.json", f"{tmp_path / 'notes.txt'} is a file"
    elif kind == "fifo":
        out, why = tmp_path / "r.json", "exists and is not a regular file"
        os.mkfifo(out)
    else:
        out, why = Path("/proc/ragaudit-no-such/r.json"), "cannot write in /proc ("
    line = one_line_error(capsys, "run", "--no-generate", "--n", "1", "--out", str(out))
    assert line.startswith(f"ragaudit run: --out {out}: {why}"), line
    assert list(ragaudit_home.iterdir()) == []
    if kind == "under_a_file":
        assert (tmp_path / "notes.txt").read_text() == "keep me"


def test_an_unwritable_report_folder_is_refused_before_writing(results_file, capsys):
    out = Path("/proc/ragaudit-no-such")
    line = one_line_error(capsys, "report", "--results", str(results_file), "--out", str(out))
    assert line.startswith(f"ragaudit report: --out {out}/report.md: cannot write in /proc (")
    assert capsys.readouterr().out == ""  # not even the tables: nothing half done


# -- defect 6: values clamped without a word --------------------------------------------------


def test_n_above_the_corpus_is_refused_naming_its_size(ragaudit_home, capsys):
    line = one_line_error(capsys, "run", "--n", "100000", "--no-generate")
    assert line.endswith("holds 25 instances per probe; give at most 25")
    assert line.startswith("ragaudit run: --n 100000: the corpus (")
    assert list(ragaudit_home.iterdir()) == []


def test_k_above_the_pool_depth_is_refused_naming_it(ragaudit_home, tmp_path, capsys):
    configs = tmp_path / "mine.yaml"
    configs.write_text("- {name: X, splitter: fixed, chunk_size: 1000, overlap: 0, k: 1000000}\n")
    line = one_line_error(capsys, "run", "--configs", str(configs), "--no-generate")
    assert line == (
        f"ragaudit run: configs file {configs}: line 1: field k: 1000000 is more than 50, the "
        "retrieval pool depth (stack.settings.POOL_DEPTH): deeper ranks are not kept (got 1000000)"
    )


def test_a_floor_naming_no_source_type_is_refused_before_embedding(ragaudit_home, tmp_path, capsys):
    corpus = tmp_path / "corpus"
    for folder, name in (("statutes", "act"), ("guides", "deadlines")):
        (corpus / folder).mkdir(parents=True)
        (corpus / folder / f"{name}.txt").write_text(f"The {name} text.")
    (corpus / "top.txt").write_text("A document at the top has no source type.")
    cases = tmp_path / "cases.yaml"
    cases.write_text(
        "intents:\n  - intent: tools\n    expect: [statutes/act]\n"
        "    phrasings: [Are work tools excluded, Do tools count]\n"
    )
    settings = tmp_path / "prod.yaml"
    settings.write_text("k: 3\nfloor:\n  source_type: statute\n  slots: 1\n")
    line = one_line_error(capsys, "audit", str(corpus), str(cases), "--settings", str(settings))
    assert line == (
        f"ragaudit audit: settings file {settings}: field floor.source_type: 'statute' "
        "matches no document of the corpus; its source types are guides, statutes"
    )
    # no cache opened, nothing embedded: only the run lock the audit took, released
    assert [p.name for p in ragaudit_home.iterdir()] == ["run.lock"]
    assert (ragaudit_home / "run.lock").read_text() == ""


def test_the_real_entry_point_prints_the_same_one_line(tmp_path):
    results = tmp_path / "latest.json"
    results.write_text('{"schema_version": 2, "x": NaN}')
    done = subprocess.run(
        [sys.executable, "-m", "ragaudit.cli.main", "report", "--results", str(results)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr == (
        f"ragaudit report: {results}: not valid JSON (NaN is not a number JSON allows; "
        "ragaudit writes finite numbers only)\n"
    )
