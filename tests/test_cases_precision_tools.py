"""The hand-reading tools of benchmarks/cases_precision: an unread draw leaves out every
case a judged file holds, and carry copies a verdict only to the identical case."""

from __future__ import annotations

import yaml

from benchmarks.cases_precision.__main__ import main


def _intent(name: str, answer: str, phrasings: list[str]) -> dict:
    source = {"doc_id": f"man/{name}", "sentence": f"{name} defaults to {answer}."}
    return {"intent": name, "answer": answer, "anchor": name, "phrasings": phrasings,
            "provenance": {"source": source}}  # fmt: skip


def _write(path, document) -> None:
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")


def test_an_unread_draw_and_carried_verdicts(tmp_path):
    cases = tmp_path / "cases.yaml"
    intents = [_intent(f"opt{i}", str(i * 10), [f"default opt{i}?", f"opt{i} default?"])
               for i in range(5)]  # fmt: skip
    _write(cases, {"intents": intents})
    judged = tmp_path / "judged.yaml"
    read = [  # opt0 and opt1 as drawn; opt2 with other phrasings: another case
        {"intent": "opt0", "source": "man/opt0", "answer": "0",
         "phrasings": ["default opt0?", "opt0 default?"], "valid": True, "failed": [],
         "why": "stated"},
        {"intent": "opt1", "source": "man/opt1", "answer": "10",
         "phrasings": ["default opt1?", "opt1 default?"], "valid": False, "failed": ["right"],
         "why": "another value"},
        {"intent": "opt2", "source": "man/opt2", "answer": "20",
         "phrasings": ["what is opt2?", "opt2?"], "valid": True, "failed": [], "why": "x"},
    ]  # fmt: skip
    _write(judged, {"judgements": read})

    unread = tmp_path / "unread.yaml"
    assert main(["draw", str(cases), "--n", "40", "--out", str(unread),
                 "--unread", str(judged)]) == 0  # fmt: skip
    drawn = yaml.safe_load(unread.read_text(encoding="utf-8"))
    assert sorted(e["intent"] for e in drawn["judgements"]) == ["opt2", "opt3", "opt4"]
    assert drawn["draw"]["of"] == 3

    everything = tmp_path / "all.yaml"
    assert main(["draw", str(cases), "--n", "40", "--out", str(everything)]) == 0
    assert main(["carry", str(everything), "--from", str(judged)]) == 0
    carried = {e["intent"]: e for e in yaml.safe_load(everything.read_text())["judgements"]}
    assert carried["opt1"]["valid"] is False and carried["opt1"]["carried_from"] == "judged.yaml"
    assert carried["opt0"]["valid"] is True
    assert carried["opt2"]["valid"] is None and "carried_from" not in carried["opt2"]


def test_a_summary_of_several_judged_files_is_each_then_pooled(tmp_path, capsys):
    def verdict(name: str, valid: bool) -> dict:
        return {"intent": name, "valid": valid, "failed": [] if valid else ["right"],
                "why": "w"}  # fmt: skip

    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    _write(first, {"judgements": [verdict("x", True), verdict("y", False)]})
    _write(second, {"judgements": [verdict("z", True), verdict("w", True)]})
    assert main(["summary", str(first), str(second)]) == 0
    out = capsys.readouterr().out
    assert f"{first}: valid: 50% 1/2" in out and f"{second}: valid: 100% 2/2" in out
    assert "pooled: valid 75% 3/4" in out  # 1 + 2 of 2 + 2
