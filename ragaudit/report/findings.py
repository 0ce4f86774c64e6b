"""Report sections about what could have caught a failure: single-variable comparisons,
detectability, the citation check and severity. Every figure is read from the results."""

from __future__ import annotations

from ragaudit.report.render import Block
from ragaudit.results import view
from ragaudit.results.format import NOT_RUN, fmt_p, fmt_ratio, percent


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
    """What a score threshold and a permutation test could tell failures from successes."""
    summary = (results.get("analysis") or {}).get("detectability") or {}
    total = (results.get("analysis") or {}).get("cells")
    rows = []
    example = None
    for cell in results.get("cells") or []:
        det = cell["detectability"]
        if not det.get("measurable"):
            continue
        th, perm = det["threshold"], det["permutation"]
        example = example or perm
        rows.append(
            [
                cell["probe"],
                cell["config"],
                cell["embedder"],
                f"{det['failures']} / {det['successes']}",
                f"{th['cut']:.3f}",
                f"{th['catches']}/{th['failures']}",
                f"{th['false_positives']}/{th['successes']}",
                "yes" if th["separable"] else "no",
                f"{perm['mean_fail']:.3f} / {perm['mean_pass']:.3f}",
                fmt_p(perm["p_value"]),
            ]
        )
    blocks: list[Block] = [
        ("h", 2, "Detectability"),
        (
            "p",
            f"Score: {summary.get('score')}. Of {total} cells, {summary.get('measurable')} "
            f"had at least {_min_class(results)} failures and {_min_class(results)} successes "
            f"and could be examined; {summary.get('not_measurable')} could not, which is a "
            f"different result from finding no signal. Separable by a score threshold: "
            f"{summary.get('separable')}/{summary.get('measurable')} examined cells. Mean "
            f"score differs between failures and successes at p < {summary.get('alpha')}: "
            f"{summary.get('significant')}/{summary.get('measurable')}.",
        ),
        (
            "p",
            "The threshold is an in-sample diagnostic: it is fitted on the same instances it "
            "is scored against, with no holdout, so it is not a check a stack could deploy.",
        ),
    ]
    if example:
        blocks.append(
            (
                "p",
                f"Permutation test: two-sided, difference of means, {example['reshuffles']} "
                f"reshuffles, seed {example['seed']}.",
            )
        )
    head = ["Probe", "Config", "Embedder", "Failures / successes", "Cut", "Catches"]
    head += ["False positives", "Separable", "Mean score fail / pass", "p"]
    return blocks + [("table", head, rows)]


def _min_class(results: dict) -> object:
    for cell in results.get("cells") or []:
        return cell["detectability"].get("min_class_size")
    return None


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
    cells = view.cell_index(results)
    configs = view.config_names(results)
    layers = view.probe_layers(results)
    blocks: list[Block] = [("h", 2, "Severity")]
    for embedder in view.embedder_specs(results):
        rows = []
        for probe in view.probes_for(results, embedder):
            row = [probe, layers[probe]]
            for config in configs:
                cell = cells.get((probe, config, embedder))
                row.append(NOT_RUN if cell is None else cell["severity"]["class"])
            rows.append(row)
        mark = " (uncertified)" if view.uncertified(results, embedder) else ""
        blocks += [("h", 3, f"{embedder}{mark}"), ("table", ["Probe", "Layer", *configs], rows)]
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
