"""The conftest guard: a test that starts the generator without the slow mark, or marked
slow(model=False), fails."""

from __future__ import annotations

import textwrap
from pathlib import Path

from ragaudit.backends.qwen import ENGINE_LOG_ENV

CASES = textwrap.dedent(
    """
    import pytest
    from pathlib import Path
    from ragaudit.backends.qwen import note_engine_started

    def test_unmarked_starts_an_engine():
        note_engine_started(Path("qwen2.5-0.5b.gguf"))  # what QwenEngine does as it loads

    @pytest.mark.slow
    def test_marked_starts_an_engine():
        note_engine_started(Path("qwen2.5-0.5b.gguf"))

    @pytest.mark.slow(model=False)
    def test_marked_modelless_starts_an_engine():
        note_engine_started(Path("qwen2.5-0.5b.gguf"))

    def test_unmarked_starts_none():
        pass
    """
)


def test_an_unmarked_test_that_starts_an_engine_fails(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parent))  # where slow_guard is
    monkeypatch.delenv(ENGINE_LOG_ENV)  # the inner run keeps its own log
    pytester.makeconftest('pytest_plugins = ["helpers.slow_guard"]\n')
    pytester.makepyfile(test_cases=CASES)
    # only the guard: the installed plugins (DeepEval's among them) cost seconds of imports
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(["*test_unmarked_starts_an_engine*without @pytest.mark.slow*"])
    result.stdout.fnmatch_lines(
        ["*test_marked_modelless_starts_an_engine*marked slow(model=False): drop model=False*"]
    )
