"""Which files the inspector opens (issue 25, items 15 to 18), through the real app
(Streamlit's AppTest runs app.py and its pages as the server does):

- 15: while a run holds the lock, a partial file planted as a symlink to a file outside
  the results folder is refused like the link's own path, never shown;
- 16: the Compare page lists only results files that pass the link's check (no symlink
  out, no sessions ledger, no drift or harness-check file, no partial file) and opens on
  the shipped reference against the newest local good run; on a fresh install, while the
  first run computes, it opens on no error;
- 17: `?results=%00` is one line, not a traceback;
- 18: a gzip bomb (1 GiB once inflated) is refused after the limit, on the page and in
  `ragaudit report`, with the process's peak memory far below the inflated size.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers.ui_fixtures import open_app, texts, write_results

from ragaudit.results.reference import REFERENCE_FILE

REPO = Path(__file__).resolve().parents[1]
GIB = 2**30
LIMIT_MB = 256  # the documented limit once gunzipped (results.compressed)


@pytest.fixture
def results(ragaudit_home, monkeypatch):
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    monkeypatch.delenv("RAGAUDIT_AUDIT_RESULTS", raising=False)
    folder = ragaudit_home / "results"
    folder.mkdir()
    return folder


def _hold_the_run_lock(home: Path) -> subprocess.Popen:
    """Another process holding the data folder's run lock, as a run in progress does."""
    code = (
        "import sys, time\nfrom ragaudit.runner.lock import hold_run_lock\n"
        "with hold_run_lock():\n    print('held', flush=True)\n    time.sleep(120)\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", code],
        env={**os.environ, "RAGAUDIT_HOME": str(home)},
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline().strip() == "held"
    return holder


# -- 15: the partial file passes the link's check -------------------------------------------


def test_a_partial_symlink_pointing_outside_is_not_shown(results, ragaudit_home, tmp_path):
    outside = write_results(tmp_path / "outside" / "secret.json", n=3)
    (results / "evil.partial.json").symlink_to(outside)
    holder = _hold_the_run_lock(ragaudit_home)
    try:
        at = open_app(results / "evil.json", page="pages/instance.py")
    finally:
        holder.kill()
        holder.wait()
    assert not at.exception
    (error,) = at.error
    assert error.value == (
        f"Cannot show results: {results / 'evil.partial.json'}: refused: the run's partial "
        f"file resolves to {outside}, outside {results}; the inspector shows only files a "
        "link may name"
    )
    assert "Partial results" not in texts(at)  # nothing of the outside file was drawn


def test_a_partial_file_inside_results_is_still_shown_while_a_run_holds_the_lock(
    results, ragaudit_home
):
    partial = write_results(results / "run.partial.json", n=3)
    data = json.loads(partial.read_text())
    partial.write_text(json.dumps({**data, "complete": False}))
    holder = _hold_the_run_lock(ragaudit_home)
    try:
        at = open_app(results / "run.json")
    finally:
        holder.kill()
        holder.wait()
    assert not at.exception and not at.error
    assert f"Partial results: a run is still writing {results / 'run.json'}" in texts(at)


# -- 16: the Compare page's files -----------------------------------------------------------


def _aged(path: Path, seconds_ago: float) -> Path:
    when = time.time() - seconds_ago
    os.utime(path, (when, when), follow_symlinks=False)
    return path


def _failed_run(path: Path) -> Path:
    """A finished run in which one record lost a model call (conditions.failed_calls)."""
    write_results(path, n=3)
    data = json.loads(path.read_text())
    key = data["instances"][0]["key"]
    data["conditions"]["failed_calls"] = [
        {"model": "local:minilm", "kind": "embed", "error": "HTTP 500", "instance_keys": [key]}
    ]
    path.write_text(json.dumps(data))
    return path


def _not_results(results: Path) -> None:
    """What a results folder holds beside results files."""
    (results / "latest.sessions.json").write_text(
        json.dumps({"kind": "sessions", "schema_version": 1, "plan": "x", "sessions": []})
    )
    (results / "drift.json").write_text(json.dumps({"kind": "drift", "schema_version": 1}))
    (results / "harness-check.json").write_text(
        json.dumps({"kind": "harness_check", "schema_version": 1})
    )
    (results / "progress.json").write_text(json.dumps({"stage": "embed", "done": 1}))


def test_compare_lists_only_results_files_and_opens_on_the_reference(results, tmp_path):
    _aged(write_results(results / "older.json", n=3), 300)
    _aged(write_results(results / "newest-good.json", n=3), 200)
    _aged(_failed_run(results / "latest.failed.json"), 100)  # newer, but it lost a call
    _not_results(results)
    partial = write_results(results / "latest.partial.json", n=3)
    _aged(partial, 0)
    outside = _aged(write_results(tmp_path / "elsewhere" / "theirs.json", n=3), 0)
    (results / "pointer.json").symlink_to(outside)  # the newest of all, but outside
    at = open_app(None, page="pages/compare.py")
    assert not at.exception
    run_a, run_b = at.selectbox(key="compare_file_a"), at.selectbox(key="compare_file_b")
    listed = [Path(option).name for option in run_a.options]
    assert listed == ["latest.failed.json", "newest-good.json", "older.json", REFERENCE_FILE.name]
    assert Path(run_a.value) == REFERENCE_FILE
    assert Path(run_b.value) == results / "newest-good.json"
    assert not at.error


