"""A pipeline's answers made safe to cache, write and print.

Every field built from a reply can hold what the service was sent: an answer, a context's
text, id or document id, a citation, and every failure reason built from the reply (a
score or an answer that is not what was expected is shown in it, and so is a type name).
So a service's asker is wrapped once, when the pipeline is built (targets.pipeline.build):
each text of its answer and each reason it fails with goes through the redacting
formatter of the header values the stack file names (backends.redact), whatever adapter
read it and whatever mapping it was read through. A reason is one line.

Before an answer is cached, its texts (and a failure's reason) have each lone surrogate
replaced (backends.reply_text); a stored answer that still holds one is not replayed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ragaudit.backends.redact import one_line
from ragaudit.backends.reply_text import holds_lone_surrogate, storable
from ragaudit.errors import ModelCallFailed
from ragaudit.targets.pipeline.answer import PipelineAnswer

Ask = Callable[[str], PipelineAnswer]


def each_text(answer: PipelineAnswer, change: Callable[[str], str]) -> PipelineAnswer:
    """`answer` with `change` applied to every text in it: the answer, each context's
    text, id and document id, and the citations."""
    contexts = tuple(
        replace(
            context,
            text=change(context.text),
            id=None if context.id is None else change(context.id),
            doc_id=None if context.doc_id is None else change(context.doc_id),
        )
        for context in answer.contexts
    )
    citations = answer.citations
    if citations is not None:
        citations = tuple(change(citation) for citation in citations)
    return replace(answer, answer=change(answer.answer), contexts=contexts, citations=citations)


def texts_of(answer: PipelineAnswer) -> list[str]:
    """Every text `answer` holds (each_text's fields)."""
    texts = [answer.answer, *(answer.citations or ())]
    for context in answer.contexts:
        texts += [text for text in (context.text, context.id, context.doc_id) if text is not None]
    return texts


def redacting(ask: Ask, redact: Callable[[object], str], label: str) -> Ask:
    """`ask` whose answers and failure reasons are redacted by `redact`."""

    def asked(question: str) -> PipelineAnswer:
        try:
            answer = ask(question)
        except ModelCallFailed as error:
            raise ModelCallFailed(redact(error)) from None
        except Exception as error:  # anything a reply made the reading raise: one line
            reason = f"{type(error).__name__}: {one_line(str(error), redact)}"
            raise ModelCallFailed(f"{label}: {redact(reason)}") from None
        return each_text(answer, redact)

    return asked


def storable_answer(answer: PipelineAnswer) -> PipelineAnswer:
    """`answer` fit to cache and write: each lone surrogate replaced."""
    return each_text(answer, storable)


def replayable(answer: PipelineAnswer) -> bool:
    """False for a stored answer holding a lone surrogate (stored before the check)."""
    return not any(holds_lone_surrogate(text) for text in texts_of(answer))
