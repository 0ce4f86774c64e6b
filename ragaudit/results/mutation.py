"""The read side of a mutation audit's file (`ragaudit mutate`, docs/mutate.md): its score
rows, the words for a mutant's status, the control row's sentence, the closed-book row, the
survivors, the mutants of an operator grouped by status, and whether two files pair by
mutant id. The report's mutation section and the inspector's mutation view both read the
`mutation` section through here, so they say the same thing in the same words. Nothing here
computes a score: every figure is the file's, written by results.format."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ragaudit.results.format import ABSENT, fmt_diagnostic, fmt_ratio

CONTROL = "control"
"""The control row's probe, and its entries' status."""

STATUS_ORDER = (
    "survived",
    "killed",
    "robust",
    "not_measured",
    "not_applicable",
    "excluded",
    "closed_book",
)
"""A mutant's statuses in the order its operator's list shows them: the survivors first."""

SCORED = ("killed", "survived")
"""The statuses a score counts: only these are applicable."""

NO_CONTEXT = "a source can rank without the chunk holding the answer"
"""Why the two control measures differ."""

SCORE_HEADER = [
    "operator",
    "killed / applicable (95% interval)",
    "robust (beside the score)",
    "not measured",
    "control row excluded",
    "not applicable",
]
"""The score table's columns; `ScoreRow.cells` fills them in this order."""

COUNT_WORDS = ("robust", "not measured", "control row excluded", "not applicable")
"""SCORE_HEADER's counts in short, for what stands beside a score."""

ALL_ROBUST = "— (every mutant it could make is robust: shown, not tried)"

_DIGITS = re.compile(r"\d[\d,.]*")


def status_words(status: str) -> str:
    """A status as a person reads it: `not_applicable` -> `not applicable`."""
    return status.replace("_", " ")


@dataclass(frozen=True)
class ScoreRow:
    """One operator's row of the score table, as the file records it."""

    operator: str
    score: float | None
    """killed / applicable; None where no mutant was scored."""
    shown: str
    """`46% 6/13 [23–71%]`, or `— (why there is no score)`."""
    robust: int
    not_measured: int
    unscored: int
    """Excluded by the control row: every phrasing failed unmutated, or was known closed book."""
    not_applicable: int
    not_applicable_text: str
    """The count, and by kind of reason when there are several."""

    def cells(self) -> list:
        """The row under SCORE_HEADER."""
        return [self.operator, self.shown, self.robust, self.not_measured, self.unscored,
                self.not_applicable_text]  # fmt: skip

    def counts(self) -> list[str]:
        """What stands beside the score: its counts that are not zero, in COUNT_WORDS
        (`1 robust`, `14 not measured`, `1 not applicable`)."""
        counts = (self.robust, self.not_measured, self.unscored, self.not_applicable)
        return [f"{n} {words}" for words, n in zip(COUNT_WORDS, counts, strict=True) if n]


def score_text(score: dict) -> str:
    """An operator's score: killed / applicable with its interval, or why there is none."""
    if score["applicable"]:
        return fmt_ratio(score["killed"], score["applicable"], score["wilson"])
    if score.get("robust") and not score.get("not_measured"):
        return ALL_ROBUST
    return f"— ({score['score_reason']})"


def score_row(score: dict) -> ScoreRow:
    """One `mutation.scores` entry as a row."""
    return ScoreRow(
        operator=score["operator"],
        score=score.get("score") if score["applicable"] else None,
        shown=score_text(score),
        robust=score.get("robust", 0),
        not_measured=score.get("not_measured", 0),
        unscored=score.get("excluded", 0) + score.get("closed_book", 0),
        not_applicable=score["not_applicable"],
        not_applicable_text=_not_applicable(score),
    )


def score_rows(section: dict) -> list[ScoreRow]:
    """Every operator's row, in the file's operator order."""
    return [score_row(score) for score in section.get("scores") or []]


