"""The `pipeline:`, `oracle:` and `prompt:` entries of a stack file, validated strictly.

`pipeline:` stands in for the splitter, retriever and generator: the user's whole pipeline,
a black box that answers a question and says which contexts it used. It is one of
- `factory: package.module:make`, called once with `documents=` (and `args`), returning a
  llama-index query engine, a LangChain Runnable or a callable question -> {answer, contexts};
- `http:` a service: url, method, headers whose values are NAMES of environment variables,
  a body template holding `{{question}}`, a response mapping (JSONPath or JMESPath, compiled
  here), a timeout; with `ingest:` saying how the service gets the corpus (an endpoint that
  takes JSON batches, a command over an exported folder, or `none`: asserted by the user).
`oracle:` (optional) answers a question from given contexts, so the generator ceiling can be
measured; `prompt:` sets a component stack's prompt (template, system message, chunk labels).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from ragaudit.backends.endpoint import endpoint_problem
from ragaudit.targets.response_paths import compile_path

FACTORY = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"
QUESTION = "{{question}}"
CONTEXTS = "{{contexts}}"


def _factory_form(value: str) -> str:
    if not FACTORY.match(value):
        raise ValueError("give the factory as package.module:function")
    return value


def _endpoint(value: str) -> str:
    problem = endpoint_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


FactoryPath = Annotated[str, AfterValidator(_factory_form)]
"""A component or factory named by import path, ``package.module:function``."""
Endpoint = Annotated[str, AfterValidator(_endpoint)]
"""An http(s) address a user's file names (backends.endpoint.endpoint_problem says why not)."""


def _path(value: str | None) -> str | None:
    if value is not None:
        compile_path(value)  # ValueError names the language and the parser's reason
    return value


class _Header(BaseModel):
    model_config = ConfigDict(extra="forbid")
    env: str = Field(pattern=ENV_NAME)
    """The NAME of the environment variable holding the value (never the value)."""
    prefix: str = ""
    """Put before the value (``Bearer ``)."""


class HttpEntry(BaseModel):
    """A service asked over HTTP (the pipeline's or the oracle's)."""

    model_config = ConfigDict(extra="forbid")
    url: str
    method: Literal["POST", "GET", "PUT"] = "POST"
    headers: dict[str, str | _Header] = Field(default_factory=dict)
    """Header name -> the NAME of the environment variable holding its value."""
    body: str | dict | list | None = None
    """The request body: text, or JSON whose strings may hold the placeholders."""
    answer: str
    """Path of the answer text in the reply."""
    contexts: str | None = None
    """Path of the list of contexts (each a text, or an object read by the paths below)."""
    context_text: str | None = None
    context_id: str | None = None
    context_score: str | None = None
    citations: str | None = None
    """Path of the context ids or 1-based positions the answer cites, if it says."""
    timeout: float = Field(default=60.0, gt=0, le=3600)

    @field_validator("url")
    @classmethod
    def _an_endpoint(cls, value: str) -> str:
        problem = endpoint_problem(value.replace(QUESTION, "q"))
        if problem is not None:
            raise ValueError(problem)
        return value

    @field_validator("headers")
    @classmethod
    def _env_names(cls, value: dict) -> dict:
        for name, header in value.items():
            env = header if isinstance(header, str) else header.env
            if not re.match(ENV_NAME, env):
                raise ValueError(
                    f"header {name!r}: give the NAME of an environment variable, not a value"
                )
        return value

    @field_validator("answer", "contexts", "context_text", "context_id", "context_score")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        return _path(value)

    @field_validator("citations")
    @classmethod
    def _citations_compile(cls, value: str | None) -> str | None:
        return _path(value)

    def templates(self) -> str:
        """The url and body as text: what the placeholders are looked for in."""
        return f"{self.url}\n{self.body!r}"


