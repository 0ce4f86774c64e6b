"""The pydantic models a stack file is validated with (targets.stackfile reads the file).

Imported only when a stack file is loaded, so pydantic stays out of the import of
`ragaudit run` (targets.stackfile is on its path); `k` and `hybrid` are the retrieval
settings' own fields (stack.settings), built once on first use.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_validator

from ragaudit.stack.configs import MATRIX, OUTSIDE_MATRIX
from ragaudit.stack.settings import k_too_deep, retrieval_field
from ragaudit.targets.bounded import UserCodeLimits
from ragaudit.targets.pipeline_schema import (
    ENV_NAME,
    Endpoint,
    FactoryPath,
    OracleEntry,
    PipelineEntry,
    PromptEntry,
)

BUILT_IN_NAMES = tuple(c.name for c in (*MATRIX, *OUTSIDE_MATRIX))
_NAME = re.compile(r"^[A-Za-z0-9_]+$")


class _Component(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    class_: str = Field(alias="class", min_length=1)
    """``llama_index.core.node_parser.SentenceSplitter`` or ``pkg.mod:name``."""
    args: dict[str, Any] = Field(default_factory=dict)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")
    spec: str = Field(min_length=1)
    base_url: Endpoint | None = None
    """An OpenAI-compatible server's /v1 address (openai: specs only)."""
    api_key_env: str | None = Field(default=None, pattern=ENV_NAME)
    """The NAME of the environment variable that holds the API key (never the key)."""


def _model_entry() -> type[BaseModel]:
    """An embedder or generator entry: its spec, the shipped backends' options (typed in
    _Model) and a plugin backend's, each a string (backends.specs.server_options checks
    which spec takes which)."""
    from ragaudit.backends.specs import option_keys

    plugins = {key: (str | None, None) for key in option_keys() if key not in _Model.model_fields}
    return create_model("_Model", __base__=_Model, **plugins) if plugins else _Model


class _Limits(BaseModel):
    """stack.bounded.UserCodeLimits, each field optional (its default)."""

    model_config = ConfigDict(extra="forbid")
    build_seconds: float = Field(default=UserCodeLimits.build_seconds, gt=0, le=86_400)
    split_seconds: float = Field(default=UserCodeLimits.split_seconds, gt=0, le=86_400)
    call_seconds: float = Field(default=UserCodeLimits.call_seconds, gt=0, le=86_400)
    max_results: int = Field(default=UserCodeLimits.max_results, ge=1, le=10**7)
    max_chunks_per_document: int = Field(
        default=UserCodeLimits.max_chunks_per_document, ge=1, le=10**7
    )
    max_chunk_text_ratio: float = Field(default=UserCodeLimits.max_chunk_text_ratio, gt=0, le=10**4)
    max_contexts: int = Field(default=UserCodeLimits.max_contexts, ge=1, le=10**7)
    max_context_chars: int = Field(default=UserCodeLimits.max_context_chars, ge=1, le=10**9)
    max_answer_chars: int = Field(default=UserCodeLimits.max_answer_chars, ge=1, le=10**9)


class _Retriever(BaseModel):
    model_config = ConfigDict(extra="forbid")
    factory: FactoryPath
    args: dict[str, Any] = Field(default_factory=dict)


def _whole_components(stack: Any) -> Any:
    """A component stack names what ragaudit needs to rank with it (and no oracle)."""
    if stack.oracle is not None:
        raise ValueError("oracle: only with a pipeline (a stack's oracle is ragaudit's)")
    if stack.splitter is None:
        raise ValueError("splitter: needed unless a pipeline is given")
    if stack.k is None:
        raise ValueError("k: needed unless a pipeline is given")
    if stack.hybrid and stack.retriever is not None:
        raise ValueError(
            "hybrid: our BM25 fusion runs over our own index; with a retriever, "
            "fuse inside your retriever instead"
        )
    if stack.embedder is None and stack.retriever is None:
        raise ValueError("embedder: needed unless a retriever is given")
    return stack


def _only_a_pipeline(stack: Any) -> Any:
    """A pipeline stands in for the components: none of them beside it."""
    given = [key for key in ("splitter", "embedder", "generator", "retriever", "prompt")
             if getattr(stack, key) is not None]  # fmt: skip
    if given or stack.hybrid:
        extra = given[0] if given else "hybrid"
        raise ValueError(
            f"{extra}: a pipeline stands in for the splitter, retriever, generator "
            "and prompt; leave it out"
        )
    return stack


@cache
def stack_file_model() -> type[BaseModel]:
    """The model of a whole stack file (built once, on first use)."""
    entry = _model_entry()

    class _StackFile(BaseModel):
        """A stack file. `k` and `hybrid` are the retrieval settings' fields
        (stack.settings), with one documented difference: `k` has no default (None here)
        and is required unless a pipeline is given, whose contexts stand in for it. The
        chunk fields are not taken: the splitter is the user's own component."""

        model_config = ConfigDict(extra="forbid")
        name: str = Field(min_length=1, max_length=40)
        description: str = ""
        splitter: _Component | None = None
        embedder: str | entry | None = None
        generator: str | entry | None = None
        k: int | None = retrieval_field("k", default=None)
        hybrid: bool = retrieval_field("hybrid")
        retriever: _Retriever | None = None
        probes: list[str] | None = Field(default=None, min_length=1)
        limits: _Limits = Field(default_factory=_Limits)
        pipeline: PipelineEntry | None = None
        """The user's whole pipeline in place of splitter, retriever and generator."""
        oracle: OracleEntry | None = None
        prompt: PromptEntry | None = None

        @field_validator("name")
        @classmethod
        def _name_form(cls, value: str) -> str:
            if not _NAME.match(value):
                raise ValueError("use letters, digits and '_' only")
            if value in BUILT_IN_NAMES:
                names = ", ".join(BUILT_IN_NAMES)
                raise ValueError(f"{value!r} clashes with a built-in config ({names})")
            return value

        @field_validator("k")
        @classmethod
        def _k_within_pool(cls, value: int | None) -> int | None:
            too_deep = k_too_deep(value) if value is not None else None
            if too_deep:
                raise ValueError(too_deep)
            return value

        @model_validator(mode="after")
        def _consistent(self) -> _StackFile:
            if self.pipeline is not None:
                return _only_a_pipeline(self)
            return _whole_components(self)

    return _StackFile
