"""The configuration matrix (A … M) as frozen data, its single-variable comparisons, and
user configs loaded strictly from YAML."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

from ragaudit.errors import RagauditError
from ragaudit.registry import unknown_name_message
from ragaudit.stack.chunking import Chunking, OverlapRule, Splitter
from ragaudit.stack.settings import (
    MIN_CONFIG_CHUNK_SIZE,
    USER_CONFIG_REQUIRED,
    k_too_deep,
    retrieval_settings_model,
)

# Reciprocal-rank fusion constant (Cormack et al. 2009); recorded in M's description.
RRF_K = 60


@dataclass(frozen=True)
class StackConfig:
    """One cell column of the matrix: how the stack chunks, how many chunks it fetches,
    and whether BM25 is fused with the dense ranking."""

    name: str
    """Column label (``A``, ``A_prime``, …); unique within a run."""
    splitter: Splitter
    """``fixed`` cuts every `chunk_size` characters; ``recursive`` falls through
    paragraph, line, sentence and word separators before cutting characters."""
    chunk_size: int
    """Maximum chunk length in characters."""
    overlap: int
    """Characters a chunk repeats from the end of the one before it."""
    k: int
    """How many chunks reach the model."""
    hybrid: bool = False
    """True: BM25 (rank-bm25) fused with the dense ranking by reciprocal rank."""
    description: str = ""
    """One line a person reads in the report and the inspector."""
    overlap_rule: OverlapRule = "carry_tail"
    """How the overlap is carried: ``carry_tail`` (the originating study's, the previous
    chunk's tail prefixed) or ``langchain`` (LangChain's merge); see ``ragaudit.stack.chunking``."""
    probes: tuple[str, ...] | None = None
    """The probes this config runs; None means every probe. A config outside the matrix
    runs only the probes it was added for (T4000: table_split)."""

    def runs(self, probe: str) -> bool:
        """Whether this config retrieves (and so may generate) for `probe`."""
        return self.probes is None or probe in self.probes

    @property
    def chunking(self) -> Chunking:
        """The chunking this config uses."""
        return Chunking(self.splitter, self.chunk_size, self.overlap, self.overlap_rule)

    @property
    def chunking_name(self) -> str:
        """The chunking's name (``recursive-1000-200-carry_tail``); configs sharing it share
        an index."""
        return self.chunking.name

    def to_json(self) -> dict:
        """The config as the results file's `configs` entry."""
        return asdict(self)


_FUSION = f"BM25 fused with dense by reciprocal-rank fusion (1/({RRF_K}+rank), summed)"

A = StackConfig("A", "fixed", 1000, 0, 3, description="fixed 1000/0, k=3: the tutorial default")
A_PRIME = StackConfig("A_prime", "recursive", 1000, 0, 3, description="recursive 1000/0, k=3")
# B, C, D and M carry the previous chunk's tail forward, as the originating study's does.
B = StackConfig("B", "recursive", 1000, 200, 3, description="recursive 1000/200 carry-tail, k=3")
C = StackConfig("C", "recursive", 1000, 200, 8, description="recursive 1000/200 carry-tail, k=8")
C_PRIME = StackConfig("C_prime", "recursive", 1000, 0, 8, description="recursive 1000/0, k=8")
D = StackConfig("D", "recursive", 512, 128, 8, description="recursive 512/128 carry-tail, k=8")
M = StackConfig(
    "M",
    "recursive",
    1000,
    200,
    8,
    hybrid=True,
    description=f"C (recursive 1000/200 carry-tail) plus hybrid: {_FUSION}, k=8",
)

MATRIX: tuple[StackConfig, ...] = (A, A_PRIME, B, C, C_PRIME, D, M)
"""The seven configurations of the originating study (docs/configs.md), in its column order."""

MATRIX_CHUNKINGS: tuple[Chunking, ...] = tuple(dict.fromkeys(c.chunking for c in MATRIX))
"""The distinct chunkings the matrix uses, in the order its configs first use them."""

TABLE_SPLIT_WIDE = Chunking("recursive", 4000, 0)
"""The chunking table_split is also measured at, outside the matrix: wide enough that each
table's header row and answer row can share one chunk (the originating
study's 4000-character check)."""

# table_split at 4000 through generation, outside the matrix: retrieval over the whole
# corpus cut at TABLE_SPLIT_WIDE (never a sub-corpus, which would inflate retrieval), then
# the answer. Not one of the matrix's columns' comparisons.
T4000 = StackConfig(
    "T4000",
    TABLE_SPLIT_WIDE.splitter,
    TABLE_SPLIT_WIDE.size,
    TABLE_SPLIT_WIDE.overlap,
    3,
    description="recursive 4000/0, k=3: table_split at 4000 characters, outside the matrix "
    "(the originating study's check)",
    probes=("table_split",),
)

OUTSIDE_MATRIX: tuple[StackConfig, ...] = (T4000,)
"""Configs both presets run beside the matrix, each on its own probes only."""


