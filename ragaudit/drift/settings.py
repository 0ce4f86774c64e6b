"""Test-vs-production drift: every retrieval constant of two settings files compared one
by one, with the looser side named where "looser" has a meaning (the originating study's
audit: a test script whose backfill reached the whole pool while production stopped at
twelve was permanently optimistic). Defaults are resolved first, so a constant one file
leaves out still counts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ragaudit.auditing.settings import AuditSettings, load_settings
from ragaudit.drift.directions import direction, looser, looser_summary, verdict
from ragaudit.fileio.lines import load_with_lines

LABELS = {"name", "description"}


@dataclass(frozen=True)
class Difference:
    """One constant that differs between the two files."""

    constant: str
    left: object
    right: object
    left_default: bool
    right_default: bool
    looser: str | None
    """"left", "right" or None when neither side is looser by construction."""
    why: str


def constants(settings: AuditSettings) -> dict[str, object]:
    """Every retrieval constant, defaults resolved (the backfill range null → the pool)."""
    values = settings.model_dump(mode="json")
    out: dict[str, object] = {}
    for key, value in values.items():
        if key in LABELS:
            continue
        if key == "floor":
            out["floor"] = "set" if value else None
            out["floor.source_type"] = value["source_type"] if value else None
            out["floor.slots"] = value["slots"] if value else None
            out["floor.min_score"] = value["min_score"] if value else None
        elif key == "backfill_range":
            out[key] = settings.effective_backfill_range
        else:
            out[key] = value
    return out


def _explicit(path: Path) -> set[str]:
    data, _ = load_with_lines(path, "settings file")
    keys = set(data) if isinstance(data, dict) else set()
    if isinstance(data, dict) and isinstance(data.get("floor"), dict):
        keys |= {f"floor.{k}" for k in data["floor"]}
    return keys


def compare(left_path: Path, right_path: Path) -> tuple[list[str], list[Difference]]:
    """All constants compared, and those that differ (in a stable order)."""
    left, right = load_settings(left_path), load_settings(right_path)
    left_values, right_values = constants(left), constants(right)
    left_set, right_set = _explicit(left_path), _explicit(right_path)
    differences = []
    for constant, left_value in left_values.items():
        right_value = right_values[constant]
        if left_value == right_value:
            continue
        if constant in ("floor.source_type", "floor.slots", "floor.min_score") and (
            left_values["floor"] != right_values["floor"]
        ):
            continue  # reported once, as `floor`
        differences.append(
            Difference(
                constant=constant,
                left=left_value,
                right=right_value,
                left_default=constant not in left_set,
                right_default=constant not in right_set,
                looser=looser(constant, left_value, right_value),
                why=direction(constant)[1],
            )
        )
    return list(left_values), differences


def _shown(value: object, default: bool) -> str:
    text = "none" if value is None else str(value)
    return f"{text} (default)" if default else text


def render(left_path: Path, right_path: Path, compared: list[str], diffs: list[Difference]):
    """The drift report, line by line."""
    left, right = Path(left_path).name, Path(right_path).name
    if left == right:
        left, right = str(left_path), str(right_path)
    if not diffs:
        return [f"drift: {left} and {right} agree on all {len(compared)} retrieval constants"]
    lines = [
        f"drift: {left} vs {right}: {len(diffs)} of {len(compared)} retrieval constants differ"
    ]
    for diff in diffs:
        values = (
            f"{left} {_shown(diff.left, diff.left_default)}, "
            f"{right} {_shown(diff.right, diff.right_default)}"
        )
        named = {"left": left, "right": right}.get(diff.looser or "")
        lines.append(f"  {diff.constant}: {values} -> {verdict(named, diff.why)}")
    looser_sides = {diff.looser for diff in diffs if diff.looser}
    for side in sorted(looser_sides):
        name = left if side == "left" else right
        other = right if side == "left" else left
        lines.append(looser_summary(name, other, sum(d.looser == side for d in diffs)))
    if not looser_sides:
        lines.append(f"[fail] {left} and {right} do not describe the same retrieval")
    return lines
