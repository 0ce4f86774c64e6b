"""The retrieval settings, declared once: splitter, chunk size, overlap, overlap rule, k and
hybrid fusion. A user config (stack.configs), an audit's settings file (auditing.settings) and
a stack file (targets.stackfile) build on this one pydantic model; the built-in configs A…M
are frozen dataclasses (stack.configs.StackConfig, no pydantic on the hot path) with the
same fields, and a test validates every one of them through it.

The defaults are an audit's (a settings file may leave any field out). Where a consumer
differs, it says so once, here:
- a user config must name its splitter, chunk_size, overlap and k (USER_CONFIG_REQUIRED),
  and may not use the `document` splitter, which only the audit knows;
- a stack file (targets.stackfile_schema) has no chunk fields (its splitter is the user's own
  component) and takes this model's `k` and `hybrid` fields (`retrieval_field`), except
  that its `k` has no default: it is required unless a pipeline is given (the contexts the
  pipeline returns stand in for it).

pydantic is imported inside `retrieval_settings_model`, so importing this module is cheap.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ragaudit.errors import RagauditError
from ragaudit.stack.chunking import check_overlap_rule

POOL_DEPTH = 50
"""How deep each ranking is kept: top-k for any k ≤ this is a slice of it, and ranks of
gold/trap chunks beyond k are still known (a rank > k means ranked but not retrieved).
So it is also the largest k a config may have: deeper ranks are not kept."""

RETRIEVAL_FIELDS = ("splitter", "chunk_size", "overlap", "overlap_rule", "k", "hybrid")
"""The fields every retrieval setting carries, in the order files list them."""

USER_CONFIG_REQUIRED = ("splitter", "chunk_size", "overlap", "k")
"""What a user config (`--configs FILE`) must name: it is a column of the matrix, so
nothing is left to an audit's defaults."""

MIN_CONFIG_CHUNK_SIZE = 16
"""The smallest chunk a matrix column cuts: below it no planted answer sentence fits."""


def k_too_deep(k: int, named: str = "") -> str | None:
    """Why `k` cannot be used (deeper than the pool), or None; `named` says where the
    limit is declared, for a reader who wants to look it up."""
    if k > POOL_DEPTH:
        depth = f"the retrieval pool depth{f' ({named})' if named else ''}"
        return f"{k} is more than {POOL_DEPTH}, {depth}: deeper ranks are not kept"
    return None


@cache
def retrieval_settings_model() -> type:
    """The pydantic model of the retrieval settings (built once, on first use)."""
    from typing import Literal

    from pydantic import BaseModel, ConfigDict, Field, model_validator

    class RetrievalSettings(BaseModel):
        """How a stack cuts its documents and how many chunks it gives the model."""

        model_config = ConfigDict(extra="forbid", frozen=True)

        splitter: Literal["fixed", "recursive", "document"] = "recursive"
        """``fixed`` cuts every `chunk_size` characters; ``recursive`` falls through
        paragraph, line, sentence and word separators; ``document`` (audits only) keeps
        each document whole as one chunk."""
        chunk_size: int = Field(default=1000, ge=1)
        """Maximum chunk length in characters."""
        overlap: int = Field(default=0, ge=0)
        """Characters a chunk repeats from the end of the one before it."""
        overlap_rule: Literal["carry_tail", "langchain"] = "carry_tail"
        """How a recursive overlap is carried (stack.chunking): the previous chunk's tail
        prefixed (``carry_tail``) or LangChain's merge (``langchain``)."""
        k: int = Field(default=6, ge=1)
        """How many chunks reach the model."""
        hybrid: bool = False
        """True: BM25 (rank-bm25) fused with the dense ranking by reciprocal rank."""

        @model_validator(mode="after")
        def _consistent_chunking(self) -> Any:
            if self.splitter != "document":
                if self.overlap >= self.chunk_size:
                    raise ValueError(
                        f"overlap: {self.overlap} must be smaller than chunk_size {self.chunk_size}"
                    )
                try:
                    check_overlap_rule(self.splitter, self.overlap_rule)
                except RagauditError as error:
                    raise ValueError(f"overlap_rule: {error}") from None
            return self

    return RetrievalSettings


def retrieval_field(name: str, **changes: Any) -> Any:
    """A copy of one field of the retrieval settings model (its type's constraints and its
    default), for a model that takes only some of the fields; `changes` (a default) are
    set on the copy, and the model taking them documents each one."""
    from pydantic.fields import FieldInfo

    return FieldInfo.merge_field_infos(retrieval_settings_model().model_fields[name], **changes)
