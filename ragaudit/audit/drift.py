"""Test-vs-production drift: every retrieval constant of two settings files compared one
by one, with the looser side named where "looser" has a meaning (seed 003: a test script
whose backfill reached the whole pool while production stopped at twelve was permanently
optimistic). Defaults are resolved first, so a constant one file leaves out still counts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ragaudit.audit.settings import AuditSettings, load_settings
from ragaudit.audit.yamlio import load_with_lines

# constant -> (which way is looser, why it matters). "higher": a larger value lets more
# through; "lower": a smaller value does; None: a different stack, neither side looser.
DIRECTIONS: dict[str, tuple[str | None, str]] = {
    "k": ("higher", "more slots reach the model"),
    "candidate_pool": ("higher", "more candidates before the slot policy"),
    "per_source_cap": ("higher", "one source may take more slots (none = no cap)"),
    "floor.slots": ("higher", "more slots reserved for the floor's source type"),
    "floor.min_score": ("lower", "weaker matches may take a reserved slot (none = no gate)"),
    "backfill_range": ("higher", "the floor may reach further down the ranking"),
    "min_score": ("lower", "fewer candidates are dropped by the threshold (none = no threshold)"),
    "floor.source_type": (None, "the reserved slots go to a different source type"),
    "floor": (None, "one side reserves slots, the other does not"),
    "embedder": (None, "different vectors, different rankings"),
    "splitter": (None, "different chunks"),
    "chunk_size": (None, "different chunks"),
    "overlap": (None, "different chunks"),
    "overlap_rule": (None, "the overlap is carried differently: different chunks"),
    "hybrid": (None, "BM25 fusion changes the ranking"),
    "split_subsections": (None, "different chunks for long documents"),
    "subsection_marker": (None, "different subsections found"),
    "split_max_lead_in": (None, "different documents split"),
    "split_min_subsections": (None, "different documents split"),
    "split_min_chars": (None, "different documents split"),
}
LABELS = {"name", "description"}
# null means no limit at all for these: the looser side by construction
UNBOUNDED = {"per_source_cap", "min_score", "backfill_range", "floor.min_score"}


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


def _looser(constant: str, left: object, right: object) -> str | None:
    direction = DIRECTIONS.get(constant, (None, ""))[0]
    if direction is None:
        return None
    if left is None or right is None:
        if constant in UNBOUNDED:
            return "left" if left is None else "right"
        return None
    if direction == "higher":
        return "left" if left > right else "right"
    return "left" if left < right else "right"


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
                looser=_looser(constant, left_value, right_value),
                why=DIRECTIONS.get(constant, (None, "differs"))[1],
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
        if diff.looser is None:
            verdict = f"differs, neither side looser ({diff.why})"
        else:
            verdict = f"{left if diff.looser == 'left' else right} is looser ({diff.why})"
        lines.append(f"  {diff.constant}: {values} -> {verdict}")
    looser_sides = {diff.looser for diff in diffs if diff.looser}
    for side in sorted(looser_sides):
        name = left if side == "left" else right
        other = right if side == "left" else left
        lines.append(
            f"[fail] {name} is looser than {other} on "
            f"{sum(d.looser == side for d in diffs)} constant(s): if {name} is the test, "
            "its results are optimistic about production"
        )
    if not looser_sides:
        lines.append(f"[fail] {left} and {right} do not describe the same retrieval")
    return lines
