"""ragaudit.testing, the pytest plugin: its assertions' verdicts and messages, its options,
and what importing it loads.

The mutation audits are of examples/pytest's BM25 retriever (a llama-index retriever, no
model) with a SentenceSplitter over examples/mutate/corpus, retrieval-only. Every figure a
message is checked for is computed here by hand from the file's counts: the percentage
rounded half up, the Wilson 95% interval by its formula. The gate's runs are written by
hand (tests/helpers/gate_fixtures.py): five passes lost of five, one-sided exact McNemar
p = (1/2)^5 = 0.03125 (shown 0.0313); the power line's d solves d^5 = 0.8, d = 0.956.
"""

from __future__ import annotations

import copy
import json
import math
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from helpers.gate_fixtures import gate_run, write_run

import ragaudit
from ragaudit.errors import RagauditError
from ragaudit.testing import assert_mutation_results, assert_no_regression

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "pytest"
CORPUS, CASES = ROOT / "examples/mutate/corpus", ROOT / "examples/mutate/cases.yaml"
ALL5, NONE5 = [True] * 5, [False] * 5
HEAVY = ("llama_index", "chromadb", "onnxruntime", "torch", "transformers", "tokenizers",
         "sentence_transformers", "xllamacpp", "ollama", "pandas", "numpy")  # fmt: skip


def plugin_args() -> list[str]:
    """Load the plugin by its entry point when ragaudit is installed with it, else by name
    (an editable install made before the entry point existed)."""
    installed = entry_points(group="pytest11", name="ragaudit")
    quiet = ["-p", "no:deepeval", "-p", "no:cacheprovider", "-p", "no:asyncio"]
    quiet += ["-p", "no:langsmith_plugin", "-p", "no:hypothesispytest", "-p", "no:benchmark"]
    # the inner sessions run in this process: pytest-playwright's soft-assertion scope,
    # open around the outer test, cannot be opened again around an inner one
    quiet += ["-p", "no:playwright"]
    return quiet if installed else [*quiet, "-p", "ragaudit.testing"]


def pct_of(rate: float) -> str:
    """A rate as a whole percentage, halves up (by hand, not through results.format)."""
    return f"{math.floor(100 * rate + 0.5)}%"


def pct(count: int, n: int) -> str:
    return pct_of(count / n)


