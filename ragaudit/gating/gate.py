"""The regression gate as a library function: a baseline results file and a new one,
paired and checked (comparison.agreement), their cells chosen, tested and decided
(`verdict`). `ragaudit gate` and `ragaudit run --baseline` parse their options into a
GateOptions, call `gate` (or `gate_documents` on a run's results not yet written) and print
what `summary` makes of the verdict."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path

from ragaudit.comparison.agreement import agreement
from ragaudit.comparison.pairing import default_pairs, parse_pair
from ragaudit.errors import RagauditError
from ragaudit.gating.cells import choose, paired_cells
from ragaudit.gating.inputs import check_gate_fields
from ragaudit.gating.under_test import changes_under_test
from ragaudit.gating.verdict import GateVerdict, decide
from ragaudit.results.io import load_results


@dataclass(frozen=True)
class Bounds:
    """An interval a gate setting must lie in: (low, high] or [low, high]."""

    low: float
    high: float
    open_low: bool

    def holds(self, value: float) -> bool:
        """True for a finite value inside the interval."""
        above = value > self.low if self.open_low else value >= self.low
        return math.isfinite(value) and above and value <= self.high

    def __str__(self) -> str:
        """`(0, 0.5]`."""
        return f"{'(' if self.open_low else '['}{self.low:g}, {self.high:g}]"


ALPHA_BOUNDS = Bounds(0, 0.5, open_low=True)
MAX_DROP_BOUNDS = Bounds(0, 100, open_low=False)


@dataclass(frozen=True)
class GateOptions:
    """How the gate tests the paired cells (`ragaudit gate`'s options)."""

    alpha: float = 0.05
    """Significance level of the one-sided McNemar test, Holm-corrected; in (0, 0.5]."""
    max_drop: float = 10.0
    """A cell whose pass rate drops by more than this many points fails; in [0, 100]."""
    pairs: tuple[str, ...] = ()
    """`A_CONFIG[@EMBEDDER]=B_CONFIG[@EMBEDDER]`: a baseline column gated against a new
    run's column; none: each column both files hold, with itself."""
    cells: tuple[str, ...] = ()
    """`PROBE:CONFIG`: gate only these cells; none: every cell both files can be paired on."""

    def __post_init__(self) -> None:
        for name, value, bounds in (
            ("alpha", self.alpha, ALPHA_BOUNDS),
            ("max_drop", self.max_drop, MAX_DROP_BOUNDS),
        ):
            if not bounds.holds(value):
                raise RagauditError(f"{name} {value!r}: give a number in {bounds}")


def paired_notes(baseline: dict, new: dict, paths: tuple[Path, Path]) -> list[str]:
    """The pairing check: refuse naming what differs; else the notes of what it checked."""
    checked = agreement(baseline, new)
    where = f"{paths[0]} and {paths[1]}"
    if checked.differs:
        raise RagauditError(f"cannot pair {where}: {'; '.join(checked.differs)}")
    if not checked.checked:
        raise RagauditError(f"cannot pair {where}: {checked.notes[-1]}")
    return list(checked.notes)


def gate_documents(
    baseline: dict, new: dict, options: GateOptions, paths: tuple[Path, Path]
) -> GateVerdict:
    """The gate on two results documents already read (`paths` names their files in its
    messages and on the verdict): every refusal the gate can make of them, then the
    verdict. `run --baseline` asks it of the finished run's results before they replace
    any file."""
    check_gate_fields(paths[0], baseline)
    check_gate_fields(paths[1], new)
    notes = paired_notes(baseline, new, paths)
    pairs = [parse_pair(text, baseline, new) for text in options.pairs]
    pairs = pairs or default_pairs(baseline, new)
    cells = choose(paired_cells(baseline, new, pairs), list(options.cells))
    if not cells:
        raise RagauditError(
            f"{paths[0]} and {paths[1]} share no cell with paired instances: "
            "name the columns with --pair A_CONFIG=B_CONFIG"
        )
    notes += changes_under_test(baseline, new, pairs)
    verdict = decide(baseline, new, cells, options.alpha, options.max_drop)
    return replace(verdict, baseline=paths[0], results=paths[1], notes=tuple(notes))


def gate(baseline: Path, results: Path, options: GateOptions | None = None) -> GateVerdict:
    """Gate the run in `results` against the one in `baseline` (both complete runs):
    raises RagauditError, one line, when they cannot be paired or a file is bad;
    otherwise the verdict, whose `failed` cells lost."""
    options = options or GateOptions()
    base = load_results(baseline, allow_partial=False)
    new = load_results(results, allow_partial=False)
    return gate_documents(base, new, options, (baseline, results))
