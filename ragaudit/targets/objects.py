"""The user's system under test given as Python objects: the library's second way in,
beside a stack file, both ending in one StackSpec (targets.stackfile) that the one column
(targets.column) builds.

A target is one of:

* a stack file's path, or the same content as a mapping (an `http:` pipeline, say);
* a pipeline factory: a callable ``documents -> query engine | Runnable | callable``,
  rebuilt over every corpus it is given (each mutated corpus too);
* `Components`: a splitter (a llama-index node parser or LangChain text splitter,
  built) with an embedder spec and k (ragaudit's core ranks), or with a retriever: a
  factory ``chunks|documents -> retriever`` (rebuilt per corpus), or one already built
  (a llama-index or LangChain `BaseRetriever`, or ``question -> [(id or text, score)]``)
  over the documents the splitter chunked;
* an object already built that answers (a query engine, a Runnable): `run` and `audit`
  ask it as it stands.

Every bound of the YAML form applies (`limits`). What a factory's answers are replayed
under is targets.pipeline.identity's (`not_replayed` says when they are not).
"""

from __future__ import annotations

import hashlib
import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragaudit.errors import RagauditError
from ragaudit.targets.bounded import UserCodeLimits
from ragaudit.targets.given import Built, Given, label_of
from ragaudit.targets.stackfile import StackSpec, load_stack, stack_from_data

IN_PYTHON = "<target given in Python>"
"""What errors and the results file name as the stack file of a target given in Python."""


@dataclass(frozen=True)
class Components:
    """A component target: their splitter, then our core over `embedder` (a spec, e.g.
    ``local:minilm``) or their `retriever`, and the `k` chunks that reach the model."""

    splitter: Any
    embedder: str | None = None
    retriever: Any = None
    """A factory taking `chunks` or `documents` (rebuilt per corpus), or a built retriever."""
    k: int = 4
    hybrid: bool = False
    """Our BM25 fusion with the dense ranking (not with a retriever)."""
    name: str = "yours"
    generator: str | None = None
    """The generator spec that answers from its chunks; None: the run's."""
    limits: UserCodeLimits = field(default_factory=UserCodeLimits)


def rebuildable(target: Any) -> bool:
    """Whether `target` can be built again over another corpus (what `mutate` needs): a
    path, a mapping, a factory, or components whose retriever (if any) is a factory; not a
    retriever or an engine already built. A value that is no target at all is as_stack's
    to refuse, naming what it is."""
    if isinstance(target, Components):
        return target.retriever is None or _is_factory(target.retriever)
    if isinstance(target, (str, Path, dict)) or _is_factory(target):
        return True
    return not (_is_retriever(target) or _answers(target))


def as_stack(
    target: Any, *, name: str = "yours", version: str | None = None,
    limits: UserCodeLimits | None = None,
) -> StackSpec:  # fmt: skip
    """The StackSpec of a target in any form (module docstring); a form it cannot be is one
    line naming what it is and what is accepted."""
    if isinstance(target, (str, Path)):
        return load_stack(Path(target))
    if isinstance(target, dict):
        digest = hashlib.sha256(repr(sorted(target.items())).encode()).hexdigest()
        return stack_from_data({"name": name, **target}, Path(IN_PYTHON), {}, digest)
    if isinstance(target, Components):
        return _component_stack(target)
    if _is_retriever(target):
        raise RagauditError(
            f"target {Built(target)} is a retriever: give it with the splitter that chunked "
            "its documents, as ragaudit.Components(splitter=..., retriever=..., k=...)"
        )
    if _is_factory(target):
        return _pipeline_stack(Given(target), name, version, limits)
    if _answers(target):
        return _pipeline_stack(Built(target), name, version, limits)
    raise RagauditError(
        f"target {type(target).__name__}: expected a stack file's path, a mapping, a pipeline "
        "factory, ragaudit.Components or a query engine / Runnable / callable"
    )


def _component_stack(target: Components) -> StackSpec:
    if target.embedder is None and target.retriever is None:
        raise RagauditError("Components: give an embedder spec or a retriever")
    if not 1 <= target.k <= 50:
        raise RagauditError(f"Components: k={target.k} is not from 1 to 50")
    splitter = target.splitter if isinstance(target.splitter, Given) else Built(target.splitter)
    retriever = None
    if target.retriever is not None:
        given = target.retriever
        factory = Given(given) if _is_factory(given) else Given(_returning(given), label_of(given))
        retriever = {"factory": factory, "args": {}}
    model = {"spec": target.embedder, "base_url": None, "api_key_env": None}
    generator = {"spec": target.generator, "base_url": None, "api_key_env": None}
    return StackSpec(
        name=target.name, file=IN_PYTHON, sha256=_digest(str(splitter), str(retriever)),
        splitter={"class": splitter, "args": {}},
        embedder=model if target.embedder is not None else None,
        generator=generator if target.generator is not None else None,
        k=target.k, hybrid=target.hybrid and target.retriever is None, retriever=retriever,
        probes=None, limits=target.limits,
    )  # fmt: skip


def _pipeline_stack(
    factory: Given, name: str, version: str | None, limits: UserCodeLimits | None
) -> StackSpec:
    entry = {
        "factory": factory, "args": {}, "http": None, "ingest": None, "answer_key": "answer",
        "context_key": "context", "input_key": "input",
        "version": None if version is None else str(version),
    }  # fmt: skip
    return StackSpec(
        name=name, file=IN_PYTHON, sha256=_digest(str(factory), str(version)), splitter=None,
        embedder=None, generator=None, k=None, hybrid=False, retriever=None, probes=None,
        pipeline=entry, limits=limits or UserCodeLimits(),
    )  # fmt: skip


def _returning(built: Any) -> Any:
    """A retriever factory over `documents` that hands back the retriever already built (it
    indexed the documents itself; its passages are located in them: a reader's metadata,
    counted by a llama-index splitter against its chunk size, moves its chunks' edges)."""

    def retriever(documents: Any) -> Any:
        return built

    return retriever


def _is_retriever(value: Any) -> bool:
    """A llama-index or LangChain retriever object (not a factory that makes one)."""
    names = {cls.__name__ for cls in type(value).__mro__}
    return "BaseRetriever" in names


def _is_factory(value: Any) -> bool:
    """A function or class to call with the documents (or chunks), not a built object."""
    if not callable(value) or _is_retriever(value):
        return False
    if not (inspect.isfunction(value) or inspect.ismethod(value) or inspect.isclass(value)):
        return False  # a callable object is a built pipeline
    try:
        parameters = inspect.signature(value).parameters
    except (TypeError, ValueError):
        return False
    return "documents" in parameters or "chunks" in parameters


def _answers(value: Any) -> bool:
    """A built pipeline, as targets.pipeline.adapters asks one: a llama-index query engine,
    a LangChain Runnable or a callable (an object with a `query` method of its own is none)."""
    names = {cls.__name__ for cls in type(value).__mro__}
    return bool({"BaseQueryEngine", "Runnable"} & names) or callable(value)


def _digest(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()
