"""What `ragaudit cases` prints: the counts of a cases file, read from the file's own
`counts` and `generated_by` (the inspector's Cases page shows the same figures)."""

from __future__ import annotations

from ragaudit.results.format import fmt_ratio


def cases_lines(document: dict) -> list[str]:
    """The kept cases against the facts checked, the known-without-context share, the
    rejections per reason and the unverified facts, each with its denominator."""
    counts, made = document["counts"], document["generated_by"]
    corpus = made["corpus"]
    languages = ", ".join(f"{code} {n}" for code, n in made.get("languages", {}).items())
    generator = made["generator"]["spec"] if made.get("generator") else "none (--no-generate)"
    lines = [
        f"cases: {counts['kept']} kept of {counts['checked']} facts checked "
        f"({fmt_ratio(counts['kept'], counts['checked'])}); {counts['candidates']} facts mined "
        f"from {corpus['documents']} documents ({languages}); generator {generator}, seed "
        f"{made['seed']}",
        f"known without context: {fmt_ratio(counts['known_without_context'], counts['kept'])} "
        "of the kept cases (labelled known_without_context: they say little about retrieval)",
    ]
    if counts["rejected"]:
        reasons = ", ".join(f"{reason} {n}" for reason, n in counts["rejected"].items())
        lines.append(f"rejected: {sum(counts['rejected'].values())} ({reasons})")
    if counts.get("beyond_max"):
        lines.append(
            f"beyond --max: {counts['beyond_max']} more facts passed in the last batch, not "
            "written (a larger --max keeps them, replayed from the call cache)"
        )
    if counts["unverified"]:
        lines.append(
            f"unverified: {counts['unverified']} facts lost a generator call (listed under "
            "unverified:, never intents)"
        )
    return lines
