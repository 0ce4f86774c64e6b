"""What an audit is given, and the one check of it that the audit and its dry run share:
settings, cases and their structure, corpus, the sources the cases name, the stack file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from ragaudit.auditing.cases import (
    Case,
    StructureReport,
    check_sources,
    check_structure,
    load_cases,
)
from ragaudit.auditing.corpus_io import as_corpus, path_of
from ragaudit.auditing.engine import DEFAULT_RANK_DEPTH
from ragaudit.auditing.settings import AuditSettings, check_floor_source_type, load_settings
from ragaudit.auditing.target import load_audit_stack, stack_settings
from ragaudit.backends.concurrency import DEFAULT_WORKERS
from ragaudit.documents import Corpus
from ragaudit.targets.stackfile import StackSpec


@dataclass
class AuditInputs:
    """What the command line names."""

    corpus: Any
    """A folder or JSONL path, or documents given in Python (corpus_io.as_corpus)."""
    cases: Any
    """A case file's path, intents given in Python, or None (dilution only)."""
    settings: Any
    dilution: bool = False
    rank_depth: int = DEFAULT_RANK_DEPTH
    workers: int = DEFAULT_WORKERS
    """Embedding batches in flight at once to a remote server (--workers)."""
    stack: Any = None
    """A stack file (--stack) or a StackSpec: its splitter, ranking and k instead of the
    settings' own."""
    progress: Any = None
    """runner.progress.Progress: each stage's progress and ETA (None: silent)."""


@dataclass(frozen=True)
class CheckedInputs:
    """An audit's inputs, read and checked. A fatal structure stops the reading there:
    `corpus` is then None and nothing past the cases was read."""

    settings: AuditSettings
    """The settings, with the stack's k and hybrid when a stack is given."""
    cases: list[Case]
    structure: StructureReport
    corpus: Corpus | None
    stack: StackSpec | None


def settings_of(source: Any) -> AuditSettings:
    """A settings file's path, AuditSettings given in Python, or None: the defaults."""
    if isinstance(source, AuditSettings):
        return source
    return load_settings(source) if source else AuditSettings(name="default")


def check_inputs(inputs: AuditInputs) -> CheckedInputs:
    """Read and check `inputs` as the audit needs them, before anything is embedded; bad
    input raises RagauditError (one line)."""
    settings = settings_of(inputs.settings)
    cases = load_cases(inputs.cases) if inputs.cases is not None else []
    structure = check_structure(cases)
    if structure.fatal:
        return CheckedInputs(settings, cases, structure, None, None)
    corpus = as_corpus(inputs.corpus)
    where = path_of(inputs.settings, "settings given in Python")
    check_floor_source_type(settings, {d.source_type for d in corpus.documents}, where)
    skipped = {str(PurePosixPath(s.path).with_suffix("")): s.reason for s in corpus.skipped}
    check_sources(cases, corpus.ids(), inputs.cases, skipped)
    stack = load_audit_stack(inputs.stack) if inputs.stack else None
    if stack is not None:
        settings = stack_settings(stack, settings, stack.where("k"))
    return CheckedInputs(settings, cases, structure, corpus, stack)
