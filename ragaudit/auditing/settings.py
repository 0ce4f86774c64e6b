"""The retrieval settings file of an audit: the retrieval settings every stack shares
(stack.settings: splitter, chunk size, overlap, k, hybrid) extended with the constants
production retrieval really applies (candidate pool, per-source cap, a floor of reserved
slots, the backfill range the floor may draw from, a score threshold) and the subsection
splitter's knobs. Validated strictly: a misspelt key or an impossible value is an error
naming the file, line and field."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ragaudit.backends.specs import check_embedder_spec
from ragaudit.errors import RagauditError
from ragaudit.fileio.lines import load_with_lines, validate
from ragaudit.stack.chunking import chunking_name
from ragaudit.stack.settings import retrieval_settings_model

# "(1) ", "1. ", "1) " at the start of a line; group 1 is the subsection number.
DEFAULT_SUBSECTION_MARKER = r"^[ \t]*\(?(\d{1,3})[.)][ \t]+"


class Floor(BaseModel):
    """At least `slots` of the top-k are reserved for documents of `source_type`; when fewer
    are there, the best of that type within `backfill_range` replace the lowest others."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    source_type: str = Field(min_length=1)
    """The source type that owns the reserved slots (a JSONL `source_type` or a folder)."""
    slots: int = Field(ge=1)
    """How many of the top-k slots are reserved."""
    min_score: float | None = Field(default=None, ge=-1.0, le=1.0)
    """A backfilled document must reach this dense similarity (null: no gate)."""


class AuditSettings(retrieval_settings_model()):
    """One retrieval stack's constants, as production (or a test script) applies them: the
    retrieval settings every stack shares (stack.settings: splitter, chunk_size, overlap,
    overlap_rule, k, hybrid, with their defaults), then what production retrieval applies
    on top."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str | None = None
    """A label for reports; defaults to the file name."""
    description: str = ""
    embedder: str = "local:minilm"
    """Embedder spec (`local:minilm`, `local:e5-small`, `ollama:nomic-embed-text`, ...)."""
    candidate_pool: int = Field(default=48, ge=1)
    """How many nearest chunks retrieval fetches before the slot policy runs."""
    per_source_cap: int | None = Field(default=None, ge=1)
    """At most this many chunks of one source in the top-k (null: no cap)."""
    floor: Floor | None = None
    backfill_range: int | None = Field(default=None, ge=1)
    """The floor may only draw from the first N candidates (null: the whole pool)."""
    min_score: float | None = Field(default=None, ge=-1.0, le=1.0)
    """Drop candidates whose dense cosine similarity is below this (null: keep all)."""
    split_subsections: bool = False
    """Split qualifying long documents into lead-in + one subsection per chunk."""
    subsection_marker: str = DEFAULT_SUBSECTION_MARKER
    """Regex (multiline) for a subsection marker; group 1 must be its number."""
    split_max_lead_in: int = Field(default=300, ge=0)
    split_min_subsections: int = Field(default=3, ge=1)
    split_min_chars: int = Field(default=500, ge=0)

    @field_validator("embedder")
    @classmethod
    def _known_embedder(cls, value: str) -> str:
        try:
            check_embedder_spec(value)  # a typo fails at load, not once the audit embeds
        except RagauditError as error:
            raise ValueError(str(error)) from None
        return value

    @field_validator("subsection_marker")
    @classmethod
    def _marker_compiles(cls, value: str) -> str:
        try:
            pattern = re.compile(value, re.MULTILINE)
        except re.error as error:
            raise ValueError(f"not a valid regular expression ({error})") from error
        if pattern.groups < 1:
            raise ValueError("needs a capture group for the subsection number")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> AuditSettings:
        if self.candidate_pool < self.k:
            raise ValueError(f"candidate_pool: {self.candidate_pool} is smaller than k {self.k}")
        if self.backfill_range is not None and self.backfill_range > self.candidate_pool:
            raise ValueError(
                f"backfill_range: {self.backfill_range} reaches past candidate_pool "
                f"{self.candidate_pool}"
            )
        if self.floor is not None and self.floor.slots > self.k:
            raise ValueError(f"floor.slots: {self.floor.slots} is more than k {self.k}")
        return self

    @property
    def effective_backfill_range(self) -> int:
        """The backfill range with null resolved to the whole candidate pool."""
        return self.backfill_range if self.backfill_range is not None else self.candidate_pool

    def marker_pattern(self) -> re.Pattern[str]:
        """The compiled subsection marker."""
        return re.compile(self.subsection_marker, re.MULTILINE)

    def chunking_name(self) -> str:
        """`recursive-1000-0`, `document`, with `+sub` when subsections are split."""
        base = (
            "document"
            if self.splitter == "document"
            else chunking_name(self.splitter, self.chunk_size, self.overlap, self.overlap_rule)
        )
        return base + ("+sub" if self.split_subsections else "")


def check_floor_source_type(
    settings: AuditSettings, source_types: set[str | None], path: Path | None
) -> None:
    """Refuse a floor whose source type no document of the corpus has: its slots could
    never be filled, and a typo (`statute` for `statutes`) would only show as unfilled
    slots in every case. The message names the source types the corpus does have."""
    if settings.floor is None or settings.floor.source_type in source_types:
        return
    named = sorted(t for t in source_types if t)
    have = (
        f"its source types are {', '.join(named)}"
        if named
        else "no document has one (a folder corpus takes it from the first folder, "
        "a JSONL corpus from each line's source_type)"
    )
    where = f"settings file {path}: " if path is not None else ""
    raise RagauditError(
        f"{where}field floor.source_type: {settings.floor.source_type!r} matches no "
        f"document of the corpus; {have}"
    )


def load_settings(path: Path) -> AuditSettings:
    """Read and validate a settings file (YAML or JSON); errors name file, line and field."""
    data, lines = load_with_lines(Path(path), "settings file")
    settings = validate(AuditSettings, data, Path(path), "settings file", lines)
    if settings.name is None:
        settings = settings.model_copy(update={"name": Path(path).stem})
    return settings
