"""`ragaudit drift` over source files: retrieval constants read from real parsed Python,
JavaScript/TypeScript, YAML and .env files, each with file:line, compared side by side with
the looser side named, one-side-only constants listed, a name map, the results file and the
JUnit file. Expected values and lines are read off the example files by hand."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from ragaudit.cli.main import main
from ragaudit.paths import REPO_ROOT

EXAMPLE = REPO_ROOT / "examples" / "drift"
AGENT = EXAMPLE / "api" / "agent.ts"
SCRIPT = EXAMPLE / "scripts" / "check-law-retrieval.cjs"


def write(tmp_path, name, text):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def drift(capsys, *argv):
    """Run `ragaudit drift`; (exit status, {constant: its line}, all stdout lines)."""
    status = main(["drift", *map(str, argv)])
    lines = capsys.readouterr().out.splitlines()
    rows = {line.split(": ", 1)[0].strip(): line for line in lines if line.startswith("  ")}
    return status, rows, lines


def test_the_example_names_the_eval_scripts_backfill_looser(ragaudit_home, capsys):
    status, rows, lines = drift(capsys, AGENT, SCRIPT, "--map", EXAMPLE / "names.yaml")
    assert status == 1
    # production backfills from the first 12, the script from the whole pool of 8 × 6
    assert rows["backfill_range"] == (
        f"  backfill_range: 12 at {AGENT}:32 (backfillPool = candidates.slice(0, N)) | "
        f"48 = CANDIDATE_POOL at {SCRIPT}:20 (backfillPool = candidates.slice(0, N)) -> "
        "check-law-retrieval.cjs is looser (the floor may reach further down the ranking)"
    )
    assert rows["candidate_pool"].endswith("-> same")
    assert (
        f"48 = TOP_K * CANDIDATE_MULTIPLIER at {AGENT}:9 (CANDIDATE_POOL)"
        in (rows["candidate_pool"])
    )
    assert rows["k"] == f"  k: 8 at {AGENT}:7 (TOP_K) | 8 at {SCRIPT}:8 (TOP_K) -> same"
    # the per-source cap production added exists in production only
    assert rows["per_source_cap"] == (
        f"  per_source_cap: 2 at {AGENT}:11 (MAX_PER_SOURCE) | not found in "
        "check-law-retrieval.cjs -> on one side only"
    )
    # the map pairs the script's own name with production's reserved slots
    assert f"2 at {SCRIPT}:11 (LAW_SLOTS_RESERVED) -> same" in rows["floor.slots"]
    assert lines[0] == (
        "drift: agent.ts vs check-law-retrieval.cjs: 1 of 7 constants set on both sides "
        "differ; 1 set on one side only"
    )
    assert "[fail] check-law-retrieval.cjs is looser than agent.ts on 1 constant(s)" in lines[-3]
    assert lines[-1] == f"results: {ragaudit_home / 'results' / 'drift.json'}"


def test_without_the_map_the_scripts_own_name_is_one_side_only(ragaudit_home, capsys):
    status, rows, _ = drift(capsys, AGENT, SCRIPT)
    assert status == 1
    assert rows["floor.slots"].endswith("not found in check-law-retrieval.cjs -> on one side only")
    assert "LAW_SLOTS_RESERVED" not in "\n".join(rows.values())


PROD_PY = """\
TOP_K = 6
CANDIDATE_POOL = 48
MIN_SCORE = 0.3


def retrieve(question, store):
    hits = store.query(question, n_results=CANDIDATE_POOL)
    backfill = hits[:12]
    return hits[:TOP_K], backfill
"""

EVAL_PY = """\
import os

TOP_K = int(os.environ.get("TOP_K", "6"))
CANDIDATE_POOL = 48


def check(store, question):
    hits = retrieve(question, k=12)
    backfill = hits[:CANDIDATE_POOL]
    return hits[0:TOP_K], backfill
