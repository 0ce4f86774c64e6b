"""Every kind of file ragaudit writes, as TypedDicts: the results file (a matrix run, a
stack or pipeline column, `run --repeat`, `ragaudit mutate`: one format) with its run
header, corpus, configs, embedders, models, conditions, cells and comparisons, and the
audit, judges, drift and harness-check files. Only types: the documents stay plain dicts.
results.schema_file generates the shipped JSON Schema from them, and the one loader checks
each file it reads against its kind's type. Fields a writer may leave out, or an older
version lacks, are NotRequired; a missing value is null."""

from typing import Any, NotRequired

from typing_extensions import TypedDict

from ragaudit.results.record_sections import JSONObject
from ragaudit.results.records import InstanceRecord


class ProbeCount(TypedDict):
    name: str
    layer: NotRequired[str | None]
    n: NotRequired[int | None]


class Corpus(TypedDict, total=False):
    """What the run read: the planted corpus (seed, n, manifest sha) or a user's folder."""

    seed: int | None
    n: int | None
    sha256: str | None
    documents: int | None
    probes: list[ProbeCount] | None
    anchor_selectivity: JSONObject | None
    path: str | None
    skipped: list[JSONObject] | None
    skipped_count: int | None


class IndexStats(TypedDict, total=False):
    """One index (embedder × chunking): its chunks and its input-window survey."""

    embedder: str | None
    chunking: str | None
    collection: str | None
    chunks: int | None
    window_tokens: int | None
    window_basis: str | None
    over_window: int | None
    over_window_chunks: dict[str, int] | None


class RunHeader(TypedDict, total=False):
    """The results file's `run`: what was asked for and what the indexes held."""

    kind: str | None
    """`mutate` for the mutation audit's file; absent for a run."""
    preset: str | None
    seed: int | None
    argv: list[str] | None
    gen_configs: list[str] | None
    gen_probes: list[str] | None
    generate: bool | None
    generation_params: JSONObject | None
    retrieval_pool_depth: int | None
    workers: int | None
    executor: JSONObject | None
    indexes: list[IndexStats] | None
    chunk_counts: dict[str, int] | None
    generation_counts: JSONObject | None
    stack_generation_counts: dict[str, JSONObject] | None
    prompt_used: JSONObject | None
    operators: list[str] | None
    cases_file: str | None
    builds: JSONObject | None


class Config(TypedDict):
    """A column of the matrix: a built-in config, or a user's stack (`kind: stack`)."""

    name: str
    kind: NotRequired[str | None]
    splitter: NotRequired[str | None]
    chunk_size: NotRequired[int | None]
    overlap: NotRequired[int | None]
    overlap_rule: NotRequired[str | None]
    chunking: NotRequired[str | None]
    k: NotRequired[int | None]
    hybrid: NotRequired[bool | None]
    description: NotRequired[str | None]
    probes: NotRequired[list[str] | None]
    stack: NotRequired[JSONObject | None]
    pipeline_form: NotRequired[str | None]
    indexed_documents: NotRequired[str | None]
    prompt_used: NotRequired[JSONObject | None]


class Embedder(TypedDict):
    spec: str
    role: NotRequired[str | None]
    probes: NotRequired[list[str] | None]


class Model(TypedDict):
    """A model the run called, pinned by its digest."""

    spec: str
    kind: NotRequired[str | None]
    backend: NotRequired[str | None]
    name: NotRequired[str | None]
    digest: NotRequired[str | None]
    digest_reason: NotRequired[str | None]
    base_url: NotRequired[str | None]
    api_key_env: NotRequired[str | None]
    llm_threads: NotRequired[int | None]
    prefix_reuse: NotRequired[bool | None]


class CallCounts(TypedDict, total=False):
    replayed: int | None
    computed: int | None
    failed: int | None


class Conditions(TypedDict, total=False):
    """How the run went: its model calls, failures, contention and wall time."""

    calls: CallCounts | None
    calls_by_model: dict[str, CallCounts] | None
    failed_calls: list[JSONObject] | None
    failure_reasons: list[JSONObject] | None
    contention_detection_configured: bool | None
    contention_pattern_env: str | None
    contention_seen: JSONObject | None
    elapsed_seconds: float | None
    elapsed_seconds_reason: str | None
    sessions: list[JSONObject] | None


class Chunk(TypedDict):
    """A retrieved (or oracle) chunk, with its text."""

    doc_id: NotRequired[str]
    chunking: NotRequired[str | None]
    index: NotRequired[int | None]
    start: NotRequired[int]
    end: NotRequired[int]
    text: NotRequired[str]
    span_exact: NotRequired[bool | None]


class Measure(TypedDict):
    """count/n, the rate and its Wilson 95% interval."""

    count: NotRequired[int]
    n: NotRequired[int]
    rate: NotRequired[float | None]
    wilson: NotRequired[list[float] | None]


class Cell(TypedDict):
    """One probe × config × embedder: its measures and how detectable its failures are."""

    probe: str
    layer: NotRequired[str | None]
    config: str
    embedder: str
    n: NotRequired[int | None]
    measures: dict[str, Measure | str | None]
    """Each measure, or null with a sibling `<measure>_reason` string."""
    generated: NotRequired[bool | None]
    failure_basis: NotRequired[str | None]
    failures: NotRequired[int | None]
    successes: NotRequired[int | None]
    detectability: NotRequired[JSONObject | None]
    severity: NotRequired[JSONObject | None]
    citation_check: NotRequired[JSONObject | None]
    attribution: NotRequired[JSONObject | None]


