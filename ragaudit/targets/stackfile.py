"""The stack file: the user's own stack named by import path, validated strictly.

A stack file (YAML or JSON) names a splitter (a llama-index node parser or a LangChain text
splitter, by class path with keyword arguments), an embedder and optionally a generator
(specs, `openai:<model>` with a `base_url` and the name of the environment variable holding
the API key), k, hybrid, and optionally a retriever factory `package.module:function` from
the user's own code. Unknown keys, k out of range, hybrid with a retriever and a name that
clashes with a built-in config are refused with one line naming the file, line and field.
`check_stack` then imports every component (and builds the splitter) before any model loads;
the stack file's folder is importable, so a factory may live in a module beside it.

The file's pydantic models (targets.stackfile_schema) and the line-keeping reader
(fileio.lines) are imported when a stack file is loaded, not with this module: `ragaudit
run` imports it on every start, stack or none.
"""

from __future__ import annotations

import hashlib
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragaudit.backends.catalogue import EMBEDDER, GENERATOR, OPENAI, Backend
from ragaudit.backends.endpoint import check_endpoint
from ragaudit.backends.specs import backend_of, option_keys, server_options
from ragaudit.errors import RagauditError
from ragaudit.targets.bounded import UserCodeLimits
from ragaudit.targets.components import build_component, import_component

if TYPE_CHECKING:
    from ragaudit.fileio.lines import Loc

WHAT = "stack file"


@dataclass(frozen=True)
class StackSpec:
    """One user stack as its file names it, every value checked."""

    name: str
    """The column label (``[A-Za-z0-9_]+``, not a built-in config's name)."""
    file: str
    """The stack file's path as given."""
    sha256: str
    """sha256 of the file's bytes (the results file records which stack ran)."""
    splitter: dict
    """``{"class": import path, "args": {...}}``."""
    embedder: dict | None
    """``{"spec", "base_url", "api_key_env"}``; None when the retriever embeds itself."""
    generator: dict | None
    """Same shape; None: the run's --generator."""
    k: int | None
    """How many chunks reach the model (1..POOL_DEPTH); None for a pipeline: the contexts
    it returns (at most k when given)."""
    hybrid: bool
    """Our BM25 fusion over their chunks (not with a retriever)."""
    retriever: dict | None
    """``{"factory": "pkg.mod:fn", "args": {...}}`` or None (our dense/hybrid core)."""
    probes: tuple[str, ...] | None
    """The probes this stack runs; None means every probe."""
    description: str = ""
    limits: UserCodeLimits = UserCodeLimits()
    """How long and how much its splitter, factory and retriever may take."""
    pipeline: dict | None = None
    """The `pipeline:` entry (stack.pipeline_schema.PipelineEntry as JSON), or None."""
    oracle: dict | None = None
    """The `oracle:` entry, or None (a pipeline's ceiling is then not measured)."""
    prompt: dict | None = None
    """The `prompt:` entry, or None (ragaudit's prompt)."""
    lines: dict = field(default_factory=dict, compare=False, repr=False)
    """field path -> its line in the file (for errors found after loading)."""

    @property
    def chunking_name(self) -> str:
        """``stack-<name>``: the chunking name of this stack's chunks and records."""
        return f"stack-{self.name}"

    @property
    def embedder_label(self) -> str:
        """What the records' `embedder` says: the embedder's spec, or
        ``retriever:<factory>`` when the stack's own retriever ranks without one."""
        if self.embedder is not None:
            return self.embedder["spec"]
        if self.pipeline is not None:
            return f"pipeline:{self.name}"
        return f"retriever:{self.retriever['factory']}"

    def runs(self, probe: str) -> bool:
        """Whether this stack retrieves (and so may generate) for `probe`."""
        return self.probes is None or probe in self.probes

    def where(self, *loc: str | int) -> str:
        """``stack file <file>: line N: field a.b``: the prefix of an error about that field."""
        from ragaudit.fileio.lines import dotted, line_of

        line = line_of(tuple(loc), self.lines)
        at = f"line {line}: " if line is not None else ""
        return f"{WHAT} {self.file}: {at}field {dotted(tuple(loc))}"

    def to_config_json(self) -> dict:
        """The results file's `configs` entry for this stack (contract §6)."""
        return {
            "name": self.name,
            "kind": "stack",
            "chunking": self.chunking_name,
            "k": self.k,
            "hybrid": self.hybrid,
            "probes": list(self.probes) if self.probes is not None else None,
            "description": self.description or self.default_description(),
            "stack": {
                "file": self.file,
                "sha256": self.sha256,
                "splitter": self.splitter,
                "embedder": self.embedder,
                "generator": self.generator,
                "retriever": self.retriever,
                "pipeline": self.pipeline,
                "oracle": self.oracle,
                "prompt": self.prompt,
            },
        }

    def default_description(self) -> str:
        """One line naming the components, for a file without a description."""
        if self.pipeline is not None:
            form = self.pipeline["factory"] or self.pipeline["http"]["url"]
            return f"your pipeline: {form}"
        ranker = (
            f"retriever {self.retriever['factory']}"
            if self.retriever
            else f"{self.embedder_label}{' + BM25 fusion' if self.hybrid else ''}"
        )
        return f"your stack: {self.splitter['class']}, {ranker}, k={self.k}"


def _model(value: Any) -> dict | None:
    """An embedder or generator entry (a spec, or stackfile_schema._Model) as a dict."""
    if value is None:
        return None
    if isinstance(value, str):
        return {"spec": value, "base_url": None, "api_key_env": None}
    return value.model_dump()