"""


def test_python_files_keyword_argument_truncations_and_one_side_only(tmp_path, capsys):
    prod, test = write(tmp_path, "app.py", PROD_PY), write(tmp_path, "check.py", EVAL_PY)
    status, rows, _ = drift(capsys, prod, test, "--out", tmp_path / "drift.json")
    assert status == 1
    # `backfill = hits[:N]`: named by the assignment; the eval reaches the whole pool
    assert rows["backfill_range"] == (
        f"  backfill_range: 12 at {prod}:8 (backfill = hits[:N]) | 48 = CANDIDATE_POOL at "
        f"{test}:9 (backfill = hits[:N]) -> check.py is looser (the floor may reach further "
        "down the ranking)"
    )
    # the environment variable's default is what runs unless a deployment sets it
    assert rows["k"].startswith(f"  k: 6 at {prod}:1 (TOP_K) | 6 = int(os.environ.get(")
    # `retrieve(question, k=12)` beside TOP_K = 6: kept under its own name, eval side only
    assert rows["k (retrieve(k=))"] == (
        f"  k (retrieve(k=)): not found in app.py | 12 at {test}:8 (retrieve(k=)) -> "
        "on one side only"
    )
    # an unnamed `[:N]` pairs with `[0:N]` of the same list
    assert rows["hits[:N]"].endswith("-> same")
    assert rows["min_score"].endswith("not found in check.py -> on one side only")
    # a call's own top-k (n_results=48) beside TOP_K = 6 is its own row too
    assert rows["k (store.query(n_results=))"].startswith(
        f"  k (store.query(n_results=)): 48 = CANDIDATE_POOL at {prod}:7"
    )


def test_a_js_object_entry_against_a_python_keyword_argument(tmp_path, capsys):
    prod = write(tmp_path, "api/agent.ts", "const opts = { topK: 8, minScore: 0.4 };\n")
    test = write(tmp_path, "eval.py", "hits = retrieve(question, k=12, min_score=0.2)\n")
    status, rows, lines = drift(capsys, prod, test, "--out", tmp_path / "drift.json")
    assert status == 1
    assert rows["k"] == (
        f"  k: 8 at {prod}:1 (topK) | 12 at {test}:1 (retrieve(k=)) -> eval.py is looser "
        "(more slots reach the model)"
    )
    assert rows["min_score"].endswith("-> eval.py is looser (fewer candidates are dropped by "
                                      "the threshold (none = no threshold))")  # fmt: skip
    assert "[fail] eval.py is looser than agent.ts on 2 constant(s)" in "\n".join(lines)


def test_js_slice_against_python_slice_of_the_same_list(tmp_path, capsys):
    prod = write(tmp_path, "agent.js", "const top = lawCandidates.slice(0, 12);\n")
    test = write(tmp_path, "check.py", "top = law_candidates[:20]\n")
    status, rows, _ = drift(capsys, prod, test, "--out", tmp_path / "drift.json")
    assert status == 1
    assert rows["law_candidates[:N]"] == (
        f"  law_candidates[:N]: 12 at {prod}:1 (top = lawCandidates.slice(0, N)) | 20 at "
        f"{test}:1 (top = law_candidates[:N]) -> check.py is looser (a longer slice keeps "
        "more of the ranking)"
    )


def test_env_file_against_a_project_yaml_config(tmp_path, capsys):
    prod = write(tmp_path, "prod/.env", "# retrieval\nexport TOP_K=8\nCHUNK_SIZE='800'\n")
    test = write(tmp_path, "eval.yaml", "retrieval:\n  top_k: 10\n  chunk_size: 800\n")
    status, rows, _ = drift(capsys, prod, test, "--out", tmp_path / "drift.json")
    assert status == 1
    assert rows["k"] == (
        f"  k: 8 at {prod}:2 (TOP_K) | 10 at {test}:2 (retrieval.top_k) -> eval.yaml is "
        "looser (more slots reach the model)"
    )
    assert rows["chunk_size"].endswith("-> same")


def test_the_same_constants_in_two_languages_agree(tmp_path, capsys):
    prod = write(tmp_path, "agent.ts", "export const TOP_K = 8;\nconst MAX_PER_SOURCE = 2;\n")
    test = write(tmp_path, "check.py", "MAX_PER_SOURCE = 2\nTOP_K = 4 * 2\n")
    status, _, lines = drift(capsys, prod, test, "--out", tmp_path / "drift.json")
    assert status == 0
    assert lines[0] == "drift: agent.ts vs check.py: 0 of 2 constants set on both sides differ; "\
        "0 set on one side only"  # fmt: skip


def test_a_name_mapped_to_null_is_left_out_and_a_bad_map_is_one_line(tmp_path, capsys):
    prod = write(tmp_path, "a.py", "TOP_K = 8\nRERANK_DEPTH = 30\n")
    test = write(tmp_path, "b.py", "TOP_K = 8\nDEPTH = 50\nmin_score = 0.1\n")
    names = write(tmp_path, "names.yaml", "RERANK_DEPTH: candidate_pool\nDEPTH: candidate_pool\n"
                  "min_score: null\n")  # fmt: skip
    status, rows, _ = drift(capsys, prod, test, "--map", names, "--out", tmp_path / "d.json")
    assert status == 1
    assert "b.py is looser" in rows["candidate_pool"]
    assert "min_score" not in rows
    bad = write(tmp_path, "bad.yaml", "TOP_K: k\nDEPTH: candidate_pol\n")
    assert main(["drift", str(prod), str(test), "--map", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert f"name map {bad}: line 2: DEPTH: unknown constant 'candidate_pol'; did you mean " \
        "'candidate_pool'?" in err  # fmt: skip


@pytest.mark.parametrize(
    "name, text, expected",
    [
        ("broken.py", "TOP_K = 8\ndef f(:\n", "broken.py:2: not valid Python"),
        ("notes.txt", "TOP_K = 8\n", "notes.txt: not a kind drift reads"),
        ("missing.ts", None, "missing.ts: no such file"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, name, text, expected):
    prod = write(tmp_path, "agent.ts", "const TOP_K = 8;\n")
    test = tmp_path / name if text is None else write(tmp_path, name, text)
    assert main(["drift", str(prod), str(test), "--out", str(tmp_path / "d.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and expected in err


def test_results_file_and_junit_one_case_per_constant(tmp_path, capsys):
    out, junit = tmp_path / "drift.json", tmp_path / "drift.xml"
    argv = [AGENT, SCRIPT, "--map", EXAMPLE / "names.yaml", "--out", out, "--junit", junit]
    assert drift(capsys, *argv)[0] == 1
    document = json.loads(out.read_text())
    assert document["kind"] == "drift" and document["mode"] == "source"
    by_constant = {entry["constant"]: entry for entry in document["constants"]}
    backfill = by_constant["backfill_range"]
    assert backfill["production"]["value"] == 12 and backfill["production"]["line"] == 32
    assert backfill["evaluation"]["value"] == 48 and backfill["evaluation"]["line"] == 20
    assert backfill["looser"] == "evaluation" and backfill["differs"] is True
    assert by_constant["per_source_cap"]["evaluation"] is None
    # 8 constants (k, multiplier, pool, cap, reserved slots, gate, backfill, ranked[:N]);
    # 2 fail: the looser backfill and the cap found in production only
    suite = ET.parse(junit).getroot()
    assert suite.tag == "testsuites"
    (testsuite,) = suite.findall("testsuite")
    cases = testsuite.findall("testcase")
    assert (testsuite.get("tests"), testsuite.get("failures")) == ("8", "2")
    assert len(cases) == 8
    failed = {case.get("name"): case.find("failure") for case in cases if case.find("failure")
              is not None}  # fmt: skip
    assert set(failed) == {"backfill_range", "per_source_cap"}
    assert failed["backfill_range"].get("type") == "looser_evaluation"
    assert failed["backfill_range"].text.startswith(f"{SCRIPT}:20")
    assert failed["per_source_cap"].get("message") == (
        "set in agent.ts only, not found in check-law-retrieval.cjs"
    )


def test_two_settings_files_still_compare_as_settings(ragaudit_home, capsys):
    example = REPO_ROOT / "examples" / "audit"
    junit = ragaudit_home / "settings.xml"
    status = main(["drift", str(example / "prod.yaml"), str(example / "eval.yaml"),
                   "--junit", str(junit)])  # fmt: skip
    assert status == 1
    assert "backfill_range: prod.yaml 12, eval.yaml 48 -> eval.yaml is looser" in (
        capsys.readouterr().out
    )
    document = json.loads((ragaudit_home / "results" / "drift.json").read_text())
    assert document["mode"] == "settings" and document["summary"]["constants"] == 20
    entry = {e["constant"]: e for e in document["constants"]}["backfill_range"]
    assert (entry["production"]["line"], entry["evaluation"]["line"]) == (11, 12)
    # eval.yaml leaves the overlap to its default: no line to point at
    overlap = {e["constant"]: e for e in document["constants"]}["overlap"]
    assert overlap["evaluation"] == {**overlap["evaluation"], "line": None, "default": True}
    testsuite = ET.parse(junit).getroot().find("testsuite")
    assert (testsuite.get("tests"), testsuite.get("failures")) == ("20", "2")
