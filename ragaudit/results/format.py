"""How a figure read from a results file is written for a person. The report, every
inspector page and the audit's table call these, so one cell reads the same everywhere.

The rounding rule: a rate becomes a whole percentage from the decimal number as it is
written in the results file, rounded half up. 5/8 = 0.625 reads 63%, 1/8 = 0.125 reads
13%, 2/3 reads 67%. Not Python's `round` or `:.0%`: those round a half to even and work
on the binary float, so they print 62% and 12%.

Absent values: a measure recorded as null (the file gives the reason beside it) reads
`n/a`; a retrieval measure of a probe with no gold span (unanswerable) reads `n/a: no gold
to retrieve`, since retrieval ran; a cell, or a stage of it, that did not run reads `not run`.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from ragaudit.results.schema import ATTRIBUTIONS, RETRIEVAL_MEASURES
from ragaudit.results.view import cell_attribution, cell_measure, measure_ran

ABSENT = "n/a"
"""A measure, rate or p-value the results file records as null."""
NOT_RUN = "not run"
"""A cell, or the stage that fills a measure, that did not run."""
NO_GOLD = "n/a: no gold to retrieve"
"""A retrieval measure (gold in context, span preserved) of a cell whose probe has no gold
span: retrieval ran, and there was nothing for it to find."""


def _as_written(value: float) -> Decimal:
    # The shortest decimal that is the same float: what the JSON file holds, so 0.835
    # rounds from 0.835 and not from the binary 0.83499999…
    return Decimal(repr(float(value)))


def percent(rate: float) -> int:
    """A rate as a whole percentage, halves rounded up: 0.625 -> 63, 0.245 -> 25."""
    return int(_as_written(rate).scaleb(2).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def fmt_interval(wilson: list | tuple | None) -> str:
    """A recorded interval as `[31–86%]`; `n/a` when none is recorded."""
    if not wilson:
        return ABSENT
    low, high = wilson
    return f"[{percent(low)}–{percent(high)}%]"


def fmt_ratio(count: int, n: int, wilson: list | tuple | None = None) -> str:
    """`76% 19/25`, with ` [57–89%]` after it when an interval is given; `n/a 0/0` for n = 0."""
    if not n:
        return f"{ABSENT} {count}/{n}"
    text = f"{percent(count / n)}% {count}/{n}"
    return f"{text} {fmt_interval(wilson)}" if wilson else text


def fmt_measure(measure: dict | None, *, interval: bool = False) -> str:
    """A recorded measure as `63% 5/8` (with its Wilson interval when asked); `n/a` for null."""
    if measure is None:
        return ABSENT
    wilson = measure.get("wilson") if interval else None
    return fmt_ratio(measure["count"], measure["n"], wilson)


def fmt_count(measure: dict | None) -> str:
    """A recorded measure as its count over its n alone, `2/5` (where a percentage does not
    fit, e.g. inside a bar segment); `n/a` for null."""
    if measure is None:
        return ABSENT
    return f"{measure['count']}/{measure['n']}"


def fmt_cell(cell: dict | None, measure: str, *, interval: bool = False) -> str:
    """One probe x config cell of one measure: `not run` when the cell, or the stage that
    fills the measure, did not run; `n/a: no gold to retrieve` for a retrieval measure the
    cell records as null (its probe has no gold span); else `fmt_measure` of the record."""
    if cell is None or not measure_ran(cell, measure):
        return NOT_RUN
    recorded = cell_measure(cell, measure)
    if recorded is None and measure in RETRIEVAL_MEASURES:
        return NO_GOLD
    return fmt_measure(recorded, interval=interval)


def fmt_p(p: float | None) -> str:
    """A p-value to four decimals (halves up, as rates), `< 0.0001` below that; `n/a` for null."""
    if p is None:
        return ABSENT
    if p < 0.0001:
        return "< 0.0001"
    return str(_as_written(p).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP))


NOT_MEASURED = "not measured in this file"
"""A field the results file predates."""


def fmt_window(entry: dict | None) -> str:
    """One (embedder, chunking) index's chunks against the embedder's input window, e.g.
    `3 of 796 chunks of recursive-1000-0 exceed local:minilm's 256-token window; only
    their first 256 tokens are embedded (longest: 310 tokens)`. `entry` is a `run.indexes`
    entry (or the audit's `index`); one that predates the window fields reads
    `not measured in this file`."""
    unmeasured = entry and "over_window" in entry and entry["over_window"] is None
    if not unmeasured and (not entry or "window_basis" not in entry):
        named = [entry.get(k) for k in ("embedder", "chunking") if (entry or {}).get(k)]
        where = f"{' on '.join(named)}: " if named else ""
        return f"{where}input window {NOT_MEASURED}"
    spec, chunking, window = entry["embedder"], entry["chunking"], entry.get("window_tokens")
    if unmeasured:  # e.g. a stack whose own retriever embeds the chunks itself
        return (
            f"{entry['chunks']} chunks of {chunking} not measured against {spec}'s input "
            f"window: {entry.get('over_window_reason') or 'no reason recorded'}"
        )
    estimated = entry["window_basis"] == "estimated"
    count = f"{'an estimated ' if estimated else ''}{entry['over_window']} of {entry['chunks']}"
    verb = "exceeds" if entry["over_window"] == 1 else "exceed"
    text = f"{count} chunks of {chunking} {verb} {spec}'s {window}-token window"
    if entry["over_window"]:
        text += "; " + _past_window(entry["window_overflow"], window, entry["over_window"])
    text += f" (longest: {entry['longest_tokens']} tokens"
    if estimated:
        text += ", counted with another model's tokenizer"
    return text + ")"


def _past_window(overflow: str, window: int, over: int) -> str:
    if overflow == "truncated":
        return f"only {'its' if over == 1 else 'their'} first {window} tokens are embedded"
    if overflow == "windowed":
        return f"each is embedded whole as the mean of {window}-token windows, diluting it"
    return "what the model does past its window is not recorded"


def fmt_chunk_window(tokens: int, entry: dict) -> str:
    """One chunk past its embedder's window, for a list of retrieved chunks:
    `310 tokens, over the 256-token window: only the first 256 embedded`."""
    estimated = " (estimated)" if entry.get("window_basis") == "estimated" else ""
    window = entry["window_tokens"]
    rest = {
        "truncated": f"only the first {window} embedded",
        "windowed": f"embedded as the mean of {window}-token windows",
    }.get(entry.get("window_overflow"), "what happens past it is not recorded")
    return f"{tokens} tokens{estimated}, over the {window}-token window: {rest}"


def fmt_attribution(cell: dict | None) -> str:
    """A cell's failure attribution in one line, every count over the cell's n:
    `retrieval 40% 2/5, generation 20% 1/5, ceiling 20% 1/5, correct 20% 1/5, failed_call
    0% 0/5`; `not run` where generation did not run on the cell, `not measured in this file`
    where the file predates oracle contexts."""
    if cell is None or not cell.get("generated"):
        return NOT_RUN
    attribution = cell_attribution(cell)
    if attribution is None:
        return NOT_MEASURED
    return ", ".join(f"{name} {fmt_measure(attribution.get(name))}" for name in ATTRIBUTIONS)


APPROXIMATE_SPAN = "approximate span"
"""The tag of a stack chunk whose text its splitter rewrote, so its start/end are the
best alignment in its document rather than an exact match."""


def fmt_approximate_spans(counted: tuple[int, int | None] | None, chunking: str) -> str:
    """A stack chunking's approximate spans over its chunks, e.g. `Approximate spans: 3%
    4/120 chunks of stack-mine (its splitter rewrote their text; each is placed at its best
    alignment)`; `not measured in this file` when the count is not recorded."""
    if counted is None or counted[1] is None:
        return f"approximate spans of {chunking}: {NOT_MEASURED}"
    count, n = counted
    why = (
        "its splitter rewrote their text; each is placed at its best alignment"
        if count
        else "every chunk's text is found exactly in its document"
    )
    return f"Approximate spans: {fmt_ratio(count, n)} chunks of {chunking} ({why})"


def fmt_approximate_boxes(approximate: int, drawn: int) -> str:
    """The drawn chunks of one document with an approximate span, e.g. `approximate span:
    29% 2/7 chunks drawn (hatched, ≈) ...`."""
    return (
        f"{APPROXIMATE_SPAN}: {fmt_ratio(approximate, drawn)} chunks drawn (hatched, ≈): the "
        "stack's splitter rewrote their text, so each is placed at its best alignment in the "
        "document, not exactly"
    )


def fmt_stack_certification(verdict: dict | None, embedder: str) -> str:
    """What the controls recorded about a stack's embedder, which may not be the one whose
    table its column stands in."""
    if verdict is None:
        return f"No controls are recorded under {embedder}: nothing certifies its cells."
    if verdict.get("certified"):
        return f"The controls certify {embedder}."
    return f"The controls do not certify {embedder} ({verdict.get('reason') or 'no reason'})."


def fmt_lab_refusal(stack: str, embedder: str) -> str:
    """The Lab's one line for a stack config: it cannot re-run the user's splitter."""
    return (
        f"{embedder} is stack config {stack}'s embedder: the Lab re-cuts the corpus with "
        "ragaudit's chunkers only, so a stack config is not re-run here (open its cells on "
        "the Matrix and Instance pages)."
    )


def _fmt_args(args: dict | None) -> str:
    return ", ".join(f"{key}={value!r}" for key, value in (args or {}).items())


def fmt_stack_component(field: str, component: dict | None, default: str) -> str:
    """One component of a stack file as the report names it: a splitter or retriever as its
    import path with its arguments (`…SentenceSplitter(chunk_size=512)`), an embedder or
    generator as its spec with its endpoint and the NAME of its key's variable (never the
    key). `default` says what runs when the file names none."""
    if not component:
        return f"{field}: {default}"
    if field in ("splitter", "retriever"):
        path = component.get("class") or component.get("factory")
        return f"{field}: `{path}({_fmt_args(component.get('args'))})`"
    text = f"{field}: {component.get('spec')}"
    if component.get("base_url"):
        text += f" at {component['base_url']}"
    if component.get("api_key_env"):
        text += f", API key read from ${component['api_key_env']}"
    return text


def fmt_digest(digest: str | None) -> str:
    """A sha256 as a person reads it beside a name: its first 12 hex digits and an
    ellipsis; the file's own word when it has none (`unavailable`), else NOT_MEASURED."""
    if not digest:
        return NOT_MEASURED
    return digest if len(digest) <= 12 else f"{digest[:12]}…"


def _sessions(conditions: dict) -> str:
    """What an elapsed time covers when a resumed run summed it: ` (the wall time of 3
    computing sessions, summed)`; nothing for one session or a file that does not say."""
    sessions = conditions.get("sessions") or []
    if len(sessions) < 2:
        return ""
    return f" (the wall time of {len(sessions)} computing sessions, summed)"


def fmt_elapsed(conditions: dict) -> str:
    """`Elapsed: 150.0 seconds.`, or why it was withheld (a run that replayed calls it did
    not compute would claim time it never spent)."""
    elapsed = conditions.get("elapsed_seconds")
    if elapsed is None:
        reason = conditions.get("elapsed_seconds_reason") or "no reason recorded"
        return f"Elapsed time withheld: {reason}."
    return f"Elapsed: {elapsed} seconds{_sessions(conditions)}."


def fmt_contention(conditions: dict) -> str:
    """Whether other load on the machine was looked for, and what was seen before and after;
    `not measured in this file` where the run did not record it (a mutation audit)."""
    if "contention_detection_configured" not in conditions:
        return f"Contention detection: {NOT_MEASURED}."
    seen = conditions.get("contention_seen") or {}
    configured = "yes" if conditions.get("contention_detection_configured") else "no"
    return (
        f"Contention detection configured: {configured}"
        f" (pattern from {conditions.get('contention_pattern_env')}); seen before: "
        f"{', '.join(seen.get('before') or []) or 'nothing'}; after: "
        f"{', '.join(seen.get('after') or []) or 'nothing'}."
    )


def fmt_model_calls(conditions: dict) -> str:
    """The run's model calls: `Model calls: 3 replayed from cache, 117 computed, 2 failed.`
    A resumed run's counts are its last session's (the earlier sessions' work replays in
    it), so they are followed by what each computing session computed:
    ` Over its 3 computing sessions: 4,460 computed (2,130 + 1,842 + 488).`"""
    calls = conditions.get("calls") or {}
    line = (
        f"Model calls: {calls.get('replayed')} replayed from cache, "
        f"{calls.get('computed')} computed, {calls.get('failed')} failed."
    )
    computed = _computed_per_session(conditions)
    if not computed:
        return line
    each = " + ".join(f"{n:,}" for n in computed)
    return (
        f"Model calls in its last session: {line.removeprefix('Model calls: ')} Over its "
        f"{len(computed)} computing sessions: {sum(computed):,} computed ({each})."
    )


def fmt_model_calls_brief(conditions: dict) -> str:
    """The Matrix header's short form: `model calls: replayed 120, computed 30, failed 1`;
    for a resumed run, what its computing sessions computed, not its last session's
    replays of them: `model calls: 4,783 computed over 7 sessions, failed 0`."""
    calls = conditions.get("calls") or {}
    computed = _computed_per_session(conditions)
    if not computed:
        return (
            f"model calls: replayed {calls.get('replayed')}, computed {calls.get('computed')}, "
            f"failed {calls.get('failed')}"
        )
    total, failed = sum(computed), calls.get("failed")
    return f"model calls: {total:,} computed over {len(computed)} sessions, failed {failed}"


def _computed_per_session(conditions: dict) -> list[int]:
    """The calls each computing session of a resumed run computed; empty for a run of one
    session, whose `calls` already say it all."""
    sessions = conditions.get("sessions") or []
    return [int(s.get("computed") or 0) for s in sessions] if len(sessions) >= 2 else []


def fmt_generation_tokens(counts: dict | None) -> str:
    """What generation cost in tokens (run.generation_counts): `Generation: 782 distinct
    prompts; 1,204,311 prompt tokens, 610,002 of them evaluated (51% 610002/1204311; the rest
    reused from the previous prompt's prefix); 41,873 generated (measured for 782 of 782
    prompts).`; NOT_MEASURED where the file has no token counts or none were measured."""
    tokens = (counts or {}).get("tokens") or {}
    measured, prompts = tokens.get("prompts_measured") or 0, (counts or {}).get("prompts")
    if not measured:
        return f"Generation tokens: {NOT_MEASURED}."
    total, evaluated = tokens["prompt_tokens"], tokens["prompt_tokens_evaluated"]
    return (
        f"Generation: {prompts} distinct prompts; {total:,} prompt tokens, {evaluated:,} of "
        f"them evaluated ({fmt_ratio(evaluated, total)}; the rest reused from the previous "
        f"prompt's prefix); {tokens['generated_tokens']:,} generated{_warm_up(tokens)} "
        f"(measured for {measured} of {prompts} prompts)."
    )


def _warm_up(tokens: dict) -> str:
    warm_up = tokens.get("warm_up_tokens_evaluated") or 0
    if not warm_up:
        return ""
    where = "where a run resumed or a worker took over"
    return f"; {warm_up:,} more evaluated to rebuild reuse segments {where}"


NOT_RETRIEVED = "not retrieved"
"""A gold rank the record leaves null: no chunk holding a gold span was ranked."""
NO_VALUE = "—"
"""A diagnostic the record leaves null (the probe has none, or nothing to measure)."""


def fmt_diagnostic(name: str, value: object) -> str:
    """A record's diagnostic as a person reads it: `yes`/`no` for a boolean, `not retrieved`
    for a null gold rank, `—` for any other null, a score to three decimals, a per-hop
    dict as `mapping: no, answer: yes`."""
    if value is None:
        return NOT_RETRIEVED if name == "gold_rank" else NO_VALUE
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, dict):
        return ", ".join(f"{key}: {fmt_diagnostic(key, item)}" for key, item in value.items())
    return str(value)