@dataclass(frozen=True)
class Comparison:
    """Two configs that differ in one variable (or, for C vs D, in two named together)."""

    name: str
    """``A->A_prime``."""
    from_config: str
    """The config before the change."""
    to_config: str
    """The config after the change."""
    variable: str
    """What changed: splitter, overlap, k, hybrid, size+overlap."""


COMPARISONS: tuple[Comparison, ...] = (
    Comparison("A->A_prime", "A", "A_prime", "splitter"),
    Comparison("A_prime->B", "A_prime", "B", "overlap"),
    Comparison("A_prime->C_prime", "A_prime", "C_prime", "k"),
    Comparison("C_prime->C", "C_prime", "C", "overlap at k=8"),
    Comparison("C->M", "C", "M", "hybrid"),
    Comparison("C->D", "C", "D", "size+overlap"),
)
"""The single-variable comparisons the originating study makes, as data."""


def config_by_name(configs: tuple[StackConfig, ...] | list[StackConfig], name: str) -> StackConfig:
    """The config called `name`, or a RagauditError listing the valid names."""
    for config in configs:
        if config.name == name:
            return config
    raise RagauditError(unknown_name_message("config", name, [c.name for c in configs]))


WHAT = "configs file"
_NAME = re.compile(r"^[A-Za-z0-9_]+$")


@cache
def _user_config_model():
    """A user config: the one retrieval settings model (stack.settings) with a name and a
    description, strict types, and what a matrix column needs besides."""
    from pydantic import ConfigDict, Field, field_validator, model_validator

    class UserConfig(retrieval_settings_model()):
        model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
        name: str = Field(min_length=1, max_length=40)
        description: str = ""

        @field_validator("name")
        @classmethod
        def _a_column_label(cls, value: str) -> str:
            if not _NAME.match(value):
                raise ValueError("use letters, digits and '_' only")
            return value

        @field_validator("k")
        @classmethod
        def _within_the_pool(cls, value: int) -> int:
            too_deep = k_too_deep(value, named="stack.settings.POOL_DEPTH")
            if too_deep:
                raise ValueError(too_deep)
            return value

        @model_validator(mode="before")
        @classmethod
        def _named_in_full(cls, data: object) -> object:
            missing = [f for f in USER_CONFIG_REQUIRED if isinstance(data, dict) and f not in data]
            if missing:
                raise ValueError(f"{missing[0]}: Field required")
            return data

        @model_validator(mode="after")
        def _a_matrix_column(self) -> UserConfig:
            if self.splitter == "document":
                raise ValueError("splitter: 'document' is for audits; use fixed or recursive")
            if self.chunk_size < MIN_CONFIG_CHUNK_SIZE:
                raise ValueError(
                    f"chunk_size: Input should be greater than or equal to {MIN_CONFIG_CHUNK_SIZE}"
                )
            return self

    return UserConfig


def load_user_configs(path: str | Path) -> list[StackConfig]:
    """Configs from a YAML file: a list (or ``configs:`` list) of mappings with the
    StackConfig fields. Read like every other input (fileio.lines): unknown keys, k < 1,
    k > POOL_DEPTH, overlap >= chunk_size and a name given twice are refused with one line
    naming the file, the line and the field. Each entry is validated on its own, so a
    check across fields (overlap against chunk_size) names the line of its field."""
    from ragaudit.fileio.lines import dotted, line_of, load_with_lines, validate

    path = Path(path)
    data, lines = load_with_lines(path, WHAT)
    where: tuple[str, ...] = ()
    if isinstance(data, dict) and set(data) == {"configs"}:
        data, where = data["configs"], ("configs",)
    if not isinstance(data, list) or not data:
        raise RagauditError(
            f"{WHAT} {path}: expected a non-empty list of configs (or 'configs:' list)"
        )
    model = _user_config_model()
    configs: list[StackConfig] = []
    first: dict[str, int] = {}
    for position, entry in enumerate(data):
        at = (*where, position)
        if not isinstance(entry, dict):
            line = line_of(at, lines)
            raise RagauditError(
                f"{WHAT} {path}: line {line}: field {dotted(at)}: expected a mapping"
            )
        own_lines = {loc[len(at) :]: n for loc, n in lines.items() if loc[: len(at)] == at}
        config = StackConfig(**validate(model, entry, path, WHAT, own_lines).model_dump())
        if config.name in first:
            raise RagauditError(
                f"{WHAT} {path}: line {line_of((*at, 'name'), lines)}: field name: "
                f"{config.name!r} is defined twice (first at line {first[config.name]})"
            )
        first[config.name] = line_of((*at, "name"), lines)
        configs.append(config)
    return configs


def merge_configs(base: tuple[StackConfig, ...], extra: list[StackConfig]) -> list[StackConfig]:
    """The matrix plus user configs; a user config may not reuse a matrix name."""
    taken = {c.name for c in base}
    for config in extra:
        if config.name in taken:
            raise RagauditError(
                f"config {config.name}: field 'name': clashes with a built-in config"
            )
    return [*base, *extra]
