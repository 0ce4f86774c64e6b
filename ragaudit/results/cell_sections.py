"""The analysis stage's part of the results file, as TypedDicts: cells (their measures,
detectability, severity and citation check), comparisons, the citation rollup and the
severity rules. Only types (results.documents puts them in the file); every field an older
file or a cell that did not run lacks is NotRequired, a missing value null."""

from typing import NotRequired

from typing_extensions import TypedDict

from ragaudit.results.record_sections import JSONObject


class CitationRollup(TypedDict, total=False):
    """Citation-check outcomes counted over a config's generated records."""

    caught: int | None
    satisfied: int | None
    no_citation: int | None
    no_checkable_value: int | None
    abstained: int | None
    failures: int | None
    not_applicable: int | None


class GainKinds(TypedDict, total=False):
    preservation: int | None
    ranking: int | None


class Measure(TypedDict):
    """count/n, the rate and its Wilson 95% interval."""

    count: NotRequired[int]
    n: NotRequired[int]
    rate: NotRequired[float | None]
    wilson: NotRequired[list[float] | None]


class CellMeasures(TypedDict, total=False):
    """A cell's measures by name, each null with a sibling `<name>_reason` string when it
    could not be measured (a stage that did not run leaves it out)."""

    gold_in_context: Measure | None
    span_preserved: Measure | None
    correct: Measure | None
    abstained: Measure | None
    trap_taken: Measure | None
    empty: Measure | None
    failed_call: Measure | None
    retrieval_failed_call: Measure | None
    labels_only: Measure | None
    partial_list: Measure | None
    denied_record: Measure | None
    wrong: Measure | None


class Threshold(TypedDict, total=False):
    """The in-sample score cut that best separates a cell's failures from its successes."""

    cut: float | None
    catches: int | None
    failures: int | None
    false_positives: int | None
    successes: int | None
    separable: bool | None
    label: str | None
    criterion: str | None


class Permutation(TypedDict, total=False):
    """The permutation test of the failures' and successes' mean scores."""

    p_value: float | None
    reshuffles: int | None
    seed: int | None
    mean_fail: float | None
    mean_pass: float | None


class SweepPoint(TypedDict, total=False):
    cut: float | None
    catches: int | None
    false_positives: int | None


class Detectability(TypedDict, total=False):
    """Whether a cell's failures could be told apart by a retrieval score."""

    measurable: bool | None
    reason: str | None
    score: str | None
    min_class_size: int | None
    failures: int | None
    successes: int | None
    unscored: int | None
    unscored_reason: str | None
    threshold: Threshold | None
    permutation: Permutation | None
    sweep: list[SweepPoint] | None
    by_instance: dict[str, JSONObject] | None
    bm25: JSONObject | None


class Cell(TypedDict):
    """One probe × config × embedder: its measures and how detectable its failures are."""

    probe: str
    layer: NotRequired[str | None]
    config: str
    embedder: str
    n: NotRequired[int | None]
    measures: CellMeasures
    generated: NotRequired[bool | None]
    failure_basis: NotRequired[str | None]
    failures: NotRequired[int | None]
    successes: NotRequired[int | None]
    detectability: NotRequired[Detectability | None]
    severity: NotRequired[JSONObject | None]
    citation_check: NotRequired[CitationRollup | None]
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
        "gain_kinds": NotRequired[GainKinds | None],
        "gain_kind_by_instance": NotRequired[dict[str, str] | None],
        "mcnemar_p": NotRequired[float | None],
        "mcnemar_p_reason": NotRequired[str | None],
        "from_wilson": NotRequired[list[float] | None],
        "to_wilson": NotRequired[list[float] | None],
    },
)
"""One single-variable comparison (A->B, …) on one probe and embedder."""

SeverityRule = TypedDict("SeverityRule", {"class": str, "branch": str, "text": NotRequired[str]})