def _not_applicable(score: dict) -> str:
    """The count, and by kind of reason when there are several ("two forms" is one)."""
    kinds = score.get("not_applicable_reasons") or {}
    if len(kinds) < 2:
        return str(score["not_applicable"])
    return f"{score['not_applicable']} ({'; '.join(f'{k}: {n}' for k, n in kinds.items())})"


def control_row(section: dict) -> str:
    """The control row in words: how many unmutated phrasings pass, then, when the file
    records them, both retrieval measures side by side: the answer span in the context
    (mutate's) and an expected source in the top k (the audit's)."""
    control = section["control"]
    cases = control["cases"]
    if section.get("unmeasured"):
        text = f"Control row: {cases} unmutated phrasings, not measured ({section['unmeasured']})."
    else:
        how = "answered correctly" if section["basis"] == "answer" else "answer span in context"
        passed = fmt_ratio(control["passed"], cases)
        text = f"Control row: {passed} unmutated phrasings pass ({how})."
    left = [f"{control[k]} {w}" for k, w in (
        ("failed_unmutated", "failed unmutated"), ("failed_call", "lost a call (not measured)"),
        ("known_without_context", "known without context (closed book)"),
    ) if control.get(k)]  # fmt: skip
    if left:
        text += f" Left out of their mutants' denominators: {', '.join(left)}."
    if "span_in_context" not in control and "source_in_top_k" not in control:
        return text  # a file from before both measures were recorded
    return (
        f"{text} {_of(control.get('span_in_context'), cases)} have the answer span in the "
        f"context (mutate's measure); {_of(control.get('source_in_top_k'), cases)} have an "
        f"expected source in the top k (audit's measure: {NO_CONTEXT})."
    )


def _of(count: int | None, cases: int) -> str:
    return f"{ABSENT} of {cases}" if count is None else f"{count} of {cases}"


def control_paragraph(section: dict) -> str:
    """The control row, then the phrasings it excluded from their mutants."""
    excluded = section.get("excluded_cases") or []
    named = f" Excluded from their mutants: {', '.join(excluded)}." if excluded else ""
    return control_row(section) + named


def closed_book_line(section: dict) -> str | None:
    """The closed-book row in one sentence, or why there is none; None when the file says
    nothing of it (a file from before the row)."""
    closed = section.get("closed_book")
    if closed:
        known = ", ".join(closed.get("wholly_known") or []) or "none"
        return (
            f"Closed-book row (each phrasing asked with no context by the run's generator): "
            f"{closed['summary']}. An intent known wholly leaves every mutant's denominator: "
            f"{known}."
        )
    if section.get("closed_book_reason"):
        return f"Closed-book row: {section['closed_book_reason']}."
    return None


def phrasing_text(survivor: dict, case: str) -> str:
    """A surviving phrasing, with its verdict and attribution when answers were graded."""
    verdict = (survivor.get("verdicts") or {}).get(case)
    if verdict is None:
        return case
    blame = (survivor.get("attributions") or {}).get(case)
    return f"{case} [{verdict}{f', {blame}' if blame else ''}]"


def survivor_text(survivor: dict) -> str:
    """`supersede/mileage-rate: mileage-rate/1 [trap_taken, generation] (rule)`."""
    phrasings = ", ".join(phrasing_text(survivor, c) for c in survivor["phrasings"])
    return f"{survivor['mutant']}: {phrasings} ({survivor['rule']})"


def why(status: str, reason: str | None) -> str:
    """A mutant's status and reason, the status said once."""
    said = status_words(status)
    return reason if (reason or "").startswith(said) else f"{said}: {reason}"


