"""The closed-book control: each phrasing asked once with no context by the run's own
generator and graded against its intent's answer. On public documentation the generator
already knows many answers, so a phrasing it answers right with nothing in front of it says
nothing about the column. The closed-book row names those phrasings, and the intents whose
every phrasing is known."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragaudit.grading.grade import grade
from ragaudit.runner.generate import DEFAULT_GEN_PARAMS, failed_calls, generate_records

CLOSED_BOOK = "closed_book"
"""The config name the no-context questions are asked under, and the failed-call kind's
suffix (`generate_closed_book`)."""

CLOSED_BOOK_PROMPT = {
    "system": "Answer the question. Give the exact value or items.",
    "template": "Question: {question}",
}
"""A `prompt:` entry (runner.generate.prompt_used): ragaudit's instruction without its
context clauses. The records' own prompt over an empty context tells the model to reply
NOT_IN_CONTEXT, and the 0.5B generator obeys it for answers it knows (PostgreSQL's port
5432, HTTP 404, Python's recursion limit 1000: abstained there, answered here), so it
would measure what leaks past the instruction, not what the model knows."""


def ask_closed_book(
    intents: Sequence[Any], generator: Any, workers: int, prompt: dict | None = None
) -> dict[str, dict]:
    """case id -> the phrasing's closed-book outcome: {"question", "reply", "verdict",
    "correct", "known_without_context", "status" ("ok" | "failed"), "error", "replayed",
    "prompt_sha256"}. Each phrasing is one record with nothing retrieved put through
    generate_records, so its prompt is build_messages(question, [], prompt) with `prompt`
    CLOSED_BOOK_PROMPT unless given ({} asks with the records' own prompt), identical
    prompts are asked once, the call cache replays a rerun and a remote generator has up
    to `workers` calls in flight. A failed call has known_without_context None."""
    records = [
        {"key": case.case_id, "config": CLOSED_BOOK, "question": case.question, "retrieved": []}
        for intent in intents
        for case in intent.cases
    ]
    generate_records(
        records,
        {},
        generator,
        gen_configs=[CLOSED_BOOK],
        params=dict(DEFAULT_GEN_PARAMS),
        workers=workers,
        prompt=CLOSED_BOOK_PROMPT if prompt is None else prompt,
    )
    answers = {case.case_id: intent.answer for intent in intents for case in intent.cases}
    return {
        record["key"]: closed_book_outcome(
            record["question"], record["generation"], answers[record["key"]]
        )
        for record in records
    }


def closed_book_outcome(question: str, generation: dict, answer: str) -> dict:
    """One phrasing's outcome from its generation entry (generate_records' shape), graded
    as a value answer that must say `answer` (no trap: the context held nothing)."""
    failed = generation["status"] == "failed_call"
    verdict = grade(
        generation.get("reply"),
        {"kind": "value", "accept": [answer], "trap_values": []},
        status=generation["status"],
    )
    return {
        "question": question,
        "reply": generation.get("reply"),
        "verdict": verdict["verdict"],
        "correct": bool(verdict["correct"]),
        "known_without_context": None if failed else bool(verdict["correct"]),
        "status": "failed" if failed else "ok",
        "error": generation.get("error"),
        "replayed": bool(generation.get("replayed")),
        "prompt_sha256": generation.get("prompt_sha256"),
    }


def closed_book_failed_calls(results_by_case: dict[str, dict], generator_spec: str) -> list[dict]:
    """The conditions' `failed_calls` entries for the closed-book questions, as
    runner.generate.failed_calls gives them for records (one per distinct error, naming
    the case ids), of kind `generate_closed_book`: each failed phrasing counted once."""
    failed = [
        {"key": case_id, "generation": {"status": "failed_call", "error": result["error"]}}
        for case_id, result in results_by_case.items()
        if result["status"] == "failed"
    ]
    entries = failed_calls(failed, generator_spec)
    return [entry | {"kind": f"generate_{CLOSED_BOOK}"} for entry in entries]


def closed_book_row(results_by_case: dict[str, dict], intents: Sequence[Any]) -> dict:
    """The closed-book row: per intent, its phrasings known without context, not known and
    failed, and whether it is `wholly` known (every phrasing known: True; a phrasing asked
    and not known: False; the rest known but some call failed: None, undetermined). A
    failed call is listed apart and counts in no denominator: neither the phrasings' nor,
    when it leaves its intent undetermined, the intents'."""
    by_intent, failures = [], []
    for intent in intents:
        known, unknown, failed = [], [], []
        for case in intent.cases:
            if case.case_id not in results_by_case:
                raise ValueError(f"closed book: no outcome for phrasing {case.case_id!r}")
            result = results_by_case[case.case_id]
            if result["status"] == "failed":
                failed.append(case.case_id)
                failures.append(
                    {"case_id": case.case_id, "intent": intent.name, "error": result["error"]}
                )
            else:
                (known if result["known_without_context"] else unknown).append(case.case_id)
        wholly = False if unknown else (None if failed else bool(known))
        by_intent.append(
            {"intent": intent.name, "known": known, "not_known": unknown, "failed": failed,
             "wholly": wholly}
        )  # fmt: skip
    asked = sum(len(entry["known"]) + len(entry["not_known"]) for entry in by_intent)
    known_count = sum(len(entry["known"]) for entry in by_intent)
    decided = [entry for entry in by_intent if entry["wholly"] is not None]
    wholly = [entry["intent"] for entry in decided if entry["wholly"]]
    summary = (
        f"known {known_count} of {asked} phrasings; {len(wholly)} of {len(decided)} intents wholly"
    )
    if failures:
        summary += f" ({len(failures)} failed call(s) left out)"
    return {
        "phrasings": {"known": known_count, "asked": asked, "failed": len(failures)},
        "intents": {"wholly": len(wholly), "decided": len(decided), "of": len(by_intent)},
        "wholly_known": wholly,
        "by_intent": by_intent,
        "failed_calls": failures,
        "summary": summary,
    }
