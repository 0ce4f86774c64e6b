"""Report sections about what could have caught a failure: single-variable comparisons,
detectability, the citation check and severity. Every figure is read from the results."""

from __future__ import annotations

from ragaudit.report.render import Block
from ragaudit.results import view
from ragaudit.results.format import NOT_RUN, fmt_p, fmt_ratio, percent
from ragaudit.results.swept_scores import NOT_MEASURED, score_label


def comparisons_section(results: dict) -> list[Block]:
    """Each single-variable comparison: both ends with intervals, gains, losses, McNemar p."""
    confidence = view.wilson_confidence(results)
    rows = []
    for c in results.get("comparisons") or []:
        n = c.get("n") or 0
        rows.append(
            [
                c.get("name"),
                c.get("variable"),
                c.get("probe"),
                c.get("embedder"),
                c.get("measure"),
                fmt_ratio(c.get("from_count", 0), n, c.get("from_wilson")),
                fmt_ratio(c.get("to_count", 0), n, c.get("to_wilson")),
                str(len(c.get("gains") or [])),
                str(len(c.get("losses") or [])),
                fmt_p(c.get("mcnemar_p")),
            ]
        )
    head = ["Comparison", "Variable", "Probe", "Embedder", "Measure", "From", "To"]
    return [
        ("h", 2, "Single-variable comparisons"),
        (
            "p",
            "Each row pairs the same instances under two configurations that differ in one "
            f"variable. Rates carry {percent(confidence)}% Wilson intervals; the exact "
            "McNemar p is computed on "
            "the discordant pairs (gains against losses).",
        ),
        ("table", [*head, "Gains", "Losses", "McNemar p"], rows),
    ]


def detectability_section(results: dict) -> list[Block]:
    """What a score threshold and a permutation test could tell failures from successes,
    each cell naming the score it swept; a hybrid cell's BM25 sweep in a table apart."""
    summary = (results.get("analysis") or {}).get("detectability") or {}
    total = (results.get("analysis") or {}).get("cells")
    cells = results.get("cells") or []
    blocks: list[Block] = [
        ("h", 2, "Detectability"),
        ("p", f"{_scores_sentence(summary)} {_detectability_counts(results, summary, total)}"),
        (
            "p",
            "The threshold is an in-sample diagnostic: it is fitted on the same instances it "
            "is scored against, with no holdout, so it is not a check a stack could deploy.",
        ),
    ]
    example = next((p for p in map(_permutation, cells) if p), None)
    if example:
        blocks.append(
            (
                "p",
                f"Permutation test: two-sided, difference of means, {example['reshuffles']} "
                f"reshuffles, seed {example['seed']}.",
            )
        )
    blocks.append(("table", _SWEEP_HEAD, _sweep_rows(cells, lambda det: det)))
    return blocks + _bm25_blocks(cells, summary.get("bm25"))


_SWEEP_HEAD = ["Probe", "Config", "Embedder", "Score", "Failures / successes", "Cut"]
_SWEEP_HEAD += ["Catches", "False positives", "Separable", "Mean score fail / pass", "p"]


def _permutation(cell: dict) -> dict | None:
    det = cell["detectability"]
    return det["permutation"] if det.get("measurable") else None


def _scores_sentence(summary: dict) -> str:
    """Which score the cells swept, each named and worded (an older file names one)."""
    scores = summary.get("scores")
    if scores is None:  # analysed before the score was named per cell
        name = summary.get("score")
        return f"Score: {name} ({score_label(name)})."
    named = "; ".join(
        f"{name} ({score_label(name)}) in {count}/{sum(scores.values())} cells"
        for name, count in scores.items()
    )
    return f"Each cell names the score it swept: {named}."


def _detectability_counts(results: dict, summary: dict, total: object) -> str:
    least = _min_class(results)
    return (
        f"Of {total} cells, {summary.get('measurable')} had at least {least} failures and "
        f"{least} successes and could be examined; {summary.get('not_measurable')} could "
        f"not, which is a different result from finding no signal. Separable by a score "
        f"threshold: {summary.get('separable')}/{summary.get('measurable')} examined cells. "
        f"Mean score differs between failures and successes at p < {summary.get('alpha')}: "
        f"{summary.get('significant')}/{summary.get('measurable')}."
    )


