"""The library's verbs: `mutate`, `audit`, `run`, `gate`, `compare` and `load`, exported
lazily from `ragaudit`. Each takes typed inputs (paths or Python objects), runs the same
machinery as its command, and returns a typed object; the commands are a shell over these.

Nothing is written to disk unless asked (`out=`); the call cache is used as always, in the
data folder (`data_dir=`, default ragaudit's own: see ragaudit.paths). Progress goes to
`progress`: True (default) draws the command's bar on stderr, False nothing, a callable
gets each snapshot (a dict: stage, done, total, ETA) instead. `limits`: the time and size
bounds (`ragaudit.Limits`, a stack file's `limits:`) of a factory or engine given in
Python; `Components` carries its own.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ragaudit.api.results import Results
from ragaudit.errors import RagauditError

ProgressArg = bool | Callable[[dict], None]


@contextlib.contextmanager
def data_folder(data_dir: str | Path | None) -> Iterator[None]:
    """ragaudit's data folder (the call cache, Chroma, the run lock) at `data_dir` for the
    `with` block; None leaves it where it is."""
    if data_dir is None:
        yield
        return
    before = os.environ.get("RAGAUDIT_HOME")
    os.environ["RAGAUDIT_HOME"] = str(Path(data_dir).resolve())
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("RAGAUDIT_HOME", None)
        else:
            os.environ["RAGAUDIT_HOME"] = before


def progress_of(progress: ProgressArg) -> Any:
    """The runner's Progress for a `progress` argument (module docstring)."""
    from ragaudit.runner.progress import Progress

    if callable(progress) and not isinstance(progress, bool):
        return Progress(stream=None, callback=progress, min_interval=0.0)  # every snapshot
    return Progress() if progress else Progress(stream=None)


def _say(line: str) -> None:
    print(f"ragaudit: {line}", file=sys.stderr)


def _stack_of(target: Any, name: str, version: str | None, verb: str, limits: Any = None) -> Any:
    """The StackSpec of a target (targets.objects), with the line saying when its answers
    are not replayed; None for no target."""
    if target is None:
        return None
    from ragaudit.targets.objects import as_stack, rebuildable
    from ragaudit.targets.pipeline.identity import not_replayed

    if verb == "mutate" and not rebuildable(target):
        raise RagauditError(
            "mutate builds your target again over every mutated corpus, and a built "
            "retriever or engine cannot be rebuilt: pass its factory (a function of documents "
            "or chunks) or ragaudit.Components(splitter=..., embedder=..., k=...)"
        )
    stack = as_stack(target, name=name, version=version, limits=limits)
    factory = (stack.pipeline or {}).get("factory")
    reason = not_replayed(factory, version)
    if reason is not None:
        _say(reason)
    return stack


def mutate(
    documents: Any,
    cases: Any = None,
    target: Any = None,
    *,
    settings: Any = None,
    operators: Sequence[str] | None = None,
    generate: bool = True,
    generator: str | None = None,
    seed: int = 0,
    workers: int = 4,
    name: str = "yours",
    version: str | None = None,
    limits: Any = None,
    data_dir: str | Path | None = None,
    progress: ProgressArg = True,
    out: str | Path | None = None,
    argv: Sequence[str] | None = None,
    cases_beside: str | Path | None = None,
) -> Results:
    """The mutation audit (`ragaudit mutate`): plant faults in `documents`, ask `cases`
    through `target` (None: ragaudit's retrieval with `settings`), score each operator.
    `documents`: a folder or JSONL path, or documents in Python (`(id, text)` pairs, dicts,
    llama-index or LangChain Documents); `cases`: a case file or `ragaudit.Case` intents;
    `target`: see ragaudit.targets.objects (it must be rebuildable); `generate=False`:
    retrieval-side measures only. `out`: also publish the results file there. `argv`: what
    the results file records as the command (default ``ragaudit.mutate``). `cases` None:
    cases are mined and verified first by `generator` (ragaudit.casemining.zero_config),
    kept in the data folder, and copied beside `cases_beside` (default `out`)."""
    from ragaudit.mutation.publish import publish_mutation
    from ragaudit.mutation.runner import MutateInputs, run_mutation
    from ragaudit.runner.lock import hold_run_lock

    with data_folder(data_dir):
        stack = _stack_of(target, name, version, "mutate", limits)
        if cases is None:
            cases = _mined_for_mutate(documents, generator, seed, workers, progress,
                                      cases_beside or out)  # fmt: skip
        inputs = MutateInputs(
            documents, cases, settings, stack, tuple(operators) if operators else None, seed,
            generate, generator, workers, list(argv or ["ragaudit.mutate"]), progress_of(progress),
        )  # fmt: skip
        with hold_run_lock():
            document = run_mutation(inputs)
    if out is not None:
        publish_mutation(Path(out), document)
    return Results(document, Path(out) if out is not None else None)


def _mined_for_mutate(
    documents: Any, generator: str | None, seed: int, workers: int, progress: ProgressArg,
    beside: str | Path | None,
) -> list:  # fmt: skip
    from ragaudit.casemining.run import CasesOptions
    from ragaudit.casemining.zero_config import cases_for_mutate

    options = CasesOptions(documents, generator=generator, seed=seed, workers=workers,
                           argv=["ragaudit.mutate"], progress=progress_of(progress))  # fmt: skip
    intents, line = cases_for_mutate(options, Path(beside) if beside is not None else None)
    _say(line)
    return intents