def load_stack(path: str | Path) -> StackSpec:
    """Read and validate one stack file; a bad value is one line naming file, line and field.
    Specs are checked here too (nothing is imported or loaded: see `check_stack`)."""
    from ragaudit.fileio.lines import load_with_lines

    path = Path(path)
    raw = path.read_bytes() if path.is_file() else None
    data, lines = load_with_lines(path, WHAT)
    stack = stack_from_data(data, path, lines, hashlib.sha256(raw or b"").hexdigest())
    _importable(path.parent)
    return stack


def stack_from_data(data: Any, file: Path, lines: dict, sha256: str) -> StackSpec:
    """A stack file's parsed content (or the same mapping given in Python, `file` naming
    where it came from) validated into a StackSpec, its specs checked."""
    from ragaudit.fileio.lines import validate
    from ragaudit.targets.pipeline_schema import entry_json
    from ragaudit.targets.stackfile_schema import stack_file_model

    parsed = validate(stack_file_model(), data, file, WHAT, lines)
    stack = StackSpec(
        name=parsed.name,
        file=str(file),
        sha256=sha256,
        splitter=(
            {"class": parsed.splitter.class_, "args": dict(parsed.splitter.args)}
            if parsed.splitter is not None
            else None
        ),
        embedder=_model(parsed.embedder),
        generator=_model(parsed.generator),
        k=parsed.k,
        hybrid=parsed.hybrid,
        retriever=parsed.retriever.model_dump() if parsed.retriever else None,
        probes=tuple(parsed.probes) if parsed.probes is not None else None,
        description=parsed.description,
        limits=UserCodeLimits(**parsed.limits.model_dump()),
        pipeline=entry_json(parsed.pipeline),
        oracle=entry_json(parsed.oracle),
        prompt=entry_json(parsed.prompt),
        lines=lines,
    )
    _check_specs(stack)
    return stack


def _importable(folder: Path) -> None:
    """The stack file's folder joins the import path (at the end, so it shadows nothing):
    a factory in a module beside the file (`rerank_retriever:make_retriever`) imports as
    it would from the user's project."""
    where = str(folder.resolve())
    if where not in sys.path:
        sys.path.append(where)


def _check_specs(stack: StackSpec) -> None:
    for key in (EMBEDDER, GENERATOR):  # the file's keys are the catalogue's kinds
        model = getattr(stack, key)
        if model is None:
            continue
        loc: Loc = (key, "spec") if (key, "spec") in stack.lines else (key,)
        try:
            backend = backend_of(model["spec"], key)
        except RagauditError as error:
            raise RagauditError(f"{stack.where(*loc)}: {error}") from None
        keys = option_keys()  # every backend's, a plugin's too
        try:
            server_options(model["spec"], {k: model.get(k) for k in keys})
        except RagauditError as error:
            named = next((k for k in keys if model.get(k) is not None), "spec")
            raise RagauditError(f"{stack.where(key, named)}: {error}") from None
        _check_default_endpoint(stack, key, model, backend)


def _check_default_endpoint(stack: StackSpec, key: str, model: dict, backend: Backend) -> None:
    """An openai: spec without a base_url asks OPENAI_BASE_URL's server: that address is
    checked now too, before any model loads, naming the variable and the stack's field.
    `backend` is the one the catalogue found serving the spec."""
    if backend is not OPENAI or model.get("base_url") is not None:
        return
    given = os.environ.get("OPENAI_BASE_URL")
    if given:
        loc: Loc = (key, "spec") if (key, "spec") in stack.lines else (key,)
        try:
            check_endpoint(given, "OPENAI_BASE_URL")
        except RagauditError as error:
            raise RagauditError(f"{stack.where(*loc)}: {error}") from None


def check_stack(stack: StackSpec, probes: list[str], taken: list[str]) -> None:
    """Before any model loads: the stack's probes exist, its name is free among the run's
    configs and stacks (`taken`), its splitter imports and builds, its retriever factory
    imports. Each failure is one line naming the file, line and component."""
    for position, probe in enumerate(stack.probes or ()):
        if probe not in probes:
            raise RagauditError(
                f"{stack.where('probes', position)}: unknown probe {probe!r}; valid: "
                f"{', '.join(probes)}"
            )
    if stack.name in taken:
        raise RagauditError(
            f"{stack.where('name')}: {stack.name!r} clashes with another config or stack"
        )
    if stack.pipeline is not None:
        return  # a pipeline is imported and built by targets.pipeline, before any model loads
    build_splitter(stack)
    if stack.retriever is not None:
        import_component(
            stack.retriever["factory"],
            stack.where("retriever", "factory"),
            stack.limits.build_seconds,
        )


def build_splitter(stack: StackSpec) -> Any:
    """The stack's splitter object, built from its class path and args within
    limits.build_seconds (one line naming the file, line and class when it cannot be
    imported, its constructor raises or returns None, or it takes longer)."""
    return build_component(
        stack.splitter["class"],
        stack.splitter["args"],
        stack.where("splitter", "class"),
        stack.limits.build_seconds,
    )


def load_stacks(files: list[str | Path | StackSpec], taken: list[str], probes: list[str]) -> tuple:
    """Every --stack file loaded (or StackSpec given in Python) and checked (`check_stack`),
    in order; a name may be used once across the run's configs (`taken`) and its stacks."""
    stacks: list[StackSpec] = []
    for path in files:
        stack = path if isinstance(path, StackSpec) else load_stack(path)
        check_stack(stack, probes, [*taken, *(s.name for s in stacks)])
        stacks.append(stack)
    return tuple(stacks)
