"""The read side of a results file: the lookups the report and every inspector page share.

Each takes the loaded results dict and reads it as it is; nothing here computes a figure.
A partial file (a run still writing, cells not yet analysed) reads as empty lists.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragaudit.results.schema import VERDICT_MEASURES
from ragaudit.stack.chunking import chunking_name

GENERATION_MEASURES = ("correct", *VERDICT_MEASURES)
"""Measures the generation stage fills; null on a cell generation did not run on."""


MUTATE_KIND = "mutate"
"""`run.kind` of a mutation audit's file (`ragaudit mutate`): its probes are operators, its
one config the user's column, and its scores are in its `mutation` section."""


def is_mutation_audit(results: dict) -> bool:
    """Whether the file is a mutation audit's (`run.kind` is `"mutate"`)."""
    return (results.get("run") or {}).get("kind") == MUTATE_KIND


def mutant_entries(results: dict) -> dict[str, dict]:
    """A mutation audit's `mutation.mutants` by mutant id (`<operator>/<intent>[@variant]`,
    the control row's `control/<intent>`); {} for a file of another run."""
    return {m["mutant"]: m for m in (results.get("mutation") or {}).get("mutants") or []}


def mutant_of(results: dict, record: dict) -> dict | None:
    """The `mutation.mutants` entry a mutation audit's record was asked against, or None."""
    return mutant_entries(results).get((record.get("meta") or {}).get("mutant"))


def phrasing_name(record: dict) -> str:
    """A record's name within its cell: its instance id, and in a mutation audit the
    mutant's variant after it (`password-length/1@1000`): an operator's two mutants of one
    intent (a pipeline's boundary at two paddings) hold the same phrasings."""
    mutant = (record.get("meta") or {}).get("mutant") or ""
    variant = mutant.partition("@")[2]
    return f"{record['instance_id']}@{variant}" if variant else record["instance_id"]


def recorded_corpus_path(results: dict) -> str | None:
    """The corpus path the run recorded (`corpus.path`, as given on its command line)."""
    return (results.get("corpus") or {}).get("path")


def config_names(results: dict) -> list[str]:
    """Config names in the results file's order."""
    return [c["name"] for c in results.get("configs") or []]


def config_by_name(results: dict) -> dict[str, dict]:
    """Config records keyed by name."""
    return {c["name"]: c for c in results.get("configs") or []}


STACK_KIND = "stack"
"""`configs[].kind` of the user's stack (`ragaudit run --stack`); built-in entries carry
`"builtin"` or no kind at all."""


def is_stack(config: dict) -> bool:
    """Whether a config record is the user's stack rather than a built-in config."""
    return config.get("kind") == STACK_KIND


def stack_configs(results: dict) -> list[dict]:
    """The user's stack configs, in the results file's order."""
    return [c for c in results.get("configs") or [] if is_stack(c)]


def stack_embedder(config: dict) -> str:
    """The embedder a stack config's records and cells are under: its embedder's spec,
    `pipeline:<name>` for a whole pipeline, or `retriever:<factory>` when its own retriever
    ranks without one (as targets.stackfile's embedder_label names them)."""
    stack = config.get("stack") or {}
    embedder = stack.get("embedder") or {}
    if embedder.get("spec"):
        return embedder["spec"]
    if stack.get("pipeline"):  # a whole pipeline ranks and answers: its records name it
        return f"pipeline:{config['name']}"
    return f"retriever:{(stack.get('retriever') or {}).get('factory')}"


SETTINGS_KIND = "settings"
"""`configs[].kind` of a mutation audit's settings column (`ragaudit mutate --settings`):
ragaudit's splitter under the user's settings file, its chunking name recorded."""


def chunking_of(config: dict) -> str:
    """The chunking name a config record uses, as in chunk ids
    (`recursive-1000-200-carry_tail`); a record without `overlap_rule` predates the rules
    and its chunk ids carry none (`recursive-1000-200`). A stack config names its own
    (`stack-<name>`): its splitter is the user's, not one of ragaudit's; a mutation
    audit's settings column records its name (its settings sit under `settings`)."""
    if is_stack(config) or config.get("kind") == SETTINGS_KIND:
        return config["chunking"]
    rule = config.get("overlap_rule")
    return chunking_name(config["splitter"], config["chunk_size"], config["overlap"], rule)


