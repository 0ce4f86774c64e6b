"""A `pipeline: factory:` entry built and asked: the factory is called once with the corpus
as `documents=` (plus the entry's `args`) and returns one of
- a llama-index query engine: `query(question)` gives a Response, read as its answer plus
  `source_nodes` (text, score, node id, the document it came from and where it starts);
- a LangChain Runnable: `invoke({input_key: question})` gives a dict, read at `answer_key`
  and `context_key` (create_retrieval_chain's `answer` and `context`, a list of Documents);
- a plain callable: question -> {answer, contexts} (targets.pipeline.answer.read_plain).

Building it (import, the factory's call) is bounded by limits.build_seconds and a failure
there is bad input (RagauditError: one line, exit 2, before any call). Asking it one
question is bounded by limits.call_seconds; a question it raises on, times out on or
answers with junk is one failed call (ModelCallFailed) with a one-line reason.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ragaudit.errors import ModelCallFailed, RagauditError
from ragaudit.targets.bounded import Abandoned, CallTimedOut, UserCodeLimits, call_bounded
from ragaudit.targets.components import build_component, exception_line
from ragaudit.targets.pipeline.answer import (
    Context,
    PipelineAnswer,
    id_of,
    read_plain,
    score_of,
    text_of,
)

SHAPE = "a llama-index query engine, a LangChain Runnable or a callable question -> dict"
Ask = Callable[[str], PipelineAnswer]


def factory_documents(documents: Sequence[Any]) -> list[dict]:
    """The corpus as the factory gets it: ``{"id", "text", "metadata"}`` per document. The
    planted corpus's metadata is its answer key (probe, instance id, what supersedes what),
    so only a title and a date reach the pipeline, as they would in a real one."""
    kept = ("title", "date")
    return [
        {
            "id": doc.doc_id,
            "text": doc.text,
            "metadata": {key: doc.metadata[key] for key in kept if key in doc.metadata},
        }
        for doc in documents
    ]


def build_factory(
    entry: dict, documents: Sequence[Any], label: str, limits: UserCodeLimits
) -> tuple[Ask, str]:
    """The pipeline the factory builds over `documents`, as an asker, and which form it is
    (``query_engine``, ``runnable``, ``callable``)."""
    if "documents" in entry["args"]:
        raise RagauditError(f"{label}: args may not set 'documents' (ragaudit passes it)")
    made = build_component(
        entry["factory"],
        {"documents": factory_documents(documents), **entry["args"]},
        label,
        limits.build_seconds,
    )
    form, call = _form(made, entry, label)
    return _bounded(call, label, limits), form


def _form(made: Any, entry: dict, label: str) -> tuple[str, Ask]:
    if _is_query_engine(made):
        return "query_engine", lambda question: read_response(made.query(question), label)
    if _is_runnable(made):
        key = entry.get("input_key", "input")

        def invoke(question: str) -> PipelineAnswer:
            given = {key: question} if key is not None else question
            return read_chain_output(made.invoke(given), entry, label)

        return "runnable", invoke
    if callable(made):
        return "callable", lambda question: read_plain(made(question), label)
    raise RagauditError(f"{label}: the factory returned {type(made).__name__}, not {SHAPE}")


def _is_query_engine(made: Any) -> bool:
    try:
        from llama_index.core.base.base_query_engine import BaseQueryEngine
    except ImportError:  # llama-index not installed: it cannot be one
        return False
    return isinstance(made, BaseQueryEngine)


def _is_runnable(made: Any) -> bool:
    try:
        from langchain_core.runnables import Runnable
    except ImportError:
        return False
    return isinstance(made, Runnable)


def read_response(response: Any, label: str) -> PipelineAnswer:
    """A llama-index Response: its text and source nodes."""
    answer = getattr(response, "response", None)
    if answer is None:
        raise ModelCallFailed(f"{label}: the query engine's response has no text (None)")
    contexts = []
    for scored in getattr(response, "source_nodes", None) or []:
        node = getattr(scored, "node", scored)
        text = node.get_content() if hasattr(node, "get_content") else getattr(node, "text", None)
        metadata = getattr(node, "metadata", None) or {}
        contexts.append(
            Context(
                text_of(text, "a source node's text", label),
                id_of(getattr(node, "node_id", None)),
                score_of(getattr(scored, "score", None), label),
                id_of(getattr(node, "ref_doc_id", None) or metadata.get("doc_id")),
                getattr(node, "start_char_idx", None),
            )
        )
    return PipelineAnswer(text_of(str(answer), "the answer", label), tuple(contexts))


def read_chain_output(output: Any, entry: dict, label: str) -> PipelineAnswer:
    """A LangChain chain's output dict: the answer at `answer_key`, the Documents (or
    texts) at `context_key`."""
    answer_key, context_key = entry.get("answer_key", "answer"), entry.get("context_key", "context")
    if not isinstance(output, Mapping):
        raise ModelCallFailed(
            f"{label}: the Runnable returned {type(output).__name__}, not a dict with "
            f"{answer_key!r} and {context_key!r}"
        )
    for key in (answer_key, context_key):
        if key not in output:
            raise ModelCallFailed(
                f"{label}: the Runnable's output has no {key!r} (keys: {sorted(map(str, output))})"
            )
    answer = output[answer_key]
    answer = getattr(answer, "content", answer)  # an AIMessage from a chain without a parser
    documents = output[context_key]
    if isinstance(documents, str | bytes | Mapping) or not isinstance(documents, Sequence):
        raise ModelCallFailed(f"{label}: {context_key!r} is {type(documents).__name__}, not a list")
    contexts = []
    for document in documents:
        if isinstance(document, str):
            contexts.append(Context(document))
            continue
        text = getattr(document, "page_content", None)
        metadata = getattr(document, "metadata", None) or {}
        start = metadata.get("start_index")
        contexts.append(
            Context(
                text_of(text, "a context's page_content", label),
                id_of(getattr(document, "id", None) or metadata.get("id")),
                score_of(metadata.get("score"), label),
                id_of(metadata.get("doc_id") or metadata.get("source")),
                start if isinstance(start, int) and not isinstance(start, bool) else None,
            )
        )
    return PipelineAnswer(text_of(answer, "the answer", label), tuple(contexts))


def _bounded(call: Ask, label: str, limits: UserCodeLimits) -> Ask:
    """`call` within limits.call_seconds; whatever it raises is one failed call."""
    abandoned = Abandoned()

    def ask(question: str) -> PipelineAnswer:
        if abandoned.still_running():
            raise ModelCallFailed(
                f"{label}: not asked: its call on an earlier question is still running past "
                f"{limits.call_seconds:g} s (limits.call_seconds)"
            )
        try:
            return call_bounded(lambda: call(question), limits.call_seconds, abandoned)
        except ModelCallFailed:
            raise
        except CallTimedOut as error:
            raise ModelCallFailed(f"{label}: pipeline gave {error} (limits.call_seconds)") from None
        except (Exception, SystemExit) as error:  # the user's code: any failure, one line
            what = f"{type(error).__name__}: {exception_line(error)}"
            raise ModelCallFailed(f"{label}: pipeline raised {what}") from None

    return ask
