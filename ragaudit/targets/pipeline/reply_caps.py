"""A pipeline's answer held to the stack file's `limits` before anything is done with it.

Nothing else bounds what a pipeline hands back: a factory's reply has no byte cap at all,
and an `http:` reply's (RAGAUDIT_MAX_REPLY_MB) still lets 100,000 contexts through. At n=1
that wrote a 190 MB results file, and a 50 MB answer a 577 MB cache. So the contexts per
question (`max_contexts`, the citations too), the characters of one context (its text,
id and document id: `max_context_chars`) and of the answer (`max_answer_chars`) are
checked as soon as the pipeline has answered, before the answer is redacted, cached or
written (it is the cheapest check, and the others take time in proportion). An answer
past a cap is one failed call whose reason names the limit and the size.
"""

from __future__ import annotations

from collections.abc import Callable

from ragaudit.errors import ModelCallFailed
from ragaudit.targets.bounded import UserCodeLimits
from ragaudit.targets.pipeline.answer import PipelineAnswer

Ask = Callable[[str], PipelineAnswer]


def past_caps(answer: PipelineAnswer, limits: UserCodeLimits) -> str | None:
    """Which cap `answer` is past, in words, or None when it is within them all."""
    most = limits.max_contexts
    for what, count in (("contexts", len(answer.contexts)),
                        ("citations", len(answer.citations or ()))):  # fmt: skip
        if count > most:
            return f"the reply has {count:,} {what}, more than limits.max_contexts ({most:,})"
    if len(answer.answer) > limits.max_answer_chars:
        return (
            f"the answer is {len(answer.answer):,} characters, more than "
            f"limits.max_answer_chars ({limits.max_answer_chars:,})"
        )
    longest = limits.max_context_chars
    for position, context in enumerate(answer.contexts, 1):
        for what, text in (("text", context.text), ("id", context.id),
                           ("document id", context.doc_id)):  # fmt: skip
            if text is not None and len(text) > longest:
                return (
                    f"context {position}'s {what} is {len(text):,} characters, more than "
                    f"limits.max_context_chars ({longest:,})"
                )
    return None


def capped(ask: Ask, limits: UserCodeLimits, label: str) -> Ask:
    """`ask` whose answers past a cap of `limits` are failed calls naming `label`."""

    def asked(question: str) -> PipelineAnswer:
        answer = ask(question)
        problem = past_caps(answer, limits)
        if problem is not None:
            raise ModelCallFailed(f"{label}: {problem}")
        return answer

    return asked
