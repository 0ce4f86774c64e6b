"""The records a judge is asked about, and what each metric is scored against.

A sample is one generated record of a results file: the question, the answer the model gave
(its chunk labels `[c1]` taken out: they are ragaudit's prompt format, not the answer), the
texts of the chunks it was given (its retrieved contexts, in rank order) and the reference
(the gold answer, a list's items joined by commas; none for an unanswerable question).
Beside them, ragaudit's ground truth: the grader's verdict and branch on the answer, and
whether the gold was in the context.

Which records: up to `per_group` of each (probe, verdict) group, drawn with a seeded RNG
from the group's records sorted by key, so the same results file and seed give the same
sample; they are ordered round-robin over the groups, so the first N records of the
sample cover the groups as evenly as N allows (a run limited to N records, or resumed).
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from dataclasses import dataclass

from ragaudit.errors import RagauditError

_LABELS = re.compile(r"\s*\[\s*[cC]\d+(?:\s*[,;]\s*[cC]?\d+)*\s*\]")


@dataclass(frozen=True)
class Sample:
    """One record put to the judge, with ragaudit's verdict on it."""

    key: str
    probe: str
    config: str
    question: str
    answer: str
    contexts: tuple[str, ...]
    reference: str | None
    """The gold answer; None when the question has no answer (unanswerable)."""
    verdict: str
    """The grader's verdict: correct, trap_taken, partial_list, abstained, wrong, …"""
    correct: bool
    branch: str
    gold_in_context: bool | None
    """None when there is no gold to retrieve (unanswerable)."""

    @property
    def abstains(self) -> bool:
        """The answer declines to answer (the grader's `abstained`)."""
        return self.verdict == "abstained"

    def to_json(self) -> dict:
        return {
            "key": self.key,
            "probe": self.probe,
            "config": self.config,
            "question": self.question,
            "answer": self.answer,
            "contexts": list(self.contexts),
            "reference": self.reference,
            "verdict": self.verdict,
            "correct": self.correct,
            "branch": self.branch,
            "gold_in_context": self.gold_in_context,
        }

    @classmethod
    def from_json(cls, data: dict) -> Sample:
        return cls(**{**data, "contexts": tuple(data["contexts"])})


def answer_text(reply: str) -> str:
    """The model's reply without ragaudit's chunk labels."""
    return " ".join(_LABELS.sub("", reply or "").split())


def reference_text(gold: object) -> str | None:
    """The gold answer as the text a metric's reference is: a list's items joined by
    commas (a summarisation probe's items), None when there is no answer."""
    if gold is None:
        return None
    return ", ".join(str(item) for item in gold) if isinstance(gold, list) else str(gold)


def sample_of(record: dict, chunks: dict) -> Sample:
    """The sample of one generated, graded record (`chunks`: the results file's texts)."""
    missing = [hit["chunk_id"] for hit in record["retrieved"] if hit["chunk_id"] not in chunks]
    if missing:
        raise RagauditError(f"record {record['key']}: chunk {missing[0]} has no text in chunks")
    grade = record["grade"]
    return Sample(
        key=record["key"],
        probe=record["probe"],
        config=record["config"],
        question=record["question"],
        answer=answer_text(record["generation"]["reply"]),
        contexts=tuple(chunks[hit["chunk_id"]]["text"] for hit in record["retrieved"]),
        reference=reference_text(record.get("gold_answer")),
        verdict=grade["verdict"],
        correct=bool(grade["correct"]),
        branch=grade["branch"],
        gold_in_context=record.get("gold_in_context"),
    )


def judged_records(results: dict) -> list[dict]:
    """The records a judge can be asked about: generated (status ok) and graded."""
    return [
        record
        for record in results.get("instances", [])
        if (record.get("generation") or {}).get("status") == "ok" and record.get("grade")
    ]


def choose_samples(results: dict, per_group: int, seed: int = 0) -> list[Sample]:
    """Up to `per_group` samples of each (probe, verdict) group, round-robin over groups."""
    if per_group < 1:
        raise RagauditError(f"--per-group {per_group}: give 1 or more")
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for record in judged_records(results):
        groups[(record["probe"], record["grade"]["verdict"])].append(record)
    if not groups:
        raise RagauditError("the results file has no generated, graded records to judge")
    drawn = []
    for group in sorted(groups):
        records = sorted(groups[group], key=lambda record: record["key"])
        rng = random.Random(f"{seed}:{group[0]}:{group[1]}")
        drawn.append(rng.sample(records, min(per_group, len(records))))
    ordered = [group[i] for i in range(per_group) for group in drawn if i < len(group)]
    chunks = results.get("chunks", {})
    return [sample_of(record, chunks) for record in ordered]