def unscored_by_reason(section: dict) -> list[str]:
    """The mutants outside every score, one line per operator, status and kind of reason
    (reasons that differ only in their figures are one kind; the first one's figures are
    shown): `table_split: not applicable: no table ... (12: a, b, ...)`."""
    names: dict[tuple[str, str, str], list[str]] = {}
    first: dict[tuple[str, str, str], str] = {}
    for mutant in section.get("mutants") or []:
        if mutant["status"] in ("not_applicable", "excluded", "robust", "not_measured"):
            key = (mutant["operator"], mutant["status"], _DIGITS.sub("#", mutant["reason"] or ""))
            first.setdefault(key, mutant["reason"])
            names.setdefault(key, []).append(mutant["mutant"].split("/", 1)[1])
    return [
        f"{op}: {why(status, first[op, status, kind])} ({len(listed)}: {', '.join(listed)})"
        for (op, status, kind), listed in names.items()
    ]


def top_score(value: float | None) -> str:
    """A top score or its drop, to three decimals; `n/a` for null."""
    return ABSENT if value is None else f"{value:.3f}"


def drop_summary(section: dict) -> str | None:
    """remove_answer's top score drop, summarised; None when the file records none."""
    summary = section.get("top_score_drop")
    if summary is None:
        return None
    if not summary["n"]:
        return f"Top score drop when the answer is removed: {ABSENT} ({summary['reason']})."
    return (
        f"Top score drop when the answer is removed (control row's top score minus the "
        f"remove_answer mutant's, same phrasing): mean {summary['mean']:.3f}, median "
        f"{summary['median']:.3f} over {summary['n']} phrasings that passed the control row."
    )


def drops_text(mutant: dict) -> str | None:
    """A remove_answer mutant's top score drop per phrasing, `a/1 0.185, a/2 0.180`; None
    for a mutant without recorded drops."""
    drops = {c: p["top_score_drop"] for c, p in (mutant.get("phrasings") or {}).items()
             if "top_score_drop" in p}  # fmt: skip
    if mutant["operator"] != "remove_answer" or not drops:
        return None
    return ", ".join(f"{c} {top_score(d)}" for c, d in drops.items())


def drop_text(mutant: dict) -> str | None:
    """One remove_answer mutant's drops with its id and status, as the report lists them."""
    shown = drops_text(mutant)
    return None if shown is None else f"{mutant['mutant']} ({mutant['status']}): {shown}"


def operator_mutants(section: dict, operator: str) -> dict[str, list[dict]]:
    """An operator's mutants by status, in STATUS_ORDER (a status no mutant has is left
    out), each list in the file's order."""
    grouped: dict[str, list[dict]] = {status: [] for status in STATUS_ORDER}
    for mutant in section.get("mutants") or []:
        if mutant["operator"] == operator and mutant["status"] != CONTROL:
            grouped.setdefault(mutant["status"], []).append(mutant)
    return {status: mutants for status, mutants in grouped.items() if mutants}


def survivors_by_mutant(section: dict) -> dict[str, dict]:
    """`mutation.survivors` by mutant id."""
    return {s["mutant"]: s for s in section.get("survivors") or []}


def mutant_text(mutant: dict, survivor: dict | None = None) -> str:
    """What a mutant's status rests on, in the report's words: a survivor's phrasings that
    let it through (with verdict and attribution where answers were graded), the phrasings
    that killed it, or its status with its reason."""
    status = mutant["status"]
    if status == "survived" and survivor is not None:
        lost = ", ".join(phrasing_text(survivor, c) for c in survivor["phrasings"])
        return f"let through by {lost}"
    if status == "killed":
        handled = [c for c, p in (mutant.get("phrasings") or {}).items()
                   if p.get("control_passed") and p.get("handled")]  # fmt: skip
        return f"handled by {', '.join(handled)}" if handled else status_words(status)
    if mutant.get("reason"):
        return why(status, mutant["reason"])
    return status_words(status)


def phrasing_of(mutant: dict, survivor: dict | None = None) -> str | None:
    """The phrasing a link to the mutant opens on: a survivor's first losing one, else its
    first recorded one; None when none was asked (not applicable)."""
    if survivor and survivor.get("phrasings"):
        return survivor["phrasings"][0]
    return next(iter(mutant.get("phrasings") or {}), None)


