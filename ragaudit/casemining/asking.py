"""Asking the generator a batch of questions, each with its own context or none, through
ragaudit's one generation path (runner.generate.generate_records): identical prompts asked
once, the call cache replaying a rerun, a failed call recorded with its error and never
dropped, a remote generator asked concurrently."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ragaudit.grading.grade import grade
from ragaudit.runner.generate import generate_records

CONFIG = "cases"
"""The config name the records are asked under (it selects them, nothing else)."""


@dataclass(frozen=True)
class Ask:
    """One question: its key, its text and the context it is given (None: none)."""

    key: str
    question: str
    context: str | None = None


def ask_all(
    asks: Sequence[Ask],
    generator: Any,
    prompt: dict,
    params: dict,
    workers: int,
    progress: Callable[[int, int, int], None] | None = None,
) -> dict[str, dict]:
    """key -> its generation entry ({"status": "ok"|"failed_call", "reply", "error",
    "replayed", "prompt_sha256", ...}), as generate_records records it."""
    records = [
        {
            "key": ask.key, "config": CONFIG, "question": ask.question,
            "retrieved": [] if ask.context is None
            else [{"chunk_id": f"{ask.key}#source", "rank": 1, "text": ask.context}],
        }
        for ask in asks
    ]  # fmt: skip
    if records:
        generate_records(
            records, {}, generator, gen_configs=[CONFIG], params=dict(params),
            workers=workers, prompt=prompt, progress=progress,
        )  # fmt: skip
    return {record["key"]: record["generation"] for record in records}


def said_answer(generation: dict, answer: str) -> dict:
    """A reply graded as a value answer that must state `answer` (ragaudit's own grader,
    no judge): {"correct", "verdict", "reply"}."""
    verdict = grade(
        generation.get("reply"),
        {"kind": "value", "accept": [answer], "trap_values": []},
        status=generation["status"],
    )
    return {
        "correct": bool(verdict["correct"]),
        "verdict": verdict["verdict"],
        "reply": generation.get("reply"),
    }


def failed(generation: dict) -> bool:
    return generation["status"] == "failed_call"