def _min_class(results: dict) -> object:
    for cell in results.get("cells") or []:
        return cell["detectability"].get("min_class_size")
    return None


def _sweep_rows(cells: list[dict], block_of) -> list[list[str]]:
    """One row per cell whose chosen sweep block was measurable, naming its score."""
    rows = []
    for cell in cells:
        det = block_of(cell["detectability"])
        if not det or not det.get("measurable"):
            continue
        th, perm = det["threshold"], det["permutation"]
        rows.append(
            [
                cell["probe"],
                cell["config"],
                cell["embedder"],
                str(det.get("score") or NOT_MEASURED),
                f"{det['failures']} / {det['successes']}",
                f"{th['cut']:.3f}",
                f"{th['catches']}/{th['failures']}",
                f"{th['false_positives']}/{th['successes']}",
                "yes" if th["separable"] else "no",
                f"{perm['mean_fail']:.3f} / {perm['mean_pass']:.3f}",
                fmt_p(perm["p_value"]),
            ]
        )
    return rows


def _bm25_blocks(cells: list[dict], summary: dict | None) -> list[Block]:
    """The hybrid cells' BM25 sweeps, apart: severity never reads them."""
    if not summary or not summary.get("cells"):
        return []
    rows = _sweep_rows(cells, lambda det: det.get("bm25"))
    return [
        ("h", 3, f"BM25 on hybrid cells ({score_label(summary.get('score'))})"),
        (
            "p",
            f"The same sweep on the top-ranked chunk's BM25 score, in "
            f"{summary['cells']} hybrid cells: {summary.get('measurable')} could be "
            f"examined; separable {summary.get('separable')}/{summary.get('measurable')}; "
            f"significant {summary.get('significant')}/{summary.get('measurable')}. "
            "Reported apart: no severity class reads it.",
        ),
        ("table", _SWEEP_HEAD, rows),
    ]


def citation_section(results: dict) -> list[Block]:
    """The citation check's outcomes over failures, per config."""
    keys = ["failures", "caught", "no_citation", "satisfied", "no_checkable_value"]
    keys += ["abstained", "not_applicable"]
    rows = [
        [config, *(str(counts.get(k, 0)) for k in keys)]
        for config, counts in (results.get("citation_rollup") or {}).items()
    ]
    return [
        ("h", 2, "The citation check"),
        (
            "p",
            "Does a chunk the reply cites contain the value the reply asserts? The check "
            "reads only the reply and the retrieved chunks, never the answer key. Counted "
            "over failures per configuration; an abstention is never counted as a catch.",
        ),
        ("table", ["Config", *keys], rows),
    ]


def severity_section(results: dict) -> list[Block]:
    """Each cell's severity class per embedder, the counts per class, and the rules."""
    layers = view.probe_layers(results)
    blocks: list[Block] = [("h", 2, "Severity")]
    for embedder in view.table_embedders(results):
        columns = view.matrix_columns(results, embedder)  # the user's stack beside the configs
        probes = view.column_probes(results, columns)
        cells = view.column_cells(results, probes, columns)
        rows = []
        for probe in probes:
            row = [probe, layers[probe]]
            for column in columns:
                cell = cells[(probe, column.label)]
                row.append(NOT_RUN if cell is None else cell["severity"]["class"])
            rows.append(row)
        mark = " (uncertified)" if view.uncertified(results, embedder) else ""
        headers = ["Probe", "Layer", *(c.label for c in columns)]
        blocks += [("h", 3, f"{embedder}{mark}"), ("table", headers, rows)]
    counts = (results.get("analysis") or {}).get("severity_counts") or {}
    total = (results.get("analysis") or {}).get("cells")
    per_class = ", ".join(f"{k} {v}/{total}" for k, v in counts.items())
    blocks.append(("p", f"Cells per class: {per_class}."))
    blocks.append(
        (
            "p",
            "The classes are assigned mechanically: one entry per branch of the assigning "
            "function, in the order the branches are tested. Each cell records its branch.",
        )
    )
    items = [f"**{r['class']}** ({r['branch']}) {r['text']}" for r in results["severity_rules"]]
    return blocks + [("ul", items)]
