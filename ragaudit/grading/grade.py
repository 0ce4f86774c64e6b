"""Grading: each generated reply gets a verdict from its instance's grading spec, with the
branch that produced it, and a citation check that never looks at the answer key."""

from __future__ import annotations

from ragaudit.errors import RagauditError
from ragaudit.grading.citation_check import check_citations
from ragaudit.grading.listing import grade_list
from ragaudit.grading.polarity import grade_polarity
from ragaudit.grading.text import ABSTENTION_PATTERNS, DENIAL_OF_RECORD_PATTERNS, abstains
from ragaudit.grading.value import grade_value

VERDICTS = (
    "correct",
    "wrong",
    "abstained",
    "empty",
    "trap_taken",
    "labels_only",
    "partial_list",
    "denied_record",
    "failed_call",
)


def grading_patterns() -> dict:
    """The regexes behind abstention and denial-of-record verdicts, for the results file.
    Both lists are matched case-insensitively."""
    return {
        "abstention": list(ABSTENTION_PATTERNS),
        "denial_of_record": list(DENIAL_OF_RECORD_PATTERNS),
    }


def spec_for(grading: dict | None, gold_answer: object = None) -> dict:
    """The grading spec to use: the instance's own, else one derived from its gold answer
    (a string is a value, a list is a list, None means the corpus cannot answer)."""
    if grading and grading.get("kind"):
        return grading
    if gold_answer is None:
        return {"kind": "abstain"}
    if isinstance(gold_answer, list):
        return {"kind": "list", "items": list(gold_answer), "labels": []}
    return {"kind": "value", "accept": [str(gold_answer)], "trap_values": []}


def grade(
    reply: str | None, grading: dict | None, *, status: str = "ok", gold_answer: object = None
) -> dict:
    """Grade one reply. Order: failed call, empty reply, then the spec's kind.

    An empty reply is its own verdict: neither an abstention nor a wrong value.
    """
    if status == "failed_call":
        return {"verdict": "failed_call", "correct": False, "branch": "failed_call"}
    if reply is None or not reply.strip():
        return {"verdict": "empty", "correct": False, "branch": "empty_reply"}
    spec = spec_for(grading, gold_answer)
    kind = spec.get("kind")
    if kind == "value":
        return grade_value(reply, spec)
    if kind == "list":
        return grade_list(reply, spec)
    if kind == "polarity":
        return grade_polarity(reply, spec)
    if kind == "abstain":
        if abstains(reply):
            return {"verdict": "abstained", "correct": True, "branch": "abstain_expected:abstained"}
        return {"verdict": "wrong", "correct": False, "branch": "abstain_expected:answered"}
    raise RagauditError(
        f"grading spec: unknown kind {kind!r} (expected value, list, abstain, polarity)"
    )


def grade_records(records: list[dict], chunks_by_id: dict) -> None:
    """Fill record["grade"] and record["citation_check"] on every record with a generation.

    Records without one get both set to None (generation did not run for them). The
    citation check reads the retrieved chunks' texts from `chunks_by_id` (the results
    file's "chunks"), so its outcome is final: analysis counts it and never re-checks.
    A retrieved chunk missing from `chunks_by_id` is an error naming the instance.
    A record's oracle reply (record["oracle"]["generation"]) is graded by the same spec
    into record["oracle"]["grade"]; it gets no citation check (its context is the gold).
    """
    for record in records:
        generation = record.get("generation")
        if not generation:
            record["grade"] = None
            record["citation_check"] = None
            continue
        oracle = record.get("oracle") or {}
        try:
            record["grade"] = _grade_generation(generation, record)
            if oracle.get("generation"):
                oracle["grade"] = _grade_generation(oracle["generation"], record)
            texts = _retrieved_texts(record, chunks_by_id)
        except RagauditError as error:
            raise RagauditError(f"instance {record.get('key')}: {error}") from None
        record["citation_check"] = check_citations(generation, texts)


def _grade_generation(generation: dict, record: dict) -> dict:
    """`grade` of one generation record by the instance's grading spec."""
    return grade(
        generation.get("reply"),
        record.get("grading"),
        status=generation.get("status", "ok"),
        gold_answer=record.get("gold_answer"),
    )


def _retrieved_texts(record: dict, chunks_by_id: dict) -> dict[str, str]:
    texts = {}
    for hit in record.get("retrieved") or []:
        chunk = chunks_by_id.get(hit["chunk_id"])
        if chunk is None or chunk.get("text") is None:
            raise RagauditError(f"retrieved chunk {hit['chunk_id']} has no text to check against")
        texts[hit["chunk_id"]] = chunk["text"]
    return texts
