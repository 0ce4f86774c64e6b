"""ragaudit in pytest: assertions over a mutation audit and the regression gate, a baseline
option, and the results file of each assertion kept where a failure can point to it.

Registered through the `pytest11` entry point, so pytest loads this module in every
session: it imports no model library, chromadb, llama-index or pandas (ragaudit's verbs are
imported when an assertion runs), and changes nothing for a test that does not use it.

    from ragaudit.testing import assert_mutation_score

    def test_my_retriever_notices_a_superseded_value():
        assert_mutation_score(
            Components(splitter=SentenceSplitter(), retriever=my_retriever, k=4),
            "docs/", "cases.yaml", at_least={"supersede": 0.8, "*": 0.5},
        )

Options: `--ragaudit-baseline PATH` (the baseline `assert_no_regression` gates against
when not given one; ini `ragaudit_baseline`), `--ragaudit-update-baseline` (store the
results as the new baseline instead of gating), `--ragaudit-results-dir DIR` (keep each
assertion's results file under DIR/<test> rather than the test's `tmp_path`; ini
`ragaudit_results_dir`). Every figure in a message is written by ragaudit.results.format,
as the report and the CLI write it.
"""

from __future__ import annotations

import math
import re
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

ANY_OPERATOR = "*"
"""The `at_least` key for every operator the audit scored and the mapping does not name."""

SURVIVORS_SHOWN = 20
"""Survivors named per failing operator; the rest are counted (the file has them all)."""

