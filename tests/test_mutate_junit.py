"""`ragaudit mutate --junit`: the XML a CI system reads, one test case per mutant (the
control row is none): a survivor fails naming the phrasings that let it through; a mutant
not applicable, excluded by the control row, or not measured is skipped with its reason;
only a killed mutant passes."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ragaudit.mutation.junit import write_mutation_junit


def _mutant(operator: str, intent: str, status: str, reason: str | None = None) -> dict:
    return {"mutant": f"{operator}/{intent}", "operator": operator, "intent": intent,
            "status": status, "reason": reason, "rule": f"rule of {intent}",
            "diff": f"--- {intent}\n+++ {intent}~{operator}\n"}  # fmt: skip


RESULTS = {
    "mutation": {
        "mutants": [
            _mutant("control", "leave", "control"),
            _mutant("supersede", "leave", "killed"),
            _mutant("supersede", "rate", "survived"),
            _mutant("table_split", "leave", "not_applicable", "the answer is not in a table row"),
            _mutant("remove_answer", "leave", "not_measured", "no answer without generation"),
            _mutant("dilute", "rate", "excluded", "every phrasing failed unmutated"),
        ],
        "survivors": [{"mutant": "supersede/rate", "phrasings": ["rate/1", "rate/2"]}],
    }
}


def test_each_mutant_is_one_case_a_survivor_fails_and_the_unmeasured_are_skipped(tmp_path):
    path = tmp_path / "mutate.xml"
    write_mutation_junit(path, RESULTS)
    root = ET.parse(path).getroot()
    (suite,) = root.findall("testsuite")
    # five mutants besides the control: one failure, three skipped
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("5", "1", "3")
    cases = {(c.get("classname"), c.get("name")): c for c in suite.findall("testcase")}
    assert list(cases) == [
        ("mutate.supersede", "leave"), ("mutate.supersede", "rate"),
        ("mutate.table_split", "leave"), ("mutate.remove_answer", "leave"),
        ("mutate.dilute", "rate"),
    ]  # fmt: skip
    killed = cases["mutate.supersede", "leave"]
    assert killed.find("failure") is None and killed.find("skipped") is None
    failure = cases["mutate.supersede", "rate"].find("failure")
    assert failure.get("type") == "survived"
    assert failure.get("message") == "survived: rate/1, rate/2 (rule of rate)"
    skipped = {key: case.find("skipped") for key, case in cases.items()}
    assert skipped["mutate.table_split", "leave"].text == "the answer is not in a table row"
    assert skipped["mutate.remove_answer", "leave"].text == "no answer without generation"
    assert skipped["mutate.dilute", "rate"].text == "every phrasing failed unmutated"
    assert cases["mutate.remove_answer", "leave"].find("failure") is None
