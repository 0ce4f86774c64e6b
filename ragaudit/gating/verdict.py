"""The gate's decision. A gated cell fails when any of these holds:
- it loses significantly: its one-sided exact McNemar p, Holm-adjusted over the cells
  tested, is at most alpha;
- it is a control cell and its pass rate drops at all (a control that moves means the
  instrument moved, not the stack);
- its pass rate drops by more than `max_drop` points.
The gate fails (exit 1) when any cell fails."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ragaudit.comparison.pairing import column_records
from ragaudit.gating.cells import PairedCell
from ragaudit.gating.changes import LostInstance, lost_instances
from ragaudit.gating.mcnemar import holm, mcnemar_one_sided
from ragaudit.gating.power import Detectable, detectable_drop

SIGNIFICANT, CONTROL, MAX_DROP = "significant loss", "control dropped", "drop over --max-drop"


@dataclass(frozen=True)
class CellVerdict:
    """One gated cell, tested."""

    cell: PairedCell
    p: float
    """One-sided exact McNemar p (losses against gains)."""
    p_holm: float
    drop_points: float
    """Pass rate before minus after, in points over the paired instances (negative: a rise)."""
    detectable: Detectable
    reasons: tuple[str, ...]
    """Why the cell fails (SIGNIFICANT, CONTROL, MAX_DROP); empty when it passes."""
    lost: tuple[LostInstance, ...]

    @property
    def failed(self) -> bool:
        return bool(self.reasons)


@dataclass(frozen=True, order=True)
class FlakyInstance:
    """An instance left out of the gate because its answer's verdict changed between
    generation conditions (`ragaudit run --repeat`)."""

    probe: str
    instance_id: str
    config: str
    """The column pair's label: `C`, or `B → A_prime` when the gate pairs two configs."""

    def __str__(self) -> str:
        """`negation-010 (negation, B)`."""
        return f"{self.instance_id} ({self.probe}, {self.config})"


@dataclass(frozen=True)
class GateVerdict:
    """All the gated cells and the settings they were tested under."""

    cells: tuple[CellVerdict, ...]
    alpha: float
    max_drop: float
    all_flaky: tuple[PairedCell, ...] = ()
    """Cells left untested because every paired instance in them is flaky."""
    baseline: Path | None = None
    """The baseline's file, when the gate read one (gating.gate)."""
    results: Path | None = None
    """The new run's file."""
    notes: tuple[str, ...] = ()
    """What the pairing check checked, then what changed under test (the summary's notes)."""

    @property
    def failed(self) -> tuple[CellVerdict, ...]:
        return tuple(c for c in self.cells if c.failed)

    @property
    def flaky(self) -> tuple[FlakyInstance, ...]:
        """Every instance left out as flaky, once per probe and column, sorted."""
        cells = [c.cell for c in self.cells] + list(self.all_flaky)
        found = {FlakyInstance(c.probe, i, c.pair.label) for c in cells for i in c.flaky}
        return tuple(sorted(found))


def _reasons(cell: PairedCell, p_holm: float, drop: float, alpha: float, max_drop: float):
    reasons = []
    if p_holm <= alpha:
        reasons.append(SIGNIFICANT)
    if cell.layer == "control" and drop > 0:
        reasons.append(CONTROL)
    if drop > max_drop + 1e-9:
        reasons.append(MAX_DROP)
    return tuple(reasons)


def decide(
    baseline: dict, new: dict, cells: list[PairedCell], alpha: float, max_drop: float
) -> GateVerdict:
    """Test every cell, Holm-correct over them, and name the lost instances of each."""
    all_flaky = tuple(c for c in cells if not c.n)
    cells = [c for c in cells if c.n]
    p_values = [mcnemar_one_sided(len(c.losses), len(c.gains)) for c in cells]
    adjusted = holm(p_values)
    out = []
    for cell, p, p_holm in zip(cells, p_values, adjusted, strict=True):
        drop = 100 * (cell.passes_before - cell.passes_after) / cell.n
        lost: list[LostInstance] = []
        if cell.losses:
            before = column_records(baseline, cell.probe, cell.pair.a)
            after = column_records(new, cell.probe, cell.pair.b)
            lost = lost_instances(cell.losses, before, after, cell.measure)
        out.append(
            CellVerdict(
                cell,
                p,
                p_holm,
                drop,
                detectable_drop(cell.n, cell.passes_before, alpha),
                _reasons(cell, p_holm, drop, alpha, max_drop),
                tuple(lost),
            )
        )
    return GateVerdict(tuple(out), alpha, max_drop, all_flaky)
