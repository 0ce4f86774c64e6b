"""The sections of an instance record, as TypedDicts: what retrieval measures (flat on the
record), and the nested objects generation, grading, the oracle, the mutation audit, a
user's pipeline and `run --repeat` add. Records stay plain dicts (a TypedDict is only a
type); results.records puts the sections together and results.schema_file turns them into
the shipped JSON Schema. Every field a stage may leave out is NotRequired, and a missing
value is null, so each optional field is `X | None`. docs/results-schema.md says what each
field means; tests/test_results_schema_doc.py keeps the two in step."""

from typing import Any, NotRequired

from typing_extensions import TypedDict

JSONObject = dict[str, Any]
"""An object whose fields this schema leaves open (a probe's facts, a grading spec)."""


class Span(TypedDict):
    """A stretch of one document: a gold answer, a trap, or an extra (a table header)."""

    doc_id: NotRequired[str]
    start: NotRequired[int]
    end: NotRequired[int]
    text: NotRequired[str]
    role: NotRequired[str | None]


class RetrievedHit(TypedDict):
    """One chunk of a record's top k, best first."""

    chunk_id: NotRequired[str]
    doc_id: NotRequired[str | None]
    rank: NotRequired[int]
    score: NotRequired[float | None]
    dense_score: NotRequired[float | None]
    bm25_score: NotRequired[float | None]
    start: NotRequired[int | None]
    end: NotRequired[int | None]
    span_exact: NotRequired[bool | None]


class Hops(TypedDict):
    """multihop: which of the two hops' chunks were retrieved."""

    mapping: NotRequired[bool | None]
    answer: NotRequired[bool | None]


class RetrievalFields(TypedDict, total=False):
    """What the retrieval stage measures, flat on the record; null where the probe has
    none or retrieval failed (`diagnostics_reason` then says why)."""

    retrieved: list[RetrievedHit] | None
    retrieval_error: str | None
    diagnostics_reason: str | None
    gold_in_context: bool | None
    span_preserved: bool | None
    span_preserved_reason: str | None
    gold_rank: int | None
    gold_rank_reason: str | None
    gold_score: float | None
    trap_rank: int | None
    trap_score: float | None
    margin: float | None
    header_in_answer_chunk: bool | None
    table_together: bool | None
    hops: Hops | None
    items_in_context: int | None
    crowding_margin: float | None
    affirmative_first: bool | None
    anchor_selectivity: int | None


class Usage(TypedDict, total=False):
    """The tokens a prompt cost when it was computed (embedded llama.cpp models only)."""

    prompt_tokens: int | None
    prompt_tokens_evaluated: int | None
    generated_tokens: int | None
    warm_up_tokens_evaluated: int | None


class Generation(TypedDict):
    """One generator call: the reply, or why there is none."""

    generator: NotRequired[str | None]
    prompt_sha256: NotRequired[str | None]
    status: NotRequired[str]
    """`ok` or `failed_call`."""
    reply: NotRequired[str | None]
    error: NotRequired[str | None]
    citations: NotRequired[list[str] | None]
    citation_labels: NotRequired[dict[str, str] | None]
    replayed: NotRequired[bool | None]
    usage: NotRequired[Usage | None]


class Grade(TypedDict):
    """The grader's verdict on a reply."""

    verdict: NotRequired[str]
    correct: NotRequired[bool | None]
    branch: NotRequired[str | None]
    items_named: NotRequired[list[str] | None]
    labels_named: NotRequired[list[str] | None]


class CitationCheck(TypedDict):
    """Whether the chunks a reply cites hold the values it asserts."""

    outcome: NotRequired[str]
    detail: NotRequired[str | None]
    flagged: NotRequired[bool | None]
    missing_values: NotRequired[list[Any] | None]


class Oracle(TypedDict):
    """The same prompt over only the chunks holding the gold spans."""

    chunk_ids: NotRequired[list[str]]
    generation: NotRequired[Generation | None]
    grade: NotRequired[Grade | None]


class AnswerFields(TypedDict, total=False):
    """What generation, grading and analysis add to a record (null where not run)."""

    generation: Generation | None
    grade: Grade | None
    citation_check: CitationCheck | None
    oracle: Oracle | None
    attribution: str | None
    """`correct`, `retrieval`, `generation`, `ceiling` or `failed_call`."""
    ceiling: str | None


class MutationMark(TypedDict):
    """A mutation audit's record: its mutant and whether the column handled it."""

    mutant: NotRequired[str]
    measure: NotRequired[str]
    source_in_top_k: NotRequired[bool | None]
    top_score: NotRequired[float | None]
    nothing_retrieved: NotRequired[bool | None]
    gold_ranked_above_trap: NotRequired[bool | None]
    header_and_row_in_context: NotRequired[bool | None]
    handled_retrieval: NotRequired[bool | None]
    handled: NotRequired[bool | None]
    sentence_reached_whole: NotRequired[bool | None]
    top_score_drop: NotRequired[float | None]
    top_score_drop_reason: NotRequired[str | None]


class PipelineContext(TypedDict):
    """One context a user's pipeline returned, located in the documents where it could be."""

    rank: NotRequired[int]
    chunk_id: NotRequired[str | None]
    span_exact: NotRequired[bool | None]
    id: NotRequired[str | None]
    score: NotRequired[float | None]
    text: NotRequired[str | None]


class PipelineAnswer(TypedDict):
    """What a user's pipeline returned for a record: its contexts in its own order."""

    contexts: NotRequired[list[PipelineContext]]
    unmatched: NotRequired[int | None]
    citations: NotRequired[list[str] | None]


class FlakyMark(TypedDict):
    """`run --repeat K`: the record's verdict under each condition, where they differ."""

    conditions: NotRequired[list[str]]
    verdicts: NotRequired[list[str | None]]
