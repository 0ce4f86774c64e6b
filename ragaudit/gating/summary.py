"""The gate's words: the one-line verdict, each cell's reasoning (counts, p, drop, what it
could have detected) and the Markdown summary for a pull-request comment. Every figure the
gate shows is formatted here (rates and p through results.format)."""

from __future__ import annotations

from ragaudit.gating.power import POWER, Detectable
from ragaudit.gating.verdict import CONTROL, MAX_DROP, SIGNIFICANT, CellVerdict, GateVerdict
from ragaudit.results.format import fmt_p, fmt_ratio


def fmt_points(points: float) -> str:
    """A drop in percentage points, one decimal when not whole: `20`, `-4`, `95.6`."""
    rounded = round(points, 1)
    return f"{rounded:g}"


def fmt_detectable(found: Detectable) -> str:
    """The smallest drop a cell could detect, and why."""
    need, alpha = found.losses_needed, found.alpha
    rule = f"{need} losses with no gains: one-sided p = (1/2)^{need} = {fmt_p(0.5**need)}"
    if found.d is None:
        return (
            f"no drop can be significant at alpha {alpha:g}: that needs {rule}, and only "
            f"{found.passes} of {found.n} instances pass in the baseline"
        )
    only_all = " (only losing all of them is significant)" if need == found.passes else ""
    return (
        f"smallest drop detectable with {POWER:.0%} power: {fmt_points(found.points)} points "
        f"(each of the {found.passes} baseline passes lost with probability {found.d:.3f}; "
        f"significance at {alpha:g} needs {rule}){only_all}"
    )


def fmt_reasoning(verdict: CellVerdict, alpha: float, max_drop: float) -> str:
    """`24/25 → 19/25; lost 6, gained 1; one-sided McNemar p = 0.0625 (Holm 0.0625), not
    significant at 0.05; drop 20 points > --max-drop 10: FAIL on --max-drop`."""
    cell = verdict.cell
    significant = "significant" if SIGNIFICANT in verdict.reasons else "not significant"
    drop = fmt_points(verdict.drop_points)
    over = ">" if MAX_DROP in verdict.reasons else "<="
    parts = [
        f"{cell.passes_before}/{cell.n} → {cell.passes_after}/{cell.n}",
        f"lost {len(cell.losses)}, gained {len(cell.gains)}",
        f"one-sided McNemar p = {fmt_p(verdict.p)} (Holm {fmt_p(verdict.p_holm)}), "
        f"{significant} at {alpha:g}",
        f"drop {drop} points {over} --max-drop {fmt_points(max_drop)}",
    ]
    if CONTROL in verdict.reasons:
        parts.append("a control cell dropped")
    if not verdict.failed:
        return "; ".join(parts) + ": pass"
    on = {SIGNIFICANT: "significance", CONTROL: "the control rule", MAX_DROP: "--max-drop"}
    fails_on = " and ".join(on[r] for r in verdict.reasons)
    if SIGNIFICANT not in verdict.reasons:
        fails_on += ", not on significance"
    return "; ".join(parts) + f": FAIL on {fails_on}"


def one_line(verdict: GateVerdict) -> str:
    """The verdict in one line, for the CI log's last line."""
    total, failed = len(verdict.cells), verdict.failed
    flaky = f"; {len(verdict.flaky)} flaky instance(s) left out" if verdict.flaky else ""
    if failed:
        first = failed[0]
        more = f" and {len(failed) - 1} more" if len(failed) > 1 else ""
        return (
            f"ragaudit gate: FAIL: {len(failed)} of {total} cells lost "
            f"({first.cell.name}: {', '.join(first.reasons)}{more}){flaky}"
        )
    return (
        f"ragaudit gate: PASS: {total} cells, none lost significantly at alpha "
        f"{verdict.alpha:g} (Holm), no control dropped, no drop over "
        f"{fmt_points(verdict.max_drop)} points; {_could_not_see(verdict)}{flaky}"
    )