Comparison = TypedDict(
    "Comparison",
    {
        "name": str,
        "from": NotRequired[str | None],
        "to": NotRequired[str | None],
        "variable": NotRequired[str | None],
        "probe": NotRequired[str | None],
        "embedder": NotRequired[str | None],
        "measure": NotRequired[str | None],
        "from_count": NotRequired[int | None],
        "to_count": NotRequired[int | None],
        "n": NotRequired[int | None],
        "excluded": NotRequired[int | None],
        "gains": NotRequired[list[str] | None],
        "losses": NotRequired[list[str] | None],
        "gain_kinds": NotRequired[dict[str, int] | None],
        "gain_kind_by_instance": NotRequired[dict[str, str] | None],
        "mcnemar_p": NotRequired[float | None],
        "mcnemar_p_reason": NotRequired[str | None],
        "from_wilson": NotRequired[list[float] | None],
        "to_wilson": NotRequired[list[float] | None],
    },
)
"""One single-variable comparison (A->B, …) on one probe and embedder."""

SeverityRule = TypedDict("SeverityRule", {"class": str, "branch": str, "text": NotRequired[str]})


class Flaky(TypedDict):
    """`run --repeat K`: the conditions compared and the records whose verdict changed."""

    conditions: NotRequired[list[str]]
    instances: NotRequired[list[str]]


class MutationSummary(TypedDict, total=False):
    """The mutation audit's scores (top-level `mutation`)."""

    basis: str | None
    unmeasured: str | None
    operators: list[str] | None
    control: JSONObject | None
    excluded_cases: list[Any] | None
    closed_book: JSONObject | None
    closed_book_reason: str | None
    scores: list[JSONObject] | None
    survivors: list[JSONObject] | None
    top_score_drop: JSONObject | None
    top_score_drop_reason: str | None
    mutants: list[JSONObject] | None


class ResultsFile(TypedDict):
    """The results file: a matrix run, a stack or pipeline column, `run --repeat`, and the
    mutation audit's file (`run.kind: mutate`) alike. A required field may hold null (a
    missing value), as the loader has always read it."""

    schema_version: int
    created_at: str | None
    complete: bool
    run: RunHeader | None
    corpus: Corpus | None
    configs: list[Config] | None
    embedders: list[Embedder] | None
    generator: NotRequired[JSONObject | None]
    models: list[Model] | None
    conditions: Conditions | None
    chunks: dict[str, Chunk] | None
    chunk_offsets: NotRequired[dict[str, dict[str, list[list[int]]]] | None]
    instances: list[InstanceRecord] | None
    cells: list[Cell] | None
    comparisons: list[Comparison] | None
    extra_measurements: NotRequired[JSONObject | None]
    control_certification: NotRequired[JSONObject | None]
    citation_rollup: NotRequired[dict[str, JSONObject] | None]
    severity_rules: NotRequired[list[SeverityRule] | None]
    grading_patterns: NotRequired[dict[str, list[str]] | None]
    analysis: NotRequired[JSONObject | None]
    flaky: NotRequired[Flaky | None]
    mutation: NotRequired[MutationSummary | None]
    closed_book: NotRequired[dict[str, JSONObject] | None]


class AuditFile(TypedDict):
    """`ragaudit audit`'s file (docs/audit-results.md)."""

    schema_version: int
    kind: str
    created_at: str | None
    complete: NotRequired[bool | None]
    argv: NotRequired[list[str] | None]
    corpus: NotRequired[JSONObject | None]
    cases_file: NotRequired[str | None]
    settings: JSONObject
    models: NotRequired[list[JSONObject] | None]
    structure: JSONObject
    index: NotRequired[JSONObject | None]
    index_reason: NotRequired[str | None]
    cases: list[JSONObject]
    intents: NotRequired[list[JSONObject] | JSONObject | None]
    summary: NotRequired[JSONObject | None]
    dilution: NotRequired[JSONObject | None]
    dilution_reason: NotRequired[str | None]
    conditions: NotRequired[JSONObject | None]


class JudgesScorecard(TypedDict):
    """`ragaudit judges`'s scorecard (docs/judges.md)."""

    kind: str
    schema_version: int
    created_at: NotRequired[str | None]
    complete: NotRequired[bool | None]
    source: NotRequired[JSONObject | None]
    judge: JSONObject
    metrics: list[JSONObject]
    sampling: JSONObject
    samples: list[JSONObject]
    evaluations: list[JSONObject]
    summary: JSONObject
    conditions: JSONObject


class DriftFile(TypedDict):
    """`ragaudit drift`'s file: each retrieval constant of both sides."""

    kind: str
    schema_version: int
    created_at: NotRequired[str | None]
    mode: NotRequired[str | None]
    production: NotRequired[str | None]
    evaluation: NotRequired[str | None]
    constants: list[JSONObject]
    summary: NotRequired[JSONObject | None]


class HarnessCheckFile(TypedDict):
    """`ragaudit harness-check`'s file: every finding at file:line."""

    kind: str
    schema_version: int
    created_at: NotRequired[str | None]
    paths: NotRequired[list[str] | None]
    files: NotRequired[list[str] | None]
    rules: NotRequired[JSONObject | list[Any] | None]
    findings: list[JSONObject]
    unused_waivers: NotRequired[list[JSONObject] | None]
    summary: NotRequired[JSONObject | None]


FILE_TYPES: dict[str | None, type] = {
    None: ResultsFile,
    "audit": AuditFile,
    "judges-scorecard": JudgesScorecard,
    "drift": DriftFile,
    "harness_check": HarnessCheckFile,
}
"""A document's `kind` field -> its type (None: the results file, which has no `kind`)."""
