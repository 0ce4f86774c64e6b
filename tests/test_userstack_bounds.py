"""Bounded user code (issue 25, item 14): a retriever's fault on one question (it raises,
times out, returns an endless generator, too many items, or junk) is that question's
failed call, counted with its reason, and the run goes on to the end (exit 1). The user's
retriever is a real module written beside the stack files; it misbehaves on the first
question it is asked and answers the others with the chunk holding the question's last
word."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragaudit.cli.main import main
from ragaudit.probes.catalogue import shipped
from ragaudit.runner import progress  # noqa: F401  imported before capsys swaps sys.stderr

PARTS = '''\
"""Retrievers that misbehave on their first question (tests/test_userstack_bounds.py)."""
import itertools
import threading


def _answers(chunks):
    def answer(question):
        word = question.rstrip("?").split()[-1].lower()
        held = [n.node_id for n in chunks if word in n.get_content().lower()]
        return [(node_id, 1.0) for node_id in (held or [chunks[0].node_id])[:3]]
    return answer


def make(chunks, fault):
    answer = _answers(chunks)
    asked = []

    def first(question):
        node = chunks[0].node_id
        if fault == "raises":
            raise ValueError("index shard 3 is offline")
        if fault == "hangs":
            threading.Event().wait()  # for ever: only the limit ends this call
        if fault == "endless":
            return ((node, 1.0) for _ in itertools.count())
        if fault == "six":
            return [(node, 1.0)] * 6
        if fault == "nan":
            return [(node, float("nan"))]
        if fault == "string score":
            return [(node, "0.9")]
        if fault == "no chunk":
            return [("stack-bounds/nowhere#7", 1.0)]
        if fault == "none":
            return None
        raise AssertionError(fault)

    def retrieve(question):
        asked.append(question)
        return first(question) if len(asked) == 1 else answer(question)

    return retrieve
'''
QUESTIONS = len(shipped())
"""The planted corpus at n=1: one instance per probe, so one distinct question each."""

FAULTS = {
    "raises": ("", "retriever raised ValueError: index shard 3 is offline"),
    "endless": ("", "retriever returned more than 1,000 items (the limit is max_results)"),
    "six": ("limits: {max_results: 5}\n", "retriever returned more than 5 items"),
    "nan": ("", "returned score nan for 'stack-bounds/"),
    "string score": ("", "returned score '0.9' for 'stack-bounds/"),
    "no chunk": ("", "returned 'stack-bounds/nowhere#7' which names no chunk"),
    "none": ("", "returned None, not a list of (chunk text or id, score)"),
}


@pytest.fixture(scope="module")
def parts(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bounds")
    (folder / "bounded_parts.py").write_text(PARTS, encoding="utf-8")
    return folder


def run_stack(parts, tmp_path, capsys, fault: str, limits: str = "") -> tuple[int, str, dict]:
    path = parts / f"{fault.replace(' ', '_')}.yaml"
    path.write_text(
        "name: bounds\nsplitter: {class: langchain_text_splitters.RecursiveCharacterTextSplitter}\n"
        f"retriever:\n  factory: 'bounded_parts:make'\n  args: {{fault: {fault}}}\nk: 3\n{limits}",
        encoding="utf-8",
    )
    out = tmp_path / "results.json"
    flags = ["--stack-only", "--n", "1", "--no-generate", "--out", str(out)]
    status = main(["run", "--stack", str(path), *flags])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return status, err, written(out)


def written(out: Path) -> dict:
    """The results a run with failed calls wrote: `out`, or, where such a run leaves `out`
    as it was (issue 25, item 10), the `.failed.json` file beside it."""
    failed = out.with_name(out.name.removesuffix(".json") + ".failed.json")
    return json.loads((failed if failed.exists() else out).read_text())


def failed_records(results: dict) -> list[dict]:
    return [r for r in results["instances"] if r["retrieval_error"]]


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_fault_on_one_question_is_one_counted_failed_call_and_the_run_goes_on(
    ragaudit_home, parts, tmp_path, capsys, fault
):
    limits, reason = FAULTS[fault]
    status, err, results = run_stack(parts, tmp_path, capsys, fault, limits)
    assert status == 1
    assert len(results["instances"]) == QUESTIONS  # every record kept
    (failed,) = failed_records(results)
    assert reason in failed["retrieval_error"], failed["retrieval_error"]
    answered = [r for r in results["instances"] if not r["retrieval_error"]]
    assert len(answered) == QUESTIONS - 1 and all(r["retrieved"] for r in answered)
    calls = results["conditions"]["calls"]
    assert (calls["failed"], calls["computed"]) == (1, QUESTIONS - 1)
    assert f"1 of {QUESTIONS} calls failed: 1 × retrieve retriever:bounded_parts:make" in err
    assert "ragaudit run: exit 1 because model calls failed" in err


def test_a_question_past_the_time_limit_is_abandoned_and_the_next_are_not_asked_beside_it(
    ragaudit_home, parts, tmp_path, capsys
):
    """The call that hangs is abandoned after 0.5 s (a thread cannot be killed); while it
    runs, the retriever is not asked again (its code need not be thread-safe), so the
    other questions (ten at eleven probes) fail saying so, and the run still ends, with exit 1."""
    status, err, results = run_stack(
        parts, tmp_path, capsys, "hangs", "limits: {call_seconds: 0.5}\n"
    )
    assert status == 1
    failed = failed_records(results)
    assert len(failed) == QUESTIONS
    reasons = [r["retrieval_error"] for r in failed]
    assert sum("no answer within 0.5 s (the call was abandoned)" in r for r in reasons) == 1
    assert (
        sum("not asked: its call on an earlier question is still running" in r for r in reasons)
        == QUESTIONS - 1
    )
    assert results["conditions"]["calls"]["failed"] == QUESTIONS
    assert f"{QUESTIONS} of {QUESTIONS} calls failed" in err


def test_the_audit_counts_a_case_its_retriever_failed_on_and_goes_on(
    ragaudit_home, parts, tmp_path, capsys
):
    audit = Path(__file__).resolve().parents[1] / "examples" / "audit"
    path = parts / "audit_raises.yaml"
    path.write_text(
        "name: bounds\nsplitter: {class: langchain_text_splitters.RecursiveCharacterTextSplitter}\n"
        "retriever:\n  factory: 'bounded_parts:make'\n  args: {fault: raises}\nk: 3\n",
        encoding="utf-8",
    )
    out = tmp_path / "audit.json"
    argv = ["audit", str(audit / "corpus"), str(audit / "cases.yaml"), "--settings",
            str(audit / "prod.yaml"), "--stack", str(path), "--out", str(out)]  # fmt: skip
    assert main(argv) == 1
    results = written(out)
    summary = results["summary"]
    # examples/audit/cases.yaml has 6 phrasings: the first asked failed, 5 were ranked
    assert (summary["cases"], summary["failed_calls"]) == (6, 1)
    text = json.dumps(results["cases"])
    assert text.count("retriever raised ValueError: index shard 3 is offline") == 1
