"""The cells a gate tests, chosen as `ragaudit compare` pairs them: every probe of every
column pair (`--pair A_CONFIG=B_CONFIG`, default each column both files hold with itself),
for each measure that ran on both sides and has a value for some instance in both
(gold in context; answer correct where generation ran). `--cells PROBE:CONFIG` keeps only
the named ones. Instances marked flaky in either file (`ragaudit run --repeat`) are left
out of the answer-correct cells and listed; they stay in the gold-in-context cells, since a
rerun replays retrieval and only the answer's verdict moved."""

from __future__ import annotations

from dataclasses import dataclass

from ragaudit.comparison.pairing import MEASURES, ColumnPair, record_value, records_by_column
from ragaudit.errors import RagauditError
from ragaudit.registry import unknown_name_message
from ragaudit.results.view import cell_index, measure_ran, probe_layers, probe_names


@dataclass(frozen=True)
class PairedCell:
    """One probe under one column pair and one measure, paired instance by instance."""

    probe: str
    pair: ColumnPair
    measure: str
    layer: str
    """The probe's layer: `control` cells fail the gate on any drop."""
    n: int
    """Instances with a value under both runs (flaky ones left out)."""
    passes_before: int
    passes_after: int
    losses: tuple[str, ...]
    """Instance ids passing in the baseline and failing in the new run."""
    gains: tuple[str, ...]
    flaky: tuple[str, ...]
    """Instance ids left out because a file marks them flaky (answer-correct cells only)."""

    @property
    def name(self) -> str:
        """`boundary:B → A_prime (gold in context)`."""
        return f"{self.probe}:{self.pair.label} ({MEASURES[self.measure]})"


FLAKY_MEASURES = ("correct",)
"""The measures a flaky mark leaves an instance out of: its answer's verdict moved between
generation conditions; its retrieval (gold in context) was replayed, the same under each."""


def _pair_up(before: dict[str, dict], after: dict[str, dict], measure: str):
    flaky, values = [], []
    for instance_id in sorted(before.keys() & after.keys()):
        marked = before[instance_id].get("flaky") or after[instance_id].get("flaky")
        if marked and measure in FLAKY_MEASURES:
            flaky.append(instance_id)
            continue
        was = record_value(before[instance_id], measure)
        now = record_value(after[instance_id], measure)
        if was is not None and now is not None:
            values.append((instance_id, was, now))
    return values, flaky


def paired_cells(baseline: dict, new: dict, pairs: list[ColumnPair]) -> list[PairedCell]:
    """Every cell both files can be paired on, in A's probe order, gold in context first."""
    cells_a, cells_b = cell_index(baseline), cell_index(new)
    records_a, records_b = records_by_column(baseline), records_by_column(new)
    layers = {**probe_layers(new), **probe_layers(baseline)}
    out = []
    for measure in MEASURES:
        for pair in pairs:
            for probe in probe_names(baseline):
                key_a = (probe, pair.a.config, pair.a.embedder)
                key_b = (probe, pair.b.config, pair.b.embedder)
                cell_a, cell_b = cells_a.get(key_a), cells_b.get(key_b)
                if not cell_a or not cell_b or not measure_ran(cell_a, measure):
                    continue
                if not measure_ran(cell_b, measure):
                    continue
                before, after = records_a.get(key_a) or {}, records_b.get(key_b) or {}
                values, flaky = _pair_up(before, after, measure)
                if not values and not flaky:
                    continue  # kept when every instance is flaky: the gate lists them
                out.append(
                    PairedCell(
                        probe,
                        pair,
                        measure,
                        layers.get(probe, ""),
                        len(values),
                        sum(1 for _, was, _ in values if was),
                        sum(1 for _, _, now in values if now),
                        tuple(i for i, was, now in values if was and not now),
                        tuple(i for i, was, now in values if now and not was),
                        tuple(flaky),
                    )
                )
    return out


def parse_cell(text: str) -> tuple[str, str]:
    """`PROBE:CONFIG` as (probe, config); one line naming the value when malformed."""
    probe, sep, config = text.partition(":")
    if not sep or not probe or not config:
        raise RagauditError(f"--cells {text!r}: write PROBE:CONFIG, e.g. boundary:B")
    return probe, config


def choose(cells: list[PairedCell], wanted: list[str]) -> list[PairedCell]:
    """The cells `--cells` names (each PROBE:CONFIG matches A's config, B's config or the
    pair's label); all of them when none is named. A name that matches none is refused."""
    if not wanted:
        return cells
    chosen = []
    for text in wanted:
        probe, config = parse_cell(text)
        hits = [
            c
            for c in cells
            if c.probe == probe and config in (c.pair.a.config, c.pair.b.config, c.pair.label)
        ]
        if not hits:
            probes = sorted({c.probe for c in cells})
            if probe not in probes:
                named = unknown_name_message("probe with a paired cell", probe, probes)
                raise RagauditError(f"--cells {text}: {named}")
            configs = sorted({c.pair.a.config for c in cells if c.probe == probe})
            raise RagauditError(
                f"--cells {text}: "
                + unknown_name_message(f"config with a paired {probe} cell", config, configs)
            )
        chosen += [c for c in hits if c not in chosen]
    return chosen
