"""What a pipeline gave for one question: its answer and the contexts it says it used, read
from whatever shape the pipeline returned and checked, so a reply that is not text is a
failed call with a one-line reason, never a traceback later.

The plain shape is ``{"answer": str, "contexts": [str | {"text", "id", "score"}]}``, plus
optionally ``"citations"`` (context ids or 1-based positions the answer cites). The adapters
(targets.pipeline.adapters, targets.pipeline.http_client) read their forms into the same
`PipelineAnswer`, which is what the call cache stores.
"""

from __future__ import annotations

import math
import reprlib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from numbers import Real
from typing import Any

from ragaudit.errors import ModelCallFailed


@dataclass(frozen=True)
class Context:
    """One context the pipeline says reached its model."""

    text: str
    id: str | None = None
    """The pipeline's own id for it (a node id, a document id), if it gave one."""
    score: float | None = None
    doc_id: str | None = None
    """The document it names as the source (llama-index ref_doc_id, metadata doc_id)."""
    start: int | None = None
    """Where it says the context starts in that document (start_char_idx)."""


@dataclass(frozen=True)
class PipelineAnswer:
    """The answer and contexts of one question."""

    answer: str
    contexts: tuple[Context, ...] = ()
    citations: tuple[str, ...] | None = None
    """Context ids or 1-based positions the pipeline says the answer cites (None: it does
    not say; the answer's [n] marks are read instead)."""
    extra: dict = field(default_factory=dict, compare=False)

    def to_json(self) -> dict:
        """What the call cache stores."""
        return {
            "answer": self.answer,
            "contexts": [asdict(c) for c in self.contexts],
            "citations": list(self.citations) if self.citations is not None else None,
        }

    @classmethod
    def from_json(cls, data: dict) -> PipelineAnswer:
        """A stored answer read back."""
        citations = data.get("citations")
        return cls(
            data["answer"],
            tuple(Context(**c) for c in data["contexts"]),
            tuple(citations) if citations is not None else None,
        )


def text_of(value: Any, what: str, label: str) -> str:
    """`value` when it is text; else a failed call naming `what`."""
    if not isinstance(value, str):
        raise ModelCallFailed(f"{label}: {what} is {_shown(value)}, not text")
    return value


def score_of(value: Any, label: str) -> float | None:
    """A context's score: a finite number or None; else a failed call (an integer too
    large for a float, such as 10**400, says so: it is ragaudit's conversion that cannot
    take it, not the pipeline that raised)."""
    if value is None:
        return None
    what = "a context's score"
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ModelCallFailed(f"{label}: {what} is {_shown(value)}, not a finite number")
    try:
        number = float(value)
    except OverflowError:
        raise ModelCallFailed(
            f"{label}: {what} is {_shown(value)}, too large to be a number (a float "
            "holds up to about 1.8e308)"
        ) from None
    if not math.isfinite(number):
        raise ModelCallFailed(f"{label}: {what} is {_shown(value)}, not a finite number")
    return number


def id_of(value: Any) -> str | None:
    """A context's id as text (a number id is kept as its digits)."""
    if value is None or isinstance(value, bool):
        return None
    return str(value) if isinstance(value, str | int) else None


def read_plain(value: Any, label: str) -> PipelineAnswer:
    """The plain callable's return value, checked: ``{answer, contexts[, citations]}``."""
    if not isinstance(value, Mapping):
        raise ModelCallFailed(
            f"{label}: returned {_shown(value)}, not {{'answer': str, 'contexts': [...]}}"
        )
    if "answer" not in value:
        raise ModelCallFailed(f"{label}: returned no 'answer' (keys: {sorted(map(str, value))})")
    answer = text_of(value["answer"], "the answer", label)
    contexts = read_contexts(value.get("contexts", []), label)
    return PipelineAnswer(answer, contexts, read_citations(value.get("citations"), label))


def read_contexts(items: Any, label: str) -> tuple[Context, ...]:
    """A list of contexts, each a text or ``{text, id, score[, doc_id, start]}``."""
    if isinstance(items, str | bytes | Mapping) or not isinstance(items, Sequence):
        raise ModelCallFailed(f"{label}: contexts is {_shown(items)}, not a list")
    contexts = []
    for item in items:
        if isinstance(item, str):
            contexts.append(Context(item))
            continue
        if not isinstance(item, Mapping) or "text" not in item:
            raise ModelCallFailed(f"{label}: a context is {_shown(item)}, not text or {{text}}")
        start = item.get("start")
        contexts.append(
            Context(
                text_of(item["text"], "a context's text", label),
                id_of(item.get("id")),
                score_of(item.get("score"), label),
                id_of(item.get("doc_id")),
                start if isinstance(start, int) and not isinstance(start, bool) else None,
            )
        )
    return tuple(contexts)


def read_citations(value: Any, label: str) -> tuple[str, ...] | None:
    """Cited context ids or positions, as text; None when the pipeline gives none."""
    if value is None:
        return None
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Sequence):
        raise ModelCallFailed(f"{label}: citations is {_shown(value)}, not a list")
    return tuple(str(item) for item in value)


def _shown(value: Any) -> str:
    """`value` in a reason: its type and the start of its repr, however deep or large it
    is (reprlib stops at a few levels; an integer past Python's digit limit is not
    spelt out)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        digits = int(value.bit_length() * math.log10(2)) + 1
        return f"an integer of about {digits:,} digits"
    if isinstance(value, str):
        return repr(value)[:60]
    return f"{type(value).__name__} {_Short().repr(value)[:60]}"


class _Short(reprlib.Repr):
    """reprlib's bounded repr, a few levels deep, each text shown from its start and
    quoted as repr quotes it whole (reprlib would quote only its first characters)."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel, self.maxother, self.maxlong = 3, 60, 40

    def repr_str(self, text: str, level: int) -> str:
        return repr(text)[:60]
