"""The read side of a results file: the lookups the report and every inspector page share.

Each takes the loaded results dict and reads it as it is; nothing here computes a figure.
A partial file (a run still writing, cells not yet analysed) reads as empty lists.
"""

from __future__ import annotations

from ragaudit.analysis.cells import VERDICT_MEASURES
from ragaudit.stack.chunking import chunking_name

GENERATION_MEASURES = ("correct", *VERDICT_MEASURES)
"""Measures the generation stage fills; null on a cell generation did not run on."""


def config_names(results: dict) -> list[str]:
    """Config names in the results file's order."""
    return [c["name"] for c in results.get("configs") or []]


def config_by_name(results: dict) -> dict[str, dict]:
    """Config records keyed by name."""
    return {c["name"]: c for c in results.get("configs") or []}


def chunking_of(config: dict) -> str:
    """The chunking name a config record uses, as in chunk ids
    (`recursive-1000-200-carry_tail`); a record without `overlap_rule` predates the rules
    and its chunk ids carry none (`recursive-1000-200`)."""
    rule = config.get("overlap_rule")
    return chunking_name(config["splitter"], config["chunk_size"], config["overlap"], rule)


def config_scopes(results: dict) -> dict[str, list[str]]:
    """Config name -> the only probes it runs, for the configs that run a subset (T4000)."""
    return {c["name"]: list(c["probes"]) for c in results.get("configs") or [] if c.get("probes")}


def embedder_specs(results: dict) -> list[str]:
    """Embedder specs: the declared ones in order, then any only the cells name."""
    specs = [e["spec"] for e in results.get("embedders") or []]
    return specs + sorted({c["embedder"] for c in results.get("cells") or []} - set(specs))


def probe_names(results: dict) -> list[str]:
    """Probes in corpus order, then any that appear only in records or cells."""
    names = [p["name"] for p in (results.get("corpus") or {}).get("probes") or []]
    for row in [*(results.get("instances") or []), *(results.get("cells") or [])]:
        if row["probe"] not in names:
            names.append(row["probe"])
    return names


def probe_layers(results: dict) -> dict[str, str]:
    """probe -> layer (`control`, `architectural`, `embedding`, …)."""
    layers = {
        p["name"]: p.get("layer") or "" for p in (results.get("corpus") or {}).get("probes") or []
    }
    for row in [*(results.get("instances") or []), *(results.get("cells") or [])]:
        layers.setdefault(row["probe"], row.get("layer") or "")
    return layers


def probes_for(
    results: dict, embedder: str, *, layer: str | None = None, skip: str | None = None
) -> list[str]:
    """Probes with a cell or an instance record under `embedder`, in corpus order;
    only those of `layer` when given, none of `skip` when given."""
    rows = [*(results.get("cells") or []), *(results.get("instances") or [])]
    present = {r["probe"] for r in rows if r["embedder"] == embedder}
    layers = probe_layers(results)
    return [
        p
        for p in probe_names(results)
        if p in present
        and (layer is None or layers[p] == layer)
        and (skip is None or layers[p] != skip)
    ]


def cell_index(results: dict) -> dict[tuple[str, str, str], dict]:
    """Cells keyed by (probe, config, embedder)."""
    return {(c["probe"], c["config"], c["embedder"]): c for c in results.get("cells") or []}


def measure_ran(cell: dict, measure: str) -> bool:
    """Whether the stage that fills `measure` ran on `cell` (generation measures need a
    generated cell; retrieval measures are there whenever the cell is)."""
    return measure not in GENERATION_MEASURES or bool(cell.get("generated"))


def cell_measure(cell: dict | None, measure: str) -> dict | None:
    """The cell's recorded `measure`; None when the cell, or the stage that fills the
    measure, did not run, or the measure is null (the cell records why)."""
    if cell is None or not measure_ran(cell, measure):
        return None
    return (cell.get("measures") or {}).get(measure)


def cell_records(results: dict, probe: str, config: str, embedder: str) -> list[dict]:
    """The instance records of one cell, in instance order."""
    records = [
        r
        for r in results.get("instances") or []
        if r["probe"] == probe and r["config"] == config and r["embedder"] == embedder
    ]
    return sorted(records, key=lambda r: r["instance_id"])


def instance_records(results: dict, probe: str, instance_id: str, embedder: str) -> dict[str, dict]:
    """config -> record for one instance under one embedder (for flips across configs)."""
    return {
        r["config"]: r
        for r in results.get("instances") or []
        if r["probe"] == probe and r["instance_id"] == instance_id and r["embedder"] == embedder
    }


def certification(results: dict, embedder: str) -> dict | None:
    """The controls' verdict on `embedder` as recorded, or None when none is recorded."""
    return (results.get("control_certification") or {}).get(embedder)


def uncertified(results: dict, embedder: str) -> bool:
    """True unless the embedder's controls ran and passed."""
    return not (certification(results, embedder) or {}).get("certified", False)


def wilson_confidence(results: dict) -> float | None:
    """The confidence of every recorded Wilson interval (0.95), if the file records it."""
    return (results.get("analysis") or {}).get("wilson_confidence")


def index_windows(results: dict) -> dict[tuple[str, str], dict]:
    """`run.indexes` entries keyed by (embedder, chunking); each carries its window fields
    (`window_tokens`, `over_window`, …), or lacks them in a file that predates them."""
    return {
        (entry["embedder"], entry["chunking"]): entry
        for entry in (results.get("run") or {}).get("indexes") or []
    }


def cell_attribution(cell: dict | None) -> dict | None:
    """The cell's failure attribution (a measure per value of ATTRIBUTIONS, `no_oracle`,
    `n`), or None when the cell did not generate or its file predates oracle contexts."""
    return (cell or {}).get("attribution")
