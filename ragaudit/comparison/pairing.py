"""The cells of two results files side by side: per (probe, column pair) both recorded
rates, the instances that flipped each way, and an exact McNemar test on those flips.

A column pair is a column of A and a column of B (results.view.Column: a config and the
embedder its cells are under). By default every (config, embedder) both files hold is
paired with itself; a pair may also join two different columns (the built-in C against
the user's stack, one embedder against another), named `CONFIG[@EMBEDDER]=CONFIG[@EMBEDDER]`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragaudit.analysis.stats import mcnemar_exact
from ragaudit.errors import RagauditError
from ragaudit.registry import unknown_name_message
from ragaudit.results.view import (
    Column,
    cell_index,
    column_for,
    config_by_name,
    config_names,
    embedder_specs,
    is_stack,
    probe_names,
)

MEASURES = {"gold_in_context": "gold in context", "correct": "answer correct"}
"""The measures compared, by record field, with the words a table heads them with."""


def record_value(record: dict, measure: str) -> bool | None:
    """One record's value of `measure`: gold_in_context as recorded; correct from its grade
    (None when it was not graded, as the cell's count leaves it out)."""
    if measure == "correct":
        grade = record.get("grade")
        return None if not grade else bool(grade.get("correct"))
    value = record.get(measure)
    return None if value is None else bool(value)


@dataclass(frozen=True)
class ColumnPair:
    """A column of run A compared with a column of run B."""

    a: Column
    b: Column

    @property
    def label(self) -> str:
        """`C` when both sides are the same column, else `C → langchain_recursive (…)`."""
        return self.a.label if self.a == self.b else f"{self.a.label} → {self.b.label}"


@dataclass(frozen=True)
class CellComparison:
    """One probe under one column pair: both cells as recorded and the paired flips."""

    probe: str
    pair: ColumnPair
    measure: str
    cell_a: dict | None
    """A's cell as the file records it; None when A has no such cell (not run)."""
    cell_b: dict | None
    gains: tuple[str, ...]
    """Instance ids false under A and true under B."""
    losses: tuple[str, ...]
    """Instance ids true under A and false under B."""
    paired_n: int
    """Instances with a value of the measure under both runs."""
    paired: bool
    """False when the files may not be paired (provenance) or a side has no records."""
    mcnemar_p: float | None
    """Exact two-sided McNemar p on gains against losses; None when not paired or n = 0."""


def records_by_column(results: dict) -> dict[tuple[str, str, str], dict[str, dict]]:
    """(probe, config, embedder) -> instance id -> record (check_instance_keys first: a
    second record of one instance would replace the first here)."""
    out: dict[tuple[str, str, str], dict[str, dict]] = {}
    for record in results.get("instances") or []:
        key = (record["probe"], record["config"], record["embedder"])
        out.setdefault(key, {})[record["instance_id"]] = record
    return out


def check_instance_keys(path: object, results: dict) -> None:
    """Refuse, in one line naming the key, a file holding two records of one instance under
    one column (instance id, config, embedder). Pairing by id keeps one of them, so a lost
    copy next to a passing one would hide the loss, or show one that is not there."""
    seen: dict[tuple[str, str, str], int] = {}
    for index, record in enumerate(results.get("instances") or []):
        key = (record["instance_id"], record["config"], record["embedder"])
        if key in seen:
            raise RagauditError(
                f"{path}: instances[{seen[key]}] and instances[{index}] are both instance "
                f"{key[0]!r} under config {key[1]!r}, embedder {key[2]!r} (a run records each "
                "instance once per column); refusing to pair by id"
            )
        seen[key] = index


def default_pairs(a: dict, b: dict) -> list[ColumnPair]:
    """Every (config, embedder) column that has cells in both files, in A's order."""
    keys_b = {(c["config"], c["embedder"]) for c in b.get("cells") or []}
    pairs: list[ColumnPair] = []
    for cell in a.get("cells") or []:
        key = (cell["config"], cell["embedder"])
        pair = ColumnPair(column_for(a, *key), column_for(b, *key))
        if key in keys_b and pair not in pairs:
            pairs.append(pair)
    return pairs


def resolve_column(results: dict, text: str, side: str) -> Column:
    """`CONFIG` or `CONFIG@EMBEDDER` as a column of `results` (run `side`): a stack config
    under its own embedder; a built-in config under the named embedder, else the file's
    first. Raises RagauditError naming what the file lacks."""
    config, _, embedder = text.partition("@")
    names = config_names(results)
    if config not in names:
        raise RagauditError(unknown_name_message(f"config in run {side}", config, names))
    specs = embedder_specs(results)
    if is_stack(config_by_name(results)[config]) or not specs:
        return column_for(results, config, embedder)
    if embedder and embedder not in specs:
        raise RagauditError(unknown_name_message(f"embedder in run {side}", embedder, specs))
    return column_for(results, config, embedder or specs[0])


def parse_pair(text: str, a: dict, b: dict) -> ColumnPair:
    """`A_CONFIG[@EMBEDDER]=B_CONFIG[@EMBEDDER]` as a column pair; `C` alone pairs C with C."""
    left, _, right = text.partition("=")
    return ColumnPair(resolve_column(a, left, "A"), resolve_column(b, right or left, "B"))


def _probes(a: dict, b: dict, pair: ColumnPair, cells_a: dict, cells_b: dict) -> list[str]:
    names = probe_names(a) + [p for p in probe_names(b) if p not in probe_names(a)]
    return [
        p
        for p in names
        if (p, pair.a.config, pair.a.embedder) in cells_a
        or (p, pair.b.config, pair.b.embedder) in cells_b
    ]


def _flips(
    records_a: dict[str, dict], records_b: dict[str, dict], measure: str
) -> tuple[list[str], list[str], int]:
    """(gains, losses, paired n) over the instance ids both sides hold a value for."""
    gains, losses, n = [], [], 0
    for instance_id in sorted(set(records_a) & set(records_b)):
        was = record_value(records_a[instance_id], measure)
        now = record_value(records_b[instance_id], measure)
        if was is None or now is None:
            continue
        n += 1
        if now and not was:
            gains.append(instance_id)
        elif was and not now:
            losses.append(instance_id)
    return gains, losses, n


def compare_cells(
    a: dict, b: dict, pairs: list[ColumnPair], measure: str, *, paired: bool
) -> list[CellComparison]:
    """Every probe of every pair that has a cell in A or B; flips only when `paired`
    (provenance allows it) and both sides hold records."""
    cells_a, cells_b = cell_index(a), cell_index(b)
    records_a, records_b = records_by_column(a), records_by_column(b)
    out = []
    for pair in pairs:
        for probe in _probes(a, b, pair, cells_a, cells_b):
            key_a = (probe, pair.a.config, pair.a.embedder)
            key_b = (probe, pair.b.config, pair.b.embedder)
            held_a, held_b = records_a.get(key_a), records_b.get(key_b)
            both = paired and bool(held_a) and bool(held_b)
            gains, losses, n = _flips(held_a, held_b, measure) if both else ([], [], 0)
            p = mcnemar_exact(len(gains), len(losses)) if both and n else None
            out.append(
                CellComparison(
                    probe,
                    pair,
                    measure,
                    cells_a.get(key_a),
                    cells_b.get(key_b),
                    tuple(gains),
                    tuple(losses),
                    n,
                    both,
                    p,
                )
            )
    return out


def column_records(results: dict, probe: str, column: Column) -> dict[str, dict]:
    """Instance id -> record of one probe under one column of `results`."""
    return records_by_column(results).get((probe, column.config, column.embedder), {})