def wilson(count: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    p = count / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def shown(count: int, n: int) -> str:
    """`15% 2/13 [4–42%]`, by hand."""
    low, high = wilson(count, n)
    return f"{pct(count, n)} {count}/{n} [{pct_of(low)[:-1]}–{pct_of(high)}]"


def bm25_target() -> ragaudit.Components:
    sys.path.insert(0, str(EXAMPLE))
    from keyword_retriever import keyword_retriever
    from llama_index.core.node_parser import SentenceSplitter

    splitter = SentenceSplitter(chunk_size=256, chunk_overlap=20)
    return ragaudit.Components(splitter=splitter, retriever=keyword_retriever, k=4)


@pytest.fixture(scope="module")
def audit(tmp_path_factory) -> ragaudit.Results:
    """One retrieval-only mutation audit of the BM25 retriever, every operator."""
    home = tmp_path_factory.mktemp("home")
    return ragaudit.mutate(
        CORPUS, CASES, bm25_target(), generate=False, progress=False, data_dir=home
    )


def score_of(results: ragaudit.Results, operator: str) -> dict:
    return next(s for s in results.document["mutation"]["scores"] if s["operator"] == operator)


def with_score(results: ragaudit.Results, operator: str, killed: int, n: int, interval):
    """The audit with one operator's score replaced by figures given here."""
    document = copy.deepcopy(results.document)
    score = next(s for s in document["mutation"]["scores"] if s["operator"] == operator)
    score.update(killed=killed, applicable=n, score=killed / n, wilson=list(interval))
    return ragaudit.Results(document)


def failure(check) -> str:
    with pytest.raises(AssertionError) as raised:
        check()
    return str(raised.value)


def test_a_score_below_its_threshold_fails_naming_figures_and_survivors(audit):
    supersede = score_of(audit, "supersede")
    k, n = supersede["killed"], supersede["applicable"]
    assert k / n < 0.8  # BM25 cannot tell a superseded value from the current one
    message = failure(lambda: assert_mutation_results(audit, {"supersede": 0.8}))
    low = pct_of(wilson(k, n)[0])
    assert (
        f"supersede: {shown(k, n)}: point estimate {pct(k, n)} < at least 80% "
        f"(Wilson lower bound {low})"
    ) in message
    assert message.startswith("ragaudit mutation score below at_least, compared on the point")
    survivors = [s["mutant"] for s in audit.document["mutation"]["survivors"]
                 if s["operator"] == "supersede"]  # fmt: skip
    assert len(survivors) == n - k
    for mutant in survivors:
        assert f"  survived {mutant}: " in message
    kept = Path(message.rsplit("results file: ", 1)[1])
    assert (
        json.loads(kept.read_text())["mutation"]["scores"] == audit.document["mutation"]["scores"]
    )


def test_the_star_covers_the_others_and_unscored_ones_are_listed_not_failed(audit):
    scores = {s["operator"]: s for s in audit.document["mutation"]["scores"]}
    held = [op for op, s in scores.items() if s["applicable"]]
    unscored = [op for op, s in scores.items() if not s["applicable"]]
    assert held and unscored
    lowest = min(scores[op]["score"] for op in held)
    assert_mutation_results(audit, {"*": lowest})  # passes: unscored operators are not held
    message = failure(lambda: assert_mutation_results(audit, {"*": 0.99}))
    for op in held:
        s = scores[op]
        line = f"{op}: {shown(s['killed'], s['applicable'])}: point estimate"
        held_or_not = "held: " if s["score"] >= 0.99 else ""
        assert f"\n{held_or_not}{line}" in message
    for op in unscored:
        assert f"not scored ('*'): {op}: — (" in message
    named = failure(lambda: assert_mutation_results(audit, {unscored[0]: 0.5}))
    assert f"{unscored[0]}: — (" in named and "not scored, so it cannot reach 50%" in named


def test_lower_bound_switches_the_verdict_and_both_figures_are_shown(audit):
    # 6/13: 46%, Wilson [0.232, 0.709] (centre 0.4703, half-width 0.2384)
    results = with_score(audit, "supersede", 6, 13, (0.23208, 0.70932))
    assert_mutation_results(results, {"supersede": 0.4})  # 46% >= 40%
    message = failure(
        lambda: assert_mutation_results(results, {"supersede": 0.4}, lower_bound=True)
    )
    assert "compared on the Wilson lower bound of killed / applicable" in message
    assert (
        "supersede: 46% 6/13 [23–71%]: Wilson lower bound 23% < at least 40% (point estimate 46%)"
    ) in message


def test_an_unknown_operator_or_a_threshold_off_the_scale_is_refused(audit):
    with pytest.raises(RagauditError, match="supersed.*supersede"):
        assert_mutation_results(audit, {"supersed": 0.5})
    with pytest.raises(RagauditError, match=r"at_least\['dilute'\] = 80: give a number"):
        assert_mutation_results(audit, {"dilute": 80})


def test_the_gate_passes_an_unchanged_run_and_fails_a_lost_one(tmp_path):
    base = write_run(tmp_path / "base.json", gate_run({("boundary", "C"): ALL5}))
    same = write_run(tmp_path / "same.json", gate_run({("boundary", "C"): ALL5}))
    worse = write_run(tmp_path / "worse.json", gate_run({("boundary", "C"): NONE5}))
    verdict = assert_no_regression(same, baseline=base)
    assert not verdict.failed and len(verdict.cells) == 1
    message = failure(lambda: assert_no_regression(worse, baseline=base, max_drop=100))
    lines = message.splitlines()
    assert lines[0].startswith("ragaudit gate: FAIL: 1 of 1 cells lost")
    assert (
        "5/5 → 0/5; lost 5, gained 0; one-sided McNemar p = 0.0313 (Holm 0.0313), "
        "significant at 0.05; drop 100 points <= --max-drop 100: FAIL on significance"
    ) in message
    assert "smallest drop detectable with 80% power: 95.6 points" in message
    for i in range(5):
        assert f"lost boundary-00{i} (boundary, C): gold left the context" in message
    assert lines[-2:] == [f"baseline: {base}", f"results file: {worse}"]


def test_a_results_object_is_kept_as_a_file_and_a_missing_baseline_said(tmp_path):
    base = write_run(tmp_path / "base.json", gate_run({("boundary", "C"): ALL5}))
    worse = ragaudit.Results(gate_run({("boundary", "C"): [True, False, False, True, True]}))
    message = failure(lambda: assert_no_regression(worse, baseline=base))
    assert "drop 40 points > --max-drop 10: FAIL on --max-drop" in message
    kept = Path(message.rsplit("results file: ", 1)[1])
    assert json.loads(kept.read_text())["instances"] == worse.document["instances"]
    gone = tmp_path / "nowhere.json"
    assert f"no baseline at {gone}: store one with pytest --ragaudit-update-baseline" in failure(
        lambda: assert_no_regression(worse, baseline=gone)
    )


def test_importing_the_plugin_loads_no_model_library():
    code = (
        "import sys, ragaudit.testing; "
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout  # fmt: skip
    assert out.strip() == "[]"


def test_the_entry_point_names_the_module():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["entry-points"]["pytest11"] == {"ragaudit": "ragaudit.testing"}
    installed = entry_points(group="pytest11", name="ragaudit")
    assert all(ep.value == "ragaudit.testing" for ep in installed)


GATE_TEST = """
from ragaudit.testing import assert_no_regression

def test_gate(ragaudit_baseline):
    assert ragaudit_baseline is not None
    assert_no_regression({new!r})
"""


def test_update_baseline_writes_it_then_the_gate_reads_it(pytester, tmp_path):
    before = write_run(tmp_path / "before.json", gate_run({("boundary", "C"): ALL5}))
    after = write_run(tmp_path / "after.json", gate_run({("boundary", "C"): [False] + ALL5[1:]}))
    pytester.makepyfile(test_gate=GATE_TEST.format(new=str(before)))
    baseline = tmp_path / "baselines" / "run.json"
    option = ["--ragaudit-baseline", str(baseline)]
    stored = pytester.runpytest_inprocess(*plugin_args(), *option, "--ragaudit-update-baseline")
    stored.assert_outcomes(passed=1)
    assert baseline.read_bytes() == before.read_bytes()
    stored.stdout.fnmatch_lines([f"ragaudit: baseline written: {baseline}"])
    pytester.makepyfile(test_gate=GATE_TEST.format(new=str(after)))
    gated = pytester.runpytest_inprocess(*plugin_args(), *option)
    gated.assert_outcomes(failed=1)  # 1 of 5 lost: 20 points over 10
    gated.stdout.fnmatch_lines(["*5/5 → 4/5; lost 1, gained 0; *: FAIL on --max-drop*"])


def test_the_plugin_is_inert_in_a_session_that_does_not_use_it(pytester):
    pytester.makepyfile(test_plain="def test_plain():\n    assert 1 + 1 == 2\n")
    result = pytester.runpytest_inprocess(*plugin_args())
    result.assert_outcomes(passed=1)
    # pytest's header names every installed plugin's distribution; nothing else may
    said = [line for line in result.stdout.lines if not line.startswith("plugins:")]
    assert not [line for line in said if "ragaudit" in line]
    helped = pytester.runpytest_inprocess(*plugin_args(), "--help")
    helped.stdout.fnmatch_lines(["*--ragaudit-baseline=PATH*", "*--ragaudit-update-baseline*"])


MUTATION_TEST = """
from llama_index.core.node_parser import SentenceSplitter
from keyword_retriever import keyword_retriever
import ragaudit
from ragaudit.testing import assert_mutation_score

def target():
    return ragaudit.Components(
        splitter=SentenceSplitter(chunk_size=256, chunk_overlap=20),
        retriever=keyword_retriever, k=4,
    )

def test_holds(ragaudit_results_dir):
    assert_mutation_score(target(), {corpus!r}, {cases!r}, at_least={{"near_duplicate": 0.5}})
    assert (ragaudit_results_dir / "mutate.json").is_file()

def test_falls_short():
    assert_mutation_score(target(), {corpus!r}, {cases!r}, at_least={{"supersede": 0.8}})
"""


def test_a_mutation_assertion_in_a_suite_passes_fails_and_keeps_its_file(
    pytester, tmp_path, ragaudit_home
):
    pytester.makepyfile(
        keyword_retriever=(EXAMPLE / "keyword_retriever.py").read_text(),
        test_mutation=MUTATION_TEST.format(corpus=str(CORPUS), cases=str(CASES)),
    )
    kept = tmp_path / "kept"
    result = pytester.runpytest_inprocess(*plugin_args(), "--ragaudit-results-dir", str(kept))
    result.assert_outcomes(passed=1, failed=1)
    short = kept / "test_mutation.py_test_falls_short" / "mutate.json"
    scores = json.loads(short.read_text())["mutation"]["scores"]
    (supersede,) = [s for s in scores if s["operator"] == "supersede"]
    k, n = supersede["killed"], supersede["applicable"]
    out = result.stdout.str()
    assert f"supersede: {shown(k, n)}: point estimate {pct(k, n)} < at least 80%" in out
    assert "  survived supersede/" in out and f"results file: {short}" in out
    assert [s["operator"] for s in scores] == ["supersede"]  # only the operator named ran
    assert os.path.isfile(kept / "test_mutation.py_test_holds" / "mutate.json")