def test_compare_on_a_fresh_install_opens_on_no_error(results):
    """The first run is computing: the folder holds its ledger, progress and partial file."""
    _not_results(results)
    partial = write_results(results / "latest.partial.json", n=3)
    partial.write_text(json.dumps({**json.loads(partial.read_text()), "complete": False}))
    at = open_app(None, page="pages/compare.py")
    assert not at.exception and not at.error
    assert "Comparing needs two results files; found 1" in texts(at)


# -- 17: a null byte ------------------------------------------------------------------------


@pytest.mark.parametrize("page", [None, "pages/compare.py", "pages/instance.py"])
def test_a_null_byte_in_the_link_is_one_line(results, page):
    at = open_app(None, page=page, results="\x00")
    assert not at.exception
    if page == "pages/compare.py":  # the page lists files itself; the link chooses none
        return
    (error,) = at.error
    assert error.value == (
        f"Cannot show results: ?results= refused: the file name holds a null byte (%00); a "
        f"link may name only a file under {results} or the one given to "
        "`ragaudit app --results`"
    )


# -- 18: a gzip bomb ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bomb(tmp_path_factory) -> Path:
    """A few MB of gzip that inflates to 1 GiB (JSON-looking: a string of spaces)."""
    path = tmp_path_factory.mktemp("bomb") / "bomb.json.gz"
    block = b" " * 2**24
    with path.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1) as out:
        out.write(b'{"pad": "')
        for _ in range(GIB // len(block)):
            out.write(block)
        out.write(b'"}')
    assert path.stat().st_size < 8 * 2**20
    return path


def _peak_kb(code: str, home: Path) -> tuple[str, int]:
    """Run `code` in a fresh Python; (what it printed, its own peak RSS in KB)."""
    wrapped = (
        code
        # VmHWM is this process image's own peak: ru_maxrss would carry over the parent's
        # (pytest's) peak across fork and exec, which in a long session is over 1 GiB
        + "\nimport re\nstatus = open('/proc/self/status').read()\n"
        + "print('peak', re.search(r'VmHWM:\\s+(\\d+) kB', status).group(1))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", wrapped], capture_output=True, text=True, timeout=300,
        cwd=REPO, env={**os.environ, "RAGAUDIT_HOME": str(home)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    *printed, peak = done.stdout.strip().splitlines()
    return "\n".join(printed), int(peak.split()[1])


def test_a_gzip_bomb_is_refused_by_report_within_bounded_memory(bomb, tmp_path):
    printed, peak = _peak_kb(
        textwrap.dedent(f"""
        import contextlib, io
        from ragaudit.cli.main import main
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            status = main(["report", "--results", {str(bomb)!r}, "--out", {str(tmp_path)!r}])
        print(status)
        print(err.getvalue().strip())
        """),
        tmp_path / "home",
    )
    assert printed.splitlines() == [
        "2",
        f"ragaudit report: {bomb}: more than {LIMIT_MB} MB once gunzipped, over the limit "
        "for one results file; not read",
    ]
    assert peak < GIB // 1024, f"peak RSS {peak} KB"  # the whole of it inflated is 1 GiB
    assert list(tmp_path.glob("report*")) == []


def test_a_gzip_bomb_is_refused_by_the_inspector_within_bounded_memory(bomb, tmp_path):
    home = tmp_path / "home"
    (home / "results").mkdir(parents=True)
    planted = home / "results" / bomb.name
    planted.write_bytes(bomb.read_bytes())
    printed, peak = _peak_kb(
        textwrap.dedent(f"""
        from streamlit.testing.v1 import AppTest
        at = AppTest.from_file({str(REPO / "app.py")!r}, default_timeout=120)
        at.query_params["results"] = {str(planted)!r}
        at.run()
        print(len(at.exception), [e.value for e in at.error])
        """),
        home,
    )
    assert printed == "0 " + repr([
        f"Cannot show results: {planted}: more than {LIMIT_MB} MB once gunzipped, over "
        "the limit for one results file; not read"
    ])  # fmt: skip
    assert peak < GIB // 1024, f"peak RSS {peak} KB"


# -- 10, as the inspector sees it -----------------------------------------------------------


def test_with_only_a_failed_run_the_page_says_where_its_results_are(results):
    """The first run lost calls: latest.json was not written; the page names the file."""
    failed = _failed_run(results / "latest.failed.json")
    at = open_app()
    assert not at.exception and not at.error
    (warning,) = at.warning
    assert warning.value == (
        f"The last run lost model calls, so its results went to `{failed}`, not "
        f"`latest.json`; open them with `?results={failed}`."
    )