def audit(
    documents: Any,
    cases: Any = None,
    target: Any = None,
    *,
    settings: Any = None,
    dilution: bool = False,
    rank_depth: int | None = None,
    workers: int = 4,
    name: str = "yours",
    version: str | None = None,
    limits: Any = None,
    data_dir: str | Path | None = None,
    progress: ProgressArg = True,
    out: str | Path | None = None,
    argv: Sequence[str] | None = None,
) -> Results:
    """Audit your retrieval on your own cases (`ragaudit audit`): phrasings, duplicates,
    slot policy, dilution. `target`: a component target (targets.objects) ranks instead of
    `settings`' own splitter and embedder; the settings' slot policy applies on top."""
    from ragaudit.auditing.engine import DEFAULT_RANK_DEPTH
    from ragaudit.auditing.report import publish_audit
    from ragaudit.auditing.runner import AuditInputs, run_audit
    from ragaudit.runner.lock import hold_run_lock

    with data_folder(data_dir):
        stack = _stack_of(target, name, version, "audit", limits)
        inputs = AuditInputs(
            documents, cases, settings, dilution, rank_depth or DEFAULT_RANK_DEPTH, workers,
            stack=stack, progress=progress_of(progress),
        )  # fmt: skip
        lock = hold_run_lock() if cases is not None else contextlib.nullcontext()
        with lock:
            outcome = run_audit(inputs, argv=list(argv or ["ragaudit.audit"]))
    if outcome.results is None:
        raise RagauditError("; ".join(outcome.structure.fatal_lines(outcome.cases_path)))
    if out is not None:
        publish_audit(Path(out), outcome.results)
    return Results(outcome.results, Path(out) if out is not None else None)


def run(
    preset: str = "quick",
    *,
    n: int | None = None,
    embedders: Sequence[str] | None = None,
    generator: str | None = None,
    generate: bool = True,
    target: Any = None,
    target_only: bool = False,
    name: str = "yours",
    version: str | None = None,
    limits: Any = None,
    workers: int = 4,
    data_dir: str | Path | None = None,
    progress: ProgressArg = True,
    out: str | Path | None = None,
    argv: Sequence[str] | None = None,
) -> Results:
    """The planted-fault matrix (`ragaudit run`): `preset` (quick, full, reference, ...),
    `n` instances per probe, the embedders and generator as on the CLI; `target` adds your
    system as a column beside the matrix (`target_only`: alone). Without `out` the file is
    written in a temporary folder and dropped; the call cache keeps every call. `argv`:
    what the results file records as the command (default ``ragaudit.run``)."""
    from ragaudit.runner.execute import execute
    from ragaudit.runner.plan import DEFAULT_EMBEDDERS, build_plan

    with data_folder(data_dir), tempfile.TemporaryDirectory() as scratch:
        stack = _stack_of(target, name, version, "run", limits)
        plan = build_plan(
            _preset(preset), n=n,
            embedders=list(embedders or DEFAULT_EMBEDDERS), generator=generator,
            generate=generate, out=Path(out) if out is not None else Path(scratch) / "run.json",
            workers=workers, stacks=[stack] if stack is not None else (),
            stack_only=target_only, argv=argv or ("ragaudit.run",),
        )  # fmt: skip
        document, written = execute(plan, progress=progress_of(progress))
    return Results(document, written if out is not None else None)


def _preset(name: str) -> Any:
    """The preset named `name`, as `--preset` takes it (an old name mapped), or one line."""
    from ragaudit.registry import unknown_name_message
    from ragaudit.stack import presets

    known = [*presets.PRESETS, *presets.DEPRECATED_NAMES]
    if name not in known:
        raise RagauditError(unknown_name_message("preset", name, list(presets.PRESETS)))
    return presets.chosen(name)


def gate(baseline: str | Path, results: str | Path, **options: Any) -> Any:
    """The regression gate (`ragaudit gate`) of `results` against `baseline`: a Verdict
    (gating.verdict.GateVerdict: `.failed`, `.cells`, `.notes`). `options`: alpha,
    max_drop, pairs, cells, as GateOptions takes them."""
    from ragaudit.gating.gate import GateOptions
    from ragaudit.gating.gate import gate as gate_files

    return gate_files(Path(baseline), Path(results), GateOptions(**options))


def compare(a: str | Path, b: str | Path, pairs: Sequence[str] = ()) -> Any:
    """Two results files compared cell by cell (`ragaudit compare`): a Comparison, with
    `.markdown()` and `.html()` and the paired flips and McNemar test of each cell."""
    from ragaudit.comparison.compare import compare as compare_files

    return compare_files(Path(a), Path(b), tuple(pairs))


def load(path: str | Path) -> Results:
    """Any ragaudit results file (a matrix run, a stack or pipeline column, a repeat, a
    mutation audit, an audit, a judges scorecard, a drift or harness-check file), checked
    as the inspector checks it (its kind's schema), as Results."""
    from ragaudit.auditing.report import AUDIT_RESULTS
    from ragaudit.harness.output import HARNESS_CHECK
    from ragaudit.judges.scorecard import SCORECARD
    from ragaudit.results.io import load_document, load_results
    from ragaudit.ui.code_checks import DRIFT

    try:
        return Results(load_results(Path(path)), Path(path))
    except RagauditError as error:
        for kind in (AUDIT_RESULTS, SCORECARD, DRIFT, HARNESS_CHECK):
            with contextlib.suppress(RagauditError):
                return Results(load_document(Path(path), kind), Path(path))
        raise error from None
