"""Compare two runs: `ragaudit compare A B` and the Compare page.

The small runs are written here by hand, so every expected figure is counted by hand: A
holds boundary x C with gold_in_context [T, T, F, F, F, F, F, T] (3/8), B the same eight
instances with [T, F, T, T, T, T, T, T] (7/8): five gained (002..006), one lost (001).
Exact McNemar on 5 gains against 1 loss: 2 * (C(6,0) + C(6,1)) / 2**6 = 14/64 = 0.21875.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from helpers.ui_fixtures import build_results, open_app, texts

from ragaudit.cli.main import main
from ragaudit.results.reference import REFERENCE_FILE

PRIMARY = "local:minilm"
MINILM = {"spec": PRIMARY, "kind": "embedder", "backend": "local", "name": "minilm"}
A_VALUES = [True, True, False, False, False, False, False, True]
B_VALUES = [True, False, True, True, True, True, True, True]


def _record(i: int, value: bool | None, config: str = "C", embedder: str = PRIMARY) -> dict:
    return {
        "key": f"boundary/boundary-{i:03d}/{config}/{embedder}",
        "probe": "boundary",
        "layer": "architectural",
        "instance_id": f"boundary-{i:03d}",
        "config": config,
        "embedder": embedder,
        "question": f"question {i}?",
        "gold_in_context": value,
        "retrieved": [],
    }


def _cell(count: int, n: int, wilson: list, config: str = "C", embedder: str = PRIMARY):
    measure = {"count": count, "n": n, "rate": count / n, "wilson": wilson}
    return {
        "probe": "boundary",
        "layer": "architectural",
        "config": config,
        "embedder": embedder,
        "n": n,
        "generated": False,
        "measures": {"gold_in_context": measure},
    }


def _run(values: list, wilson: list, *, sha: str = "a" * 64, digest: str = "d" * 64) -> dict:
    """One run of boundary x C under local:minilm with these gold_in_context values."""
    count = sum(1 for v in values if v is True)
    return {
        "schema_version": 4,
        "created_at": "2026-12-01T10:00:00+00:00",
        "complete": True,
        "run": {},
        "corpus": {"seed": 7, "n": len(values), "sha256": sha, "probes": []},
        "configs": [{"name": "C", "splitter": "recursive", "chunk_size": 1000, "overlap": 200}],
        "embedders": [{"spec": PRIMARY, "role": "primary"}],
        "models": [{**MINILM, "digest": digest, "digest_reason": None}],
        "conditions": {},
        "chunks": {},
        "instances": [_record(i, v) for i, v in enumerate(values)],
        "cells": [_cell(count, len(values), wilson)],
        "comparisons": [],
        "severity_rules": [],
    }


def _write(path: Path, results: dict) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, allow_nan=False))
    return path


@pytest.fixture
def runs(tmp_path) -> tuple[Path, Path]:
    a = _write(tmp_path / "a.json", _run(A_VALUES, [0.14, 0.69]))
    b = _write(tmp_path / "b.json", _run(B_VALUES, [0.53, 0.98]))
    return a, b


def test_flips_both_ways_and_exact_mcnemar(runs, tmp_path, capsys):
    a, b = runs
    assert main(["compare", str(a), str(b), "--out", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    row = "| boundary | C | 38% 3/8 [14–69%] | 88% 7/8 [53–98%] | 63% 5/8 | 13% 1/8 | 0.2188 |"
    assert row in out
    # these runs record no indexed documents (no chunk_offsets, no count): said unchecked
    assert (
        "Paired by id: the same corpus manifest, the same questions, the same weights for "
        "every model both ran; unchecked: the indexed document set (not recorded in both "
        "files).\n"
    ) in out
    gained = ", ".join(f"`boundary-{i:03d}`" for i in range(2, 7))
    assert f"boundary · C: gained {gained}; lost `boundary-001`" in out
    markdown = (tmp_path / "out" / "compare.md").read_text()
    assert row in markdown
    html = (tmp_path / "out" / "compare.html").read_text()
    assert "<td>63% 5/8</td><td>13% 1/8</td><td>0.2188</td>" in html
    assert "<script" not in html


def test_an_instance_without_a_value_is_not_paired(tmp_path, capsys):
    # A's boundary-001 has no value (retrieval failed): the pairs are the other seven,
    # and its loss is no longer counted: 5 gains, 0 losses, p = 2 * 1/32 = 0.0625.
    values = [True, None, False, False, False, False, False, True]
    a = _write(tmp_path / "a.json", _run(values, [0.1, 0.6]))
    b = _write(tmp_path / "b.json", _run(B_VALUES, [0.53, 0.98]))
    assert main(["compare", str(a), str(b), "--format", "md", "--out", str(tmp_path)]) == 0
    assert "| 71% 5/7 | 0% 0/7 | 0.0625 |" in capsys.readouterr().out
    assert not (tmp_path / "compare.html").exists()


def test_other_corpus_gives_only_unpaired_rates(tmp_path, capsys):
    a = _write(tmp_path / "a.json", _run(A_VALUES, [0.14, 0.69]))
    b = _write(tmp_path / "b.json", _run(B_VALUES, [0.53, 0.98], sha="b" * 64))
    assert main(["compare", str(a), str(b), "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "| 38% 3/8 [14–69%] | 88% 7/8 [53–98%] | unpaired | unpaired | unpaired |" in out
    assert "The corpora differ (manifest sha256 A aaaaaaaaaaaa…, B bbbbbbbbbbbb…)" in out
    assert "gained `boundary-002`" not in out


def test_other_weights_of_one_model_give_only_unpaired_rates(tmp_path, capsys):
    a = _write(tmp_path / "a.json", _run(A_VALUES, [0.14, 0.69]))
    b = _write(tmp_path / "b.json", _run(B_VALUES, [0.53, 0.98], digest="e" * 64))
    assert main(["compare", str(a), str(b), "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "local:minilm has other weights in A (dddddddddddd…) than in B (eeeeeeeeeeee…)" in out
    assert "| unpaired | unpaired | unpaired |" in out
    assert (
        "The same corpus manifest, the same questions, but other weights for local:minilm: "
        "compare gives only unpaired rates across other weights (`ragaudit gate` pairs "
        "across them, as the change under test).\n"
    ) in out


def _with_stack(results: dict, values: list) -> dict:
    """`results` run as the user's stack `mine` (under its own embedder) instead of C."""
    embedder = "openai:nomic-embed-text"
    out = copy.deepcopy(results)
    out["configs"] = [
        {
            "name": "mine",
            "kind": "stack",
            "chunking": "stack-mine",
            "k": 3,
            "stack": {"embedder": {"spec": embedder}},
        }
    ]
    out["embedders"] = []
    out["models"].append({"spec": embedder, "kind": "embedder", "digest": "f" * 64})
    out["instances"] = [_record(i, v, "mine", embedder) for i, v in enumerate(values)]
    out["cells"] = [_cell(7, 8, [0.53, 0.98], "mine", embedder)]
    return out