def _could_not_see(verdict: GateVerdict) -> str:
    """What the pass could not have seen: the cells where no drop can be significant, and
    the range of the others' smallest detectable drops."""
    points = [cv.detectable.points for cv in verdict.cells]
    seen = [p for p in points if p is not None]
    blind = len(points) - len(seen)
    parts = [f"in {blind} cell(s) no drop could be significant"] if blind else []
    if seen:
        low, high = fmt_points(min(seen)), fmt_points(max(seen))
        span = low if low == high else f"{low}–{high}"
        parts.append(f"smallest drop detectable with {POWER:.0%} power {span} points")
    return ", ".join(parts)


FLAKY_SHOWN = 10
"""Flaky instances named in the log; the rest are counted (the summary lists them all)."""


def flaky_lines(verdict: GateVerdict, shown: int = FLAKY_SHOWN) -> list[str]:
    """The flaky instances left out, by id, probe and config; the first `shown`, then how
    many more."""
    flaky = verdict.flaky
    if not flaky:
        return []
    lines = [
        f"{len(flaky)} flaky instance(s) left out of the answer-correct cells (the verdict "
        "changed between generation conditions; gold in context still paired):"
    ]
    lines += [f"  flaky {x}" for x in flaky[:shown]]
    if len(flaky) > shown:
        lines.append(f"  and {len(flaky) - shown} more (all in the summary and the JUnit file)")
    return lines


def cell_lines(verdict: GateVerdict) -> list[str]:
    """Per cell: its reasoning, then what it could have detected."""
    lines = []
    for cv in verdict.cells:
        lines.append(f"{cv.cell.name}: {fmt_reasoning(cv, verdict.alpha, verdict.max_drop)}")
        lines.append(f"  {fmt_detectable(cv.detectable)}")
        lines += [f"  lost {x.instance_id} ({x.probe}, {x.config}): {x.change}" for x in cv.lost]
    return lines


def _row(cv: CellVerdict, verdict: GateVerdict) -> str:
    cell = cv.cell
    found = cv.detectable
    can_see = "none possible" if found.points is None else f"{fmt_points(found.points)} pts"
    cells = [
        cell.name,
        fmt_ratio(cell.passes_before, cell.n),
        fmt_ratio(cell.passes_after, cell.n),
        str(len(cell.losses)),
        str(len(cell.gains)),
        fmt_p(cv.p),
        fmt_p(cv.p_holm),
        fmt_points(cv.drop_points),
        can_see,
        "**fail**: " + ", ".join(cv.reasons) if cv.failed else "pass",
    ]
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def header_lines(verdict: GateVerdict) -> list[str]:
    """The two files gated, as the summary names them."""
    return [f"baseline: `{verdict.baseline}`", f"new: `{verdict.results}`"]


def log_lines(verdict: GateVerdict) -> list[str]:
    """What `ragaudit gate` prints: the notes, each cell's reasoning, the flaky instances
    and the one-line verdict last."""
    return [*verdict.notes, *cell_lines(verdict), *flaky_lines(verdict), one_line(verdict)]


def markdown(verdict: GateVerdict) -> str:
    """The summary for a pull-request comment (and $GITHUB_STEP_SUMMARY)."""
    out = ["## ragaudit gate", "", f"**{one_line(verdict)}**", ""]
    out += [f"- {line}" for line in [*header_lines(verdict), *verdict.notes]] + [""]
    out += [
        "| cell | baseline | new | lost | gained | one-sided p | Holm p | drop (pts) "
        f"| detectable at {POWER:.0%} power | verdict |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    out += [_row(cv, verdict) for cv in verdict.cells] + [""]
    lost = [cv for cv in verdict.cells if cv.lost]
    if lost:
        out += ["### Lost instances", ""]
        for cv in sorted(lost, key=lambda c: not c.failed):
            out += [f"- `{x.instance_id}` ({x.probe}, {x.config}): {x.change}" for x in cv.lost]
        out.append("")
    if verdict.flaky:
        out += ["### Flaky instances (left out of the answer-correct cells)", ""]
        out += [f"- `{x.instance_id}` ({x.probe}, {x.config})" for x in verdict.flaky] + [""]
    out += ["### Reasoning", "", "```", *cell_lines(verdict), "```", ""]
    return "\n".join(out)
