"""A `pipeline:` stack file built over a corpus: the entry point a stage (and the mutation
audit, over a mutated corpus) calls. Everything that can be refused is refused here, before
any call and before any file is written: a factory that cannot be imported, raises while
building or returns the wrong thing; a header's variable unset; an ingest that fails.

Built for a dry run, nothing of the user's that could call a model runs: a factory (the
pipeline's and the oracle's) is imported, since its identity needs its module's source,
and checked to be callable, but not called (building an index embeds the corpus; the
examples' factories do), and an `http:` service's ingest is neither posted nor run: the
service is not contacted at all. So a factory that raises while building, or returns the
wrong thing, is refused by the real run, still before any question and any file written."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragaudit.backends.cache import identity_key
from ragaudit.errors import RagauditError
from ragaudit.targets.components import import_component
from ragaudit.targets.given import Built
from ragaudit.targets.pipeline.adapters import build_factory
from ragaudit.targets.pipeline.answer import PipelineAnswer
from ragaudit.targets.pipeline.http_client import Redactors, http_pipeline
from ragaudit.targets.pipeline.identity import describe_entry
from ragaudit.targets.pipeline.ingest import ingest
from ragaudit.targets.pipeline.oracle import build_oracle
from ragaudit.targets.pipeline.reply_caps import capped
from ragaudit.targets.pipeline.safe_answers import redacting


@dataclass
class BuiltPipeline:
    """A pipeline ready to be asked, and what the results file and the cache call it."""

    ask: Callable[[str], PipelineAnswer]
    form: str
    """``query_engine``, ``runnable``, ``callable`` or ``http``."""
    model: str
    """``pipeline:<name>``: its calls' model in the counts and the cache."""
    identity: dict
    """What its answers are keyed by (targets.pipeline.identity)."""
    indexed_documents: Any = None
    """"asserted by the user" under `ingest: none`, else None (ragaudit handed them)."""
    oracle: Callable[[str], PipelineAnswer] | None = None
    oracle_model: str | None = None
    oracle_identity: dict | None = None
    services: list = field(default_factory=list)

    def models(self) -> list[dict]:
        """The results file's `models` entries: the pipeline and its oracle."""
        entries = [_model_entry(self.model, "pipeline", self.identity)]
        if self.oracle is not None:
            entries.append(_model_entry(self.oracle_model, "oracle", self.oracle_identity))
        return entries


def _model_entry(spec: str, kind: str, identity: dict) -> dict:
    return {
        "spec": spec, "kind": kind, "backend": "pipeline", "name": spec,
        "digest": identity_key(identity), "digest_reason": None, "identity": identity,
    }  # fmt: skip


def build_pipeline(stack: Any, documents: Sequence[Any], *, dry_run: bool = False) -> BuiltPipeline:
    """The stack's pipeline built over `documents` (its oracle too); RagauditError when bad.
    `dry_run`: checked and named, no factory called, no service ingested into (module
    docstring)."""
    entry = stack.pipeline
    model = f"pipeline:{stack.name}"
    if entry.get("factory"):
        label = stack.where("pipeline", "factory")
        if dry_run:
            if "documents" in entry["args"]:
                raise RagauditError(f"{label}: args may not set 'documents' (ragaudit passes it)")
            _callable_factory(entry["factory"], label, stack.limits)
            ask, form = _not_asked, "factory (not built: dry run)"
        else:
            ask, form = build_factory(entry, documents, label, stack.limits)
        built = BuiltPipeline(ask, form, model, describe_entry(entry, label))
    else:
        label = stack.where("pipeline", "http")
        ask, service = http_pipeline(entry["http"], label)  # headers read: no request made
        where = stack.where("pipeline", "ingest")
        indexed = None if dry_run else ingest(entry["ingest"], documents, where, service.headers)
        built = BuiltPipeline(ask, "http", model, describe_entry(entry, label), indexed)
        built.services.append(service)
    if stack.oracle:
        label = stack.where("oracle")
        if dry_run and stack.oracle.get("factory"):
            _callable_factory(stack.oracle["factory"], label, stack.limits)
            built.oracle, service = _not_asked, None
        else:
            built.oracle, service = build_oracle(stack.oracle, label, stack.limits)
        built.oracle_model = f"oracle:{stack.name}"
        built.oracle_identity = describe_entry(stack.oracle, label)
        built.services += [service] if service is not None else []
    _cap_replies(built, stack)
    _redact_replies(built, stack)
    return built


def _cap_replies(built: BuiltPipeline, stack: Any) -> None:
    """Every answer of the pipeline and its oracle held to the stack's `limits` (contexts,
    their size, the answer's size: targets.pipeline.reply_caps), before it is redacted."""
    form = "factory" if stack.pipeline.get("factory") else "http"
    built.ask = capped(built.ask, stack.limits, stack.where("pipeline", form))
    if built.oracle is not None:
        built.oracle = capped(built.oracle, stack.limits, stack.where("oracle"))


def _redact_replies(built: BuiltPipeline, stack: Any) -> None:
    """Every answer and failure of the stack's services redacted of every header value
    it names (targets.pipeline.safe_answers); a factory is sent none."""
    secrets = [value for service in built.services for value in service.headers.values()]
    if not secrets:
        return
    redact = Redactors(secrets)
    form = "factory" if stack.pipeline.get("factory") else "http"
    built.ask = redacting(built.ask, redact, stack.where("pipeline", form))
    if built.oracle is not None:
        built.oracle = redacting(built.oracle, redact, stack.where("oracle"))


def _callable_factory(path: str, label: str, limits: Any) -> None:
    """A dry run's check of a factory: importable and callable, not called (an object given
    already built is not called at all)."""
    if isinstance(path, Built):
        return
    factory = import_component(path, label, limits.build_seconds)
    if not callable(factory):
        raise RagauditError(f"{label}: {path} is {type(factory).__name__}, not a callable factory")


def _not_asked(question: str) -> PipelineAnswer:
    raise AssertionError("a pipeline checked for a dry run was asked a question")