def test_pair_names_a_column_of_each_run(tmp_path, capsys):
    a = _write(tmp_path / "a.json", _run(A_VALUES, [0.14, 0.69]))
    b = _write(tmp_path / "b.json", _with_stack(_run(A_VALUES, [0.0, 1.0]), B_VALUES))
    # Nothing in common by default: one line, exit 2, nothing written.
    assert main(["compare", str(a), str(b), "--out", str(tmp_path)]) == 2
    assert "--pair A_CONFIG=B_CONFIG" in capsys.readouterr().err
    assert not (tmp_path / "compare.md").exists()
    assert main(["compare", str(a), str(b), "--pair", "C=mien", "--out", str(tmp_path)]) == 2
    assert "unknown config in run B 'mien'; did you mean 'mine'?" in capsys.readouterr().err
    assert main(["compare", str(a), str(b), "--pair", "C=mine", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "| boundary | C → mine (openai:nomic-embed-text) | 38% 3/8 [14–69%] |" in out
    assert "| 63% 5/8 | 13% 1/8 | 0.2188 |" in out
    assert "Only B ran openai:nomic-embed-text." in out


# --- the Compare page -------------------------------------------------------------------


def _page_runs(home: Path) -> tuple[dict, dict, str]:
    """The synthetic n=3 run as A, and B a copy with one record's gold_in_context flipped:
    boundary-001 under B (k=3) and the primary embedder. Returns (A, B, A's value)."""
    a = build_results(n=3, generate=False)
    b = copy.deepcopy(a)
    key = ("boundary", "boundary-001", "B", PRIMARY)
    fields = ("probe", "instance_id", "config", "embedder")
    record = next(r for r in b["instances"] if tuple(r[f] for f in fields) == key)
    record["gold_in_context"] = not record["gold_in_context"]
    _write(home / "results" / "a.json", a)
    _write(home / "results" / "b.json", b)
    return a, b, record["gold_in_context"]


def test_page_shows_the_flip_and_both_sides(ragaudit_home, monkeypatch):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    _a, _b, now = _page_runs(ragaudit_home)
    at = open_app(page="pages/compare.py")
    at.selectbox(key="compare_file_a").set_value(str(ragaudit_home / "results" / "a.json"))
    at.selectbox(key="compare_file_b").set_value(str(ragaudit_home / "results" / "b.json")).run()
    assert not at.exception
    assert at.success[0].value.startswith(
        "Paired by id: the same corpus manifest, the same questions, the same indexed document"
    )
    assert at.subheader[0].value == "Flipped instances (1)"
    flips = at.dataframe[1].value
    assert list(flips["instance"]) == ["boundary-001"]
    assert list(flips["flip"]) == ["gained (A no → B yes)" if now else "lost (A yes → B no)"]
    at.session_state["compare_flips"] = {"selection": {"rows": [0], "columns": []}}
    at.run()
    assert not at.exception
    shown = texts(at)
    assert "boundary-001 under both runs" in shown
    assert f"gold in context **{not now}**" in shown and f"gold in context **{now}**" in shown
    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]
    assert titles[0].startswith("A: boundary-001") and titles[-1].startswith("B: boundary-001")


def test_page_lists_only_the_results_folder_and_needs_two(ragaudit_home, monkeypatch, tmp_path):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    _write(ragaudit_home / "results" / "a.json", _run(A_VALUES, [0.14, 0.69]))
    _write(ragaudit_home / "results" / "a.partial.json", _run(A_VALUES, [0.14, 0.69]))
    elsewhere = _write(tmp_path / "elsewhere" / "b.json", _run(B_VALUES, [0.53, 0.98]))
    at = open_app(page="pages/compare.py", results=str(elsewhere))
    assert not at.exception
    # the results folder's one file and the shipped reference run; never the link's file
    options = at.selectbox(key="compare_file_a").options
    assert options == ["a.json", REFERENCE_FILE.name]  # as the page names them
