"""The generator ceiling of a black-box pipeline: what its `oracle:` entry answers from the
gold context alone.

A pipeline's prompt and model sit inside it, so ragaudit cannot hand its generator the gold
chunk as it does a stack's. An `oracle:` entry is the user's way in: a factory
`make(**args)` returning a callable ``(question, contexts: list[str]) -> answer`` (text,
or a dict with ``answer``), or a service whose template holds ``{{question}}`` and
``{{contexts}}``. The oracle context of a record is, for each gold span (and the table
header a row needs), the paragraph of its document holding it: what a perfect retriever
would have returned. Without an entry the record says `ceiling: not measured (no oracle
entry)`; it is never guessed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from ragaudit.errors import ModelCallFailed, RagauditError
from ragaudit.stack.oracle import EVIDENCE_ROLES
from ragaudit.targets.bounded import UserCodeLimits
from ragaudit.targets.components import build_component
from ragaudit.targets.pipeline.adapters import _bounded
from ragaudit.targets.pipeline.answer import PipelineAnswer, text_of
from ragaudit.targets.pipeline.http_client import CONTEXTS, QUESTION, HttpService

NOT_MEASURED = "not measured (no oracle entry)"
"""What a pipeline record without an oracle entry says of its ceiling."""


def build_oracle(
    entry: dict, label: str, limits: UserCodeLimits
) -> tuple[Callable[[str], PipelineAnswer], HttpService | None]:
    """The oracle as an asker of one JSON-encoded ``[question, contexts]``, and its service
    (None for a factory); a factory that cannot be built is bad input."""
    if entry.get("factory"):
        args = entry.get("args") or {}
        made = build_component(entry["factory"], args, label, limits.build_seconds)
        if not callable(made):
            raise RagauditError(
                f"{label}: the oracle factory returned {type(made).__name__}, not a callable "
                "(question, contexts) -> answer"
            )

        def answer(payload: str) -> PipelineAnswer:
            question, contexts = json.loads(payload)
            reply = made(question, contexts)
            if isinstance(reply, Mapping):
                if "answer" not in reply:
                    raise ModelCallFailed(f"{label}: the oracle returned no 'answer'")
                reply = reply["answer"]
            return PipelineAnswer(text_of(reply, "the oracle's answer", label))

        return _bounded(answer, label, limits), None
    service = HttpService(entry["http"], label)

    def ask(payload: str) -> PipelineAnswer:
        question, contexts = json.loads(payload)
        reply = service.request({QUESTION: question, CONTEXTS: contexts})
        return PipelineAnswer(service.answer_of(reply).answer)

    return ask, service


def oracle_payload(question: str, contexts: list[str]) -> str:
    """What the oracle is asked (and keyed by in the call cache)."""
    return json.dumps([question, contexts], ensure_ascii=False)


def oracle_passages(record: dict, documents: Mapping[str, Any]) -> list[tuple[str, int, int]]:
    """(doc_id, start, end) of the paragraphs holding the record's gold spans and their
    evidence (a table's header), in the order the spans name them, each once."""
    spans = [*record["gold_spans"]]
    spans += [s for s in record.get("extra_spans") or [] if s.get("role") in EVIDENCE_ROLES]
    passages: list[tuple[str, int, int]] = []
    for span in spans:
        doc = documents.get(span["doc_id"])
        if doc is None:
            continue
        start = doc.text.rfind("\n\n", 0, span["start"])
        start = 0 if start < 0 else start + 2
        end = doc.text.find("\n\n", span["end"])
        end = len(doc.text) if end < 0 else end
        covered = any(d == span["doc_id"] and s <= start and end <= e for d, s, e in passages)
        if not covered:
            passages.append((span["doc_id"], start, end))
    return passages