_BASELINES_WRITTEN = pytest.StashKey[list]()
_running: list[Any] = [None]
"""The test item whose call is running: where an assertion keeps its results file."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ragaudit", "ragaudit assertions (ragaudit.testing)")
    group.addoption(
        "--ragaudit-baseline", metavar="PATH", default=None,
        help="the results file assert_no_regression gates against (ini: ragaudit_baseline)",
    )  # fmt: skip
    group.addoption(
        "--ragaudit-update-baseline", action="store_true", default=False,
        help="store each assert_no_regression's results as the baseline instead of gating",
    )  # fmt: skip
    group.addoption(
        "--ragaudit-results-dir", metavar="DIR", default=None,
        help="keep each assertion's results file under DIR/<test> (default: the test's "
        "tmp_path; ini: ragaudit_results_dir)",
    )  # fmt: skip
    parser.addini("ragaudit_baseline", "the baseline results file (see --ragaudit-baseline)")
    parser.addini("ragaudit_results_dir", "where assertions keep their results files")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Any:
    # Remembered only while the test runs, so a plain assertion call finds its folder.
    _running[0] = item
    try:
        yield
    finally:
        _running[0] = None


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    for path in config.stash.get(_BASELINES_WRITTEN, []):
        terminalreporter.write_line(f"ragaudit: baseline written: {path}")


def configured_path(config: pytest.Config, option: str, ini: str) -> Path | None:
    """A path from the command line (relative to where pytest was started) or else the ini
    file (relative to the ini file's folder); None when neither sets it."""
    given = config.getoption(option)
    if given:
        return Path(config.invocation_params.dir, given)
    from_ini = config.getini(ini)
    if from_ini:
        root = config.inipath.parent if config.inipath else config.rootpath
        return Path(root, from_ini)
    return None


@pytest.fixture
def ragaudit_baseline(pytestconfig: pytest.Config) -> Path | None:
    """The baseline configured by --ragaudit-baseline or the ini's ragaudit_baseline."""
    return configured_path(pytestconfig, "ragaudit_baseline", "ragaudit_baseline")


@pytest.fixture
def ragaudit_results_dir(request: pytest.FixtureRequest) -> Path:
    """The folder this test's assertions keep their results files in."""
    return _results_folder(request.node)


def _results_folder(item: Any) -> Path:
    """DIR/<test> under --ragaudit-results-dir, else the test's tmp_path; outside pytest a
    fresh temporary folder."""
    if item is None:
        return Path(tempfile.mkdtemp(prefix="ragaudit-"))
    chosen = configured_path(item.config, "ragaudit_results_dir", "ragaudit_results_dir")
    if chosen is None:
        return item._request.getfixturevalue("tmp_path")  # pytest-django reads it so too
    folder = chosen / re.sub(r"[^\w.-]+", "_", item.nodeid).strip("_")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def results_path(kind: str) -> Path:
    """A new file name for an assertion's results in the running test's folder:
    `mutate.json`, then `mutate-2.json`, ..."""
    folder = _results_folder(_running[0])
    path, count = folder / f"{kind}.json", 1
    while path.exists():
        count += 1
        path = folder / f"{kind}-{count}.json"
    return path


def _thresholds(at_least: Mapping[str, float]) -> dict[str, float]:
    """`at_least` checked: known operators or '*', each a number from 0 to 1."""
    from ragaudit.errors import RagauditError
    from ragaudit.mutation.operators import operator_names
    from ragaudit.registry import unknown_name_message

    if not at_least:
        raise RagauditError("at_least: name an operator (or '*') and the score it must reach")
    known = operator_names()
    for name, value in at_least.items():
        if name != ANY_OPERATOR and name not in known:
            raise RagauditError(f"at_least: {unknown_name_message('operator', name, known)}")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise RagauditError(f"at_least[{name!r}] = {value!r}: give a number from 0 to 1")
        if not (math.isfinite(value) and 0 <= value <= 1):
            raise RagauditError(f"at_least[{name!r}] = {value!r}: give a number from 0 to 1")
    return dict(at_least)


def _pct(rate: float) -> str:
    from ragaudit.results.format import percent

    return f"{percent(rate)}%"


def _compared(score: dict, threshold: float, lower_bound: bool) -> str:
    """`point estimate 15% < at least 80% (Wilson lower bound 4%)`, the figure compared
    first; `>=` where it holds."""
    point, low = _pct(score["score"]), _pct(score["wilson"][0])
    held = (score["wilson"][0] if lower_bound else score["score"]) >= threshold
    named = [("point estimate", point), ("Wilson lower bound", low)]
    (first, value), (other, other_value) = reversed(named) if lower_bound else named
    relation = ">=" if held else "<"
    return f"{first} {value} {relation} at least {_pct(threshold)} ({other} {other_value})"


def _survivor_lines(section: dict, operator: str) -> list[str]:
    from ragaudit.results.mutation import survivor_text

    survivors = [s for s in section.get("survivors") or [] if s["operator"] == operator]
    lines = [f"  survived {survivor_text(s)}" for s in survivors[:SURVIVORS_SHOWN]]
    if len(survivors) > SURVIVORS_SHOWN:
        lines.append(f"  and {len(survivors) - SURVIVORS_SHOWN} more (all in the results file)")
    return lines


def mutation_score_lines(
    document: dict, at_least: Mapping[str, float], *, lower_bound: bool = False
) -> tuple[list[str], list[str]]:
    """A mutation audit held to `at_least`: (the failing operators' lines, each with its
    survivors by mutant id; the other lines: operators that held, and those '*' covers that
    were not scored). An operator named in `at_least` fails when it was not scored."""
    from ragaudit.results.mutation import score_text

    thresholds = _thresholds(at_least)
    section = document.get("mutation") or {}
    scores = {score["operator"]: score for score in section.get("scores") or []}
    failing, held, unscored = [], [], []
    for name in [n for n in thresholds if n != ANY_OPERATOR and n not in scores]:
        failing.append(
            f"{name}: not run in this audit, so it cannot reach {_pct(thresholds[name])}"
        )
    for name, score in scores.items():
        threshold = thresholds.get(name, thresholds.get(ANY_OPERATOR))
        if threshold is None:
            continue
        shown = f"{name}: {score_text(score)}"
        if not score["applicable"]:
            if name in thresholds:
                failing.append(f"{shown}: not scored, so it cannot reach {_pct(threshold)}")
            else:
                unscored.append(shown)
            continue
        figure = score["wilson"][0] if lower_bound else score["score"]
        line = f"{shown}: {_compared(score, threshold, lower_bound)}"
        if figure >= threshold:
            held.append(line)
        else:
            failing += [line, *_survivor_lines(section, name)]
    other = [f"held: {line}" for line in held] + [f"not scored ('*'): {s}" for s in unscored]
    return failing, other


def _as_document(results: Any) -> dict:
    """The document of a Results, or of a results file read through ragaudit.load."""
    if hasattr(results, "document"):
        return results.document
    from ragaudit.api.verbs import load

    return load(results).document


def _kept(results: Any, kind: str) -> Path:
    """Where the results this assertion checks are on disk: a path as given, a Results'
    own file, else the Results saved in the running test's folder."""
    if isinstance(results, str | Path):
        return Path(results)
    if results.path is not None and Path(results.path).is_file():
        return Path(results.path)
    return results.save(results_path(kind))


def assert_mutation_results(
    results: Any, at_least: Mapping[str, float], *, lower_bound: bool = False
) -> None:
    """Assert that a mutation audit already run (a Results or its file) reaches `at_least`:
    operator -> the least killed / applicable it may score, '*' for every other scored
    operator. The point estimate is compared, or with `lower_bound=True` the Wilson 95%
    interval's lower end (about 14 mutants give an interval of about ±0.2); the message
    shows both, each failing operator's survivors by mutant id and the results file."""
    __tracebackhide__ = True
    failing, other = mutation_score_lines(_as_document(results), at_least, lower_bound=lower_bound)
    if not failing:
        return
    path = _kept(results, "mutate")
    compared = "the Wilson lower bound" if lower_bound else "the point estimate"
    head = (
        f"ragaudit mutation score below at_least, compared on {compared} of killed / "
        "applicable (95% interval):"
    )
    raise AssertionError("\n".join([head, *failing, *other, f"results file: {path}"]))


def assert_mutation_score(
    target: Any,
    documents: Any,
    cases: Any,
    at_least: Mapping[str, float],
    *,
    lower_bound: bool = False,
    generate: bool = False,
    **mutate_kwargs: Any,
) -> Any:
    """Run the mutation audit of `target` (ragaudit.mutate: a factory, Components, a stack
    file or an `http:` spec) over `documents` and `cases`, keep its results file in the
    test's folder, and assert its scores reach `at_least` (see assert_mutation_results).
    Without '*' only the operators named are run. Returns the Results."""
    __tracebackhide__ = True
    from ragaudit.api.verbs import mutate

    thresholds = _thresholds(at_least)
    if ANY_OPERATOR not in thresholds:
        mutate_kwargs.setdefault("operators", list(thresholds))
    mutate_kwargs.setdefault("progress", False)
    results = mutate(documents, cases, target, generate=generate, **mutate_kwargs)
    results.save(results_path("mutate"))
    assert_mutation_results(results, thresholds, lower_bound=lower_bound)
    return results


def _baseline_of(baseline: str | Path | None, config: pytest.Config | None) -> Path:
    from ragaudit.errors import RagauditError

    if baseline is None and config is not None:
        baseline = configured_path(config, "ragaudit_baseline", "ragaudit_baseline")
    if baseline is None:
        raise RagauditError(
            "assert_no_regression: no baseline: pass baseline=PATH or run pytest with "
            "--ragaudit-baseline PATH"
        )
    return Path(baseline)


def _store_baseline(results_file: Path, baseline: Path, config: pytest.Config) -> None:
    baseline.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(results_file, baseline)
    config.stash.setdefault(_BASELINES_WRITTEN, []).append(baseline)


def gate_message(verdict: Any, results_file: Path) -> str:
    """A failed gate as `ragaudit gate` words it: the one-line verdict, each failing cell's
    counts, p and power line with its lost instances by id, the flaky instances left out,
    then the two files."""
    from dataclasses import replace

    from ragaudit.gating.summary import cell_lines, flaky_lines, one_line

    failing = cell_lines(replace(verdict, cells=verdict.failed))
    passed = len(verdict.cells) - len(verdict.failed)
    rest = [f"{passed} other cell(s) passed"] if passed else []
    files = [f"baseline: {verdict.baseline}", f"results file: {results_file}"]
    return "\n".join([one_line(verdict), *failing, *rest, *flaky_lines(verdict), *files])


def assert_no_regression(
    results: Any,
    baseline: str | Path | None = None,
    *,
    alpha: float = 0.05,
    max_drop: float = 10,
    **gate_options: Any,
) -> Any:
    """Gate `results` (a Results or its file) against `baseline` (default: the one
    configured by --ragaudit-baseline) as `ragaudit gate` does: a cell fails on a
    significant loss at `alpha` (one-sided McNemar, Holm), a control that drops, or a drop
    over `max_drop` points. With --ragaudit-update-baseline the results are stored as the
    baseline instead, and nothing is gated (returns None). Returns the verdict."""
    __tracebackhide__ = True
    from ragaudit.api.verbs import gate

    item = _running[0]
    config = item.config if item is not None else None
    base = _baseline_of(baseline, config)
    results_file = _kept(results, "results")
    if config is not None and config.getoption("ragaudit_update_baseline"):
        _store_baseline(results_file, base, config)
        return None
    if not base.is_file():
        raise AssertionError(
            f"no baseline at {base}: store one with pytest --ragaudit-update-baseline "
            f"(results file: {results_file})"
        )
    verdict = gate(base, results_file, alpha=alpha, max_drop=max_drop, **gate_options)
    if verdict.failed:
        raise AssertionError(gate_message(verdict, results_file))
    return verdict
