"""Every kind of file ragaudit writes, as TypedDicts: the results file (a matrix run, a
stack or pipeline column, `run --repeat`, `ragaudit mutate`: one format) with its run
header, corpus, configs, embedders, models, conditions, cells and comparisons, and the
audit, judges, drift and harness-check files. Only types: the documents stay plain dicts.
results.schema_file generates the shipped JSON Schema from them, and the one loader checks
each file it reads against its kind's type. Fields a writer may leave out, or an older
version lacks, are NotRequired; a missing value is null."""

from typing import Any, NotRequired

from typing_extensions import TypedDict

from ragaudit.results.cell_sections import Cell, CitationRollup, Comparison, SeverityRule
from ragaudit.results.record_sections import JSONObject
from ragaudit.results.records import InstanceRecord


class ProbeCount(TypedDict):
    name: str
    layer: NotRequired[str | None]
    n: NotRequired[int | None]


class AnchorSelectivity(TypedDict, total=False):
    """How many chunks hold each question's anchor, at one chunking."""

    chunking: str | None
    chunks: int | None
    min: int | None
    median: float | None
    max: int | None
    single_chunk: int | None
    single_chunk_probes: list[str] | None
    questions: int | None


class Corpus(TypedDict, total=False):
    """What the run read: the planted corpus (seed, n, manifest sha) or a user's folder."""

    seed: int | None
    n: int | None
    sha256: str | None
    documents: int | None
    probes: list[ProbeCount] | None
    anchor_selectivity: AnchorSelectivity | None
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


class FailedCall(TypedDict, total=False):
    """Model calls that failed, with the records they cost."""

    model: str | None
    kind: str | None
    error: str | None
    instance_keys: list[str] | None


class FailureReason(TypedDict, total=False):
    model: str | None
    kind: str | None
    reason: str | None
    calls: int | None


class Session(TypedDict, total=False):
    """One computing session of a (resumed) run."""

    started_at: str | None
    seconds: float | None
    computed: int | None
    replayed: int | None
    contention_seen: int | None


class ContentionSeen(TypedDict, total=False):
    before: list[Any] | None
    after: list[Any] | None


class Conditions(TypedDict, total=False):
    """How the run went: its model calls, failures, contention and wall time."""

    calls: CallCounts | None
    calls_by_model: dict[str, CallCounts] | None
    failed_calls: list[FailedCall] | None
    failure_reasons: list[FailureReason] | None
    contention_detection_configured: bool | None
    contention_pattern_env: str | None
    contention_seen: ContentionSeen | None
    elapsed_seconds: float | None
    elapsed_seconds_reason: str | None
    sessions: list[Session] | None


class Chunk(TypedDict):
    """A retrieved (or oracle) chunk, with its text."""

    doc_id: NotRequired[str]
    chunking: NotRequired[str | None]
    index: NotRequired[int | None]
    start: NotRequired[int]
    end: NotRequired[int]
    text: NotRequired[str]
    span_exact: NotRequired[bool | None]


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


class GradingPatterns(TypedDict, total=False):
    """The regular expressions grading read replies with."""

    abstention: list[str] | None
    denial_of_record: list[str] | None


class WideTableSplit(TypedDict, total=False):
    """table_split at 4000 characters, outside the matrix."""

    chunking: str | None
    table_together: JSONObject | None
    records: list[JSONObject] | None


class ExtraMeasurements(TypedDict, total=False):
    table_split_4000: WideTableSplit | None


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
    extra_measurements: NotRequired[ExtraMeasurements | None]
    control_certification: NotRequired[JSONObject | None]
    citation_rollup: NotRequired[dict[str, CitationRollup] | None]
    severity_rules: NotRequired[list[SeverityRule] | None]
    grading_patterns: NotRequired[GradingPatterns | None]
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