class IngestEntry(BaseModel):
    """How an HTTP service gets the corpus: an endpoint or a command (exactly one)."""

    model_config = ConfigDict(extra="forbid")
    url: Endpoint | None = None
    """Receives the documents as JSON batches: ``{"documents": [{id, text, metadata}]}``."""
    batch: int = Field(default=64, ge=1, le=100_000)
    command: list[str] | None = Field(default=None, min_length=1)
    """Run with the exported folder's path in place of ``{folder}`` (or appended)."""
    format: Literal["jsonl", "md", "txt"] = "jsonl"
    timeout: float = Field(default=600.0, gt=0, le=86_400)

    @model_validator(mode="after")
    def _one(self) -> IngestEntry:
        if (self.url is None) == (self.command is None):
            raise ValueError("give exactly one of url and command (or ingest: none)")
        return self


class PipelineEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    factory: FactoryPath | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    http: HttpEntry | None = None
    ingest: IngestEntry | Literal["none"] | None = None
    answer_key: str = Field(default="answer", min_length=1)
    """A LangChain Runnable's output key holding the answer (create_retrieval_chain's)."""
    context_key: str = Field(default="context", min_length=1)
    """Its output key holding the contexts (a list of Documents)."""
    input_key: str | None = "input"
    """The key a LangChain Runnable is invoked with ({input_key: question}); null: the
    question itself."""
    version: str | int | None = None
    """Yours to bump: part of the pipeline's identity in the call cache."""

    @model_validator(mode="after")
    def _one_form(self) -> PipelineEntry:
        if (self.factory is None) == (self.http is None):
            raise ValueError("give exactly one of factory and http")
        if self.http is not None:
            if QUESTION not in self.http.templates():
                raise ValueError(f"http: the url or body must hold {QUESTION}")
            if self.ingest is None:
                raise ValueError(
                    "ingest: say how the service gets the corpus (url, command, or none when "
                    "it already holds the exported corpus)"
                )
            if self.args:
                raise ValueError("args: only for a factory")
        elif self.ingest is not None:
            raise ValueError("ingest: only for an http pipeline (a factory gets documents=)")
        return self


class OracleEntry(BaseModel):
    """Answers a question from given contexts: a factory `make(**args)` returning a callable
    (question, contexts) -> answer, or a service whose template holds {{contexts}}."""

    model_config = ConfigDict(extra="forbid")
    factory: FactoryPath | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    http: HttpEntry | None = None
    version: str | int | None = None

    @model_validator(mode="after")
    def _one_form(self) -> OracleEntry:
        if (self.factory is None) == (self.http is None):
            raise ValueError("give exactly one of factory and http")
        if self.http is not None:
            for placeholder in (QUESTION, CONTEXTS):
                if placeholder not in self.http.templates():
                    raise ValueError(f"http: the url or body must hold {placeholder}")
        return self


class PromptEntry(BaseModel):
    """A component stack's prompt (default: ragaudit's, runner.generate)."""

    model_config = ConfigDict(extra="forbid")
    template: str | None = None
    """The user message, holding {context} and {question}."""
    system: str | None = None
    """The system message (None: ragaudit's; "" for none)."""
    chunk_label: str = Field(default="[c{n}]")
    """How each chunk is numbered in the context and cited: {n} is its 1-based rank."""
    separator: str = "\n\n"

    @field_validator("template")
    @classmethod
    def _placeholders(cls, value: str | None) -> str | None:
        if value is None:
            return value
        for name in ("{context}", "{question}"):
            if name not in value:
                raise ValueError(f"the template must hold {name}")
        try:
            value.format(context="", question="")
        except (KeyError, IndexError, ValueError) as error:
            raise ValueError(
                f"only {{context}} and {{question}} may be in braces (double others): {error}"
            ) from None
        return value

    @field_validator("chunk_label")
    @classmethod
    def _numbered(cls, value: str) -> str:
        if "{n}" not in value:
            raise ValueError("the chunk label must hold {n}")
        try:
            value.format(n=1)
        except (KeyError, IndexError, ValueError) as error:
            raise ValueError(f"only {{n}} may be in braces: {error}") from None
        return value


def entry_json(entry: BaseModel | None) -> dict | None:
    """An entry as the results file records it (header values are variable names)."""
    return entry.model_dump(mode="json") if entry is not None else None
