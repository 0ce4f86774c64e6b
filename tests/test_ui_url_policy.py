"""Issue 11, defect 2: an inspector URL names only files under the results folder or the one
given at server start; anything else is refused in one line and never opened, and what is
opened is a regular file under the size limit (a FIFO never blocks, /dev/zero never grows)."""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

import pytest
from helpers.ui_fixtures import chart_specs, open_app, texts, write_results

from ragaudit.corpus.build import build_corpus
from ragaudit.corpus.files import write_corpus
from ragaudit.ui import runs
from ragaudit.ui.allowed import MAX_DOCUMENT_BYTES, Refused, regular_file, url_path
from ragaudit.ui.data import load

REFUSED = (
    "refused: a link may name only a file under {root} or the one given to `ragaudit app --{flag}`"
)


@pytest.fixture
def results(ragaudit_home, monkeypatch):
    """The data folder's results folder, made; no file given at server start."""
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    monkeypatch.delenv("RAGAUDIT_AUDIT_RESULTS", raising=False)
    folder = ragaudit_home / "results"
    folder.mkdir()
    return folder


def _refusal(value: str, root: Path, param: str = "results") -> str:
    flag = param.replace("_", "-")
    return f"?{param}={value} " + REFUSED.format(root=root, flag=flag)


def _promptly(call, *args, seconds: float = 10):
    """call(*args) in a thread; fail if it has not returned within `seconds` (a blocked open)."""
    outcome = {}

    def target():
        try:
            outcome["value"] = call(*args)
        except Exception as error:  # noqa: BLE001 - handed back to the test
            outcome["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"{call.__name__}{args} still blocked after {seconds} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- the policy, case by case ---------------------------------------------------------------


def test_a_file_under_results_is_allowed_absolute_or_relative(results, monkeypatch):
    (results / "run2.json").write_text("{}")
    assert url_path(str(results / "run2.json"), "results") == results / "run2.json"
    assert url_path(str(results / "not-yet.json"), "results") == results / "not-yet.json"
    monkeypatch.chdir(results.parent)  # relative to the server's folder, as before
    assert url_path("results/run2.json", "results") == results / "run2.json"


def test_dotdot_out_of_results_is_refused(results):
    (results.parent / "secret.txt").write_text("not yours")
    value = f"{results}/../secret.txt"
    with pytest.raises(Refused) as refused:
        url_path(value, "results")
    assert str(refused.value) == _refusal(value, results)


def test_a_symlink_from_results_to_etc_passwd_is_refused(results):
    (results / "passwd.json").symlink_to("/etc/passwd")
    with pytest.raises(Refused) as refused:
        url_path(str(results / "passwd.json"), "results")
    assert str(refused.value) == _refusal(f"{results}/passwd.json", results)


def test_a_symlink_that_stays_inside_results_is_followed(results):
    (results / "real.json").write_text("{}")
    (results / "alias.json").symlink_to(results / "real.json")
    assert url_path(str(results / "alias.json"), "results") == results / "real.json"


def test_an_absolute_path_elsewhere_is_refused(results):
    for value in ("/etc/passwd", "/etc/shadow", "/dev/zero", "~/.bashrc"):
        with pytest.raises(Refused) as refused:
            url_path(value, "results")
        assert str(refused.value) == _refusal(value, results)


def test_the_file_given_at_start_is_allowed_outside_results(results, tmp_path, monkeypatch):
    given = tmp_path / "mine" / "chosen.json"
    given.parent.mkdir()
    given.write_text("{}")
    (given.parent / "neighbour.json").write_text("{}")
    monkeypatch.setenv("RAGAUDIT_RESULTS", str(given))
    assert url_path(str(given), "results") == given
    assert url_path(f"{given.parent}/../mine/chosen.json", "results") == given
    with pytest.raises(Refused):  # its folder is not opened up
        url_path(str(given.parent / "neighbour.json"), "results")
    with pytest.raises(Refused):  # given for ?results=, not for ?audit_results=
        url_path(str(given), "audit_results")
    monkeypatch.setenv("RAGAUDIT_AUDIT_RESULTS", str(given))
    assert url_path(str(given), "audit_results") == given


def test_a_fifo_under_results_is_refused_without_being_opened(results):
    os.mkfifo(results / "pipe.json")
    # opening a FIFO with no writer blocks: a refusal that comes back at all was not an open
    with pytest.raises(Refused) as refused:
        _promptly(regular_file, results / "pipe.json")
    expected = f"{results}/pipe.json: a FIFO, not a regular file; the inspector opens only those"
    assert str(refused.value) == expected
    loaded = _promptly(load, results / "pipe.json")
    assert (loaded.results, loaded.problem) == (None, expected)


def test_a_device_given_at_start_is_refused_before_reading(results):
    loaded = _promptly(load, Path("/dev/zero"))
    assert loaded.problem == (
        "/dev/zero: a character device, not a regular file; the inspector opens only those"
    )


def test_the_size_limit_is_checked_before_reading(results):
    assert MAX_DOCUMENT_BYTES == 256 * 1024 * 1024
    at_limit, over = results / "at-limit.json", results / "over.json"
    with at_limit.open("wb") as handle:  # sparse: no disk space used
        handle.truncate(256 * 1024 * 1024)
    with over.open("wb") as handle:
        handle.truncate(300 * 1024 * 1024)
    assert regular_file(at_limit).st_size == 268435456
    with pytest.raises(Refused) as refused:
        regular_file(over)
    assert str(refused.value) == (
        f"{over}: 300 MB, over the inspector's 256 MB limit for one file; not opened"
    )


# --- the pages ------------------------------------------------------------------------------


def test_results_link_to_etc_passwd_shows_the_refusal_and_opens_nothing(results):
    at = open_app(Path("/etc/passwd"))
    assert not at.exception
    assert [e.value for e in at.error] == [
        f"Cannot show results: {_refusal('/etc/passwd', results)}"
    ]
    assert "root:" not in texts(at) and "JSON" not in texts(at)


def test_results_link_to_a_fifo_answers_at_once(results, tmp_path):
    outside, inside = tmp_path / "pipe", results / "pipe.json"
    os.mkfifo(outside)
    os.mkfifo(inside)
    (error,) = open_app(outside).error
    assert error.value == f"Cannot show results: {_refusal(str(outside), results)}"
    (error,) = open_app(inside).error
    assert error.value == (
        f"Cannot show results: {inside}: a FIFO, not a regular file; the inspector opens only those"
    )


def test_start_run_on_a_crafted_link_writes_nothing_and_starts_nothing(results, tmp_path):
    victim = tmp_path / "notes.txt"
    victim.write_text("a person's text file\n")
    before = _sha256(victim)
    at = open_app(victim, page="pages/runs.py")
    (start,) = [b for b in at.button if b.label == "Start run"]
    start.click().run()
    try:
        assert runs.run_status() is None  # no subprocess was started
    finally:
        runs.stop_run()  # (the defect: a run writing the victim)
    assert not (results.parent / "runs").exists()
    assert _sha256(victim) == before
    assert not at.exception
    refusal = _refusal(str(victim), results)
    assert [e.value for e in at.error] == [
        f"Cannot show or start runs for this link: {refusal}",
        f"Not started: {refusal}",
    ]


def test_audit_link_to_etc_shadow_is_refused(results):
    at = open_app(None, page="pages/audit.py", audit_results="/etc/shadow")
    assert not at.exception
    assert [e.value for e in at.error] == [
        f"Cannot show the audit: {_refusal('/etc/shadow', results, 'audit_results')}"
    ]


def test_a_link_to_another_run_under_results_opens_it(results):
    other = write_results(results / "other.json", n=3, generate=False)
    at = open_app(Path(f"{results}/../results/other.json"))
    assert not at.exception and not at.error
    labels = chart_specs(at)[0]["data"][1]["text"]
    absent = ("not run", "n/a", "n/a: no gold to retrieve")  # the heatmap wraps labels
    assert labels and all(t.endswith("/3") for t in labels if t.replace("<br>", " ") not in absent)
    assert other.exists()


def test_lab_link_to_etc_passwd_shows_the_refusal(results, tmp_path, monkeypatch):
    write_corpus(build_corpus(n=1), tmp_path / "corpus")  # small: the Lab embeds it live
    monkeypatch.setenv("RAGAUDIT_CORPUS", str(tmp_path / "corpus"))
    at = open_app(None, page="pages/lab.py", results="/etc/passwd")
    assert not at.exception
    assert [e.value for e in at.error] == [
        f"Not using this link's results: {_refusal('/etc/passwd', results)}"
    ]
