"""Under xdist, slow tests run one at a time across the workers (tests/helpers/
slow_one_at_a_time.py); fast tests still run side by side. Each inner test writes its start
and end; two slow tests of 1.5 s on two workers must not overlap, two fast ones must."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

INNER = """
import json, time, pytest
from pathlib import Path

def _span(name, out):
    start = time.monotonic()
    time.sleep(1.5)
    Path(out, name).write_text(json.dumps([start, time.monotonic()]))

@pytest.mark.{mark}
def test_a(tmp_path_factory):
    _span("a", {out!r})
"""


def _spans(pytester: pytest.Pytester, monkeypatch, tmp_path: Path, mark: str) -> list[list[float]]:
    out = tmp_path / mark.split("(")[0]
    out.mkdir()
    pytester.makepyfile(
        test_one=INNER.format(mark=mark, out=str(out)).replace('"a"', '"one"'),
        test_two=INNER.format(mark=mark, out=str(out)).replace('"a"', '"two"'),
    )
    pytester.makeini(f"[pytest]\nmarkers =\n    slow: x\n    fast: x\npythonpath = {TESTS}\n")
    # only xdist and the plugin under test: the installed plugins (DeepEval's among them)
    # would cost each of the three processes seconds of imports
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = pytester.runpytest_subprocess(
        "-p", "xdist", "-p", "helpers.slow_one_at_a_time", "-n", "2", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=2)
    return [json.loads((out / name).read_text()) for name in ("one", "two")]


def _overlap(first: list[float], second: list[float]) -> float:
    return min(first[1], second[1]) - max(first[0], second[0])


def test_two_slow_tests_on_two_workers_never_overlap(pytester, monkeypatch, tmp_path) -> None:
    one, two = _spans(pytester, monkeypatch, tmp_path, "slow")
    assert _overlap(one, two) <= 0


def test_two_fast_tests_on_two_workers_run_side_by_side(pytester, monkeypatch, tmp_path) -> None:
    one, two = _spans(pytester, monkeypatch, tmp_path, "fast")
    assert _overlap(one, two) > 0.5


def test_slow_tests_that_load_no_model_run_side_by_side(pytester, monkeypatch, tmp_path) -> None:
    one, two = _spans(pytester, monkeypatch, tmp_path, "slow(model=False)")
    assert _overlap(one, two) > 0.5