@dataclass(frozen=True)
class Column:
    """One column of a probe x config table: a config, and the embedder its cells are under
    (a stack config's own embedder, whatever the table's)."""

    config: str
    embedder: str
    stack: bool = False
    probes: tuple[str, ...] | None = None
    """The only probes the config runs, when it runs a subset (T4000, a stack's `probes`)."""

    @property
    def label(self) -> str:
        """The column heading: the config's name; a stack's names its embedder too."""
        return f"{self.config} ({self.embedder})" if self.stack else self.config


def _column(config: dict, embedder: str) -> Column:
    scope = tuple(config["probes"]) if config.get("probes") else None
    if is_stack(config):
        return Column(config["name"], stack_embedder(config), True, scope)
    return Column(config["name"], embedder, False, scope)


def matrix_columns(results: dict, embedder: str) -> list[Column]:
    """The columns of `embedder`'s heatmap and report tables: the built-in configs when the
    built-in matrix ran on it (every one, so a cell it skipped reads `not run`), then every
    stack config under its own embedder, so the user's stack stands beside the matrix even
    when its embedder is not this one."""
    configs = results.get("configs") or []
    builtin = {c["name"] for c in configs if not is_stack(c)}
    rows = [*(results.get("cells") or []), *(results.get("instances") or [])]
    ran = any(r["embedder"] == embedder and r["config"] in builtin for r in rows)
    return [_column(c, embedder) for c in configs if is_stack(c) or ran]


def column_for(results: dict, config: str, embedder: str) -> Column:
    """The column of `config` in `embedder`'s tables (a stack config under its own
    embedder); a name the file does not list reads as a built-in config."""
    record = config_by_name(results).get(config) or {"name": config}
    return _column(record, embedder)


def column_cells(
    results: dict, probes: list[str], columns: list[Column]
) -> dict[tuple[str, str], dict | None]:
    """(probe, column label) -> the cell under the column's config and embedder, or None."""
    index = cell_index(results)
    return {
        (probe, column.label): index.get((probe, column.config, column.embedder))
        for probe in probes
        for column in columns
    }


def table_embedders(results: dict) -> list[str]:
    """The embedders that get a probe x config table: those the built-in matrix ran on (a
    stack's own embedder already has its column in theirs); every embedder when the file
    holds only stack configs (`run --stack-only`)."""
    specs = embedder_specs(results)
    with_builtin = [e for e in specs if any(not c.stack for c in matrix_columns(results, e))]
    return with_builtin or specs


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
    return _probes_in_order(results, present, layer, skip)


def column_probes(
    results: dict, columns: list[Column], *, layer: str | None = None, skip: str | None = None
) -> list[str]:
    """Probes with a cell or an instance record in some column, in corpus order; only those
    of `layer` when given, none of `skip` when given."""
    wanted = {(c.config, c.embedder) for c in columns}
    rows = [*(results.get("cells") or []), *(results.get("instances") or [])]
    present = {r["probe"] for r in rows if (r["config"], r["embedder"]) in wanted}
    return _probes_in_order(results, present, layer, skip)


def _probes_in_order(
    results: dict, present: set[str], layer: str | None, skip: str | None
) -> list[str]:
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


def verdict_of(record: dict) -> str:
    """The grader's verdict on a record, or why there is none."""
    if record.get("retrieval_error"):
        return "retrieval failed"
    grade = record.get("grade")
    return grade["verdict"] if grade else "not generated"


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


def span_exact(chunk: dict | None) -> bool:
    """Whether a `chunks[id]` entry's start/end locate its text exactly in its document
    (false for a stack chunk its splitter rewrote; a file before stacks: always exact)."""
    return (chunk or {}).get("span_exact", True) is not False


def approximate_spans(results: dict, config: dict) -> tuple[int, int] | None:
    """(chunks with an approximate span, chunks) of a stack config's chunking, read from its
    `run.indexes` entry; None when the file does not record the count."""
    chunking = chunking_of(config)
    run = results.get("run") or {}
    for entry in run.get("indexes") or []:
        if entry.get("chunking") == chunking and entry.get("approximate_spans") is not None:
            n = entry.get("chunks", (run.get("chunk_counts") or {}).get(chunking))
            return entry["approximate_spans"], n
    return None