def variant(mutant_id: str) -> str:
    """The variant of an operator's several mutants of one intent (`boundary/x@1000` ->
    `1000`); empty when it has none."""
    return mutant_id.partition("@")[2]


def column_name(results: dict) -> str:
    """The audit's one column (its settings or stack file's name)."""
    return (next(iter(results.get("configs") or []), None) or {}).get("name") or "?"


def questions(results: dict) -> dict[str, str]:
    """The control row's phrasings: case id -> question (what the cases asked)."""
    return {
        r["instance_id"]: r["question"]
        for r in results.get("instances") or []
        if r.get("probe") == CONTROL
    }


def why_not_paired(a: dict, b: dict) -> str | None:
    """Why two mutation audits' mutants cannot be paired by mutant id (one line); None
    when they can: the same corpus (manifest sha256) and the same phrasings asked."""
    sha_a, sha_b = ((r.get("corpus") or {}).get("sha256") for r in (a, b))
    if not sha_a or sha_a != sha_b:
        return (
            f"other corpora (sha256 {str(sha_a)[:12]}… and {str(sha_b)[:12]}…): a mutant id "
            "does not name the same change in both"
        )
    asked_a, asked_b = questions(a), questions(b)
    if asked_a != asked_b:
        only = len(set(asked_a) ^ set(asked_b))
        reworded = sum(1 for c in set(asked_a) & set(asked_b) if asked_a[c] != asked_b[c])
        return (
            f"other cases ({only} phrasings in one file only, {reworded} asked in other "
            "words): a mutant's phrasings are not the same in both"
        )
    return None


def paired_reason(a: dict, b: dict) -> str:
    """Why two audits pair by mutant id, and what may still differ between two mutants of
    one id."""
    run_a, run_b = a.get("run") or {}, b.get("run") or {}
    seeds = (
        f" Their seeds differ ({run_a.get('seed')} and {run_b.get('seed')}): a shifted value "
        "may differ."
        if run_a.get("seed") != run_b.get("seed")
        else ""
    )
    return (
        f"the same corpus (sha256 {str((a.get('corpus') or {}).get('sha256'))[:12]}…) and "
        f"the same {len(questions(a))} phrasings (cases {run_a.get('cases_file')}). A mutant "
        "planted for a column's splitter (boundary, table_split) may differ in its text." + seeds
    )


def control_phrasings(results: dict) -> list[dict]:
    """The control row's phrasings, each with its control status and both retrieval
    measures: the answer span in the context (mutate's) and an expected source in the top
    k (the audit's); with generation, the graded verdict too."""
    status = {
        case: entry.get("control")
        for mutant in (results.get("mutation") or {}).get("mutants") or []
        if mutant["status"] == CONTROL
        for case, entry in (mutant.get("phrasings") or {}).items()
    }
    generated = bool((results.get("run") or {}).get("generate"))
    rows = []
    for record in results.get("instances") or []:
        if record.get("probe") != CONTROL:
            continue
        measures = record.get("mutation") or {}
        row = {
            "phrasing": record["instance_id"],
            "question": record.get("question"),
            "control": status_words(status.get(record["instance_id"]) or "not recorded"),
            "answer span in context": fmt_diagnostic("", record.get("gold_in_context")),
            "expected source in top k": fmt_diagnostic("", measures.get("source_in_top_k")),
            "top score": top_score(measures.get("top_score")),
        }
        if generated:
            row["verdict"] = (record.get("grade") or {}).get("verdict") or "not generated"
        rows.append(row)
    return rows


def closed_book_phrasings(results: dict) -> list[dict]:
    """Each phrasing asked with no context: its reply, verdict and whether it was known
    without context (`n/a` where the call failed)."""
    return [
        {
            "phrasing": case,
            "question": entry.get("question"),
            "reply": entry.get("reply"),
            "verdict": entry.get("verdict") or ABSENT,
            "known without context": fmt_diagnostic("", entry.get("known_without_context")),
            "error": entry.get("error") or "",
        }
        for case, entry in (results.get("closed_book") or {}).items()
    ]
