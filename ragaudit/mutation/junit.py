"""`ragaudit mutate --junit FILE`: one JUnit test case per mutant; a survivor fails, naming
the phrasings that let it through; a mutant that does not apply, whose phrasings all failed
unmutated or were known without context (closed book), or that no measure could grade (not
measured) is skipped with the reason; a killed mutant passes, and so does a robust credit
(shown, not tried: its detail says so)."""

from __future__ import annotations

from pathlib import Path

from ragaudit.report.junit import TestCase, write_junit


def mutant_cases(results: dict) -> list[TestCase]:
    """The test cases of a mutation results document, in operator then intent order."""
    section = results["mutation"]
    survivors = {s["mutant"]: s for s in section["survivors"]}
    cases = []
    for mutant in section["mutants"]:
        if mutant["status"] == "control":
            continue
        name, classname = mutant["mutant"].split("/", 1)[1], f"mutate.{mutant['operator']}"
        if mutant["status"] in ("not_applicable", "excluded", "not_measured", "closed_book"):
            reason = mutant["reason"] or mutant["status"].replace("_", " ")
            cases.append(TestCase(name, classname, skipped=reason))
        elif mutant["mutant"] in survivors:
            lost = survivors[mutant["mutant"]]["phrasings"]
            cases.append(TestCase(
                name, classname, failure=f"survived: {', '.join(lost)} ({mutant['rule']})",
                failure_type="survived", detail=mutant["diff"],
            ))  # fmt: skip
        elif mutant["status"] == "robust":
            cases.append(TestCase(name, classname, detail=f"robust: {mutant['reason']}"))
        else:
            cases.append(TestCase(name, classname, detail=mutant["rule"]))
    return cases


def write_mutation_junit(path: Path | None, results: dict) -> None:
    """Write the JUnit file when asked (`--junit`)."""
    if path is not None:
        write_junit(path, "ragaudit mutate", mutant_cases(results))
