"""The gate and flaky instances (`ragaudit run --repeat` marks a record whose answer verdict
changed between generation conditions): left out of the answer-correct cells, kept in the
gold-in-context cells (a rerun replays retrieval, so gold in context did not move), and
named in the log (capped), in the summary (all) and in the JUnit file (each cell's
system-out). Runs written by hand (tests/helpers/gate_fixtures.py): every count below is
counted from the lists here."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from helpers.gate_fixtures import gate_run, write_run

from ragaudit.cli.main import main

MARK = {"conditions": ["llama.cpp 2 threads", "llama.cpp 1 thread"], "verdicts": ["a", "b"]}


def _gate(capsys, tmp_path, before: dict, after: dict) -> tuple[int, str, ET.Element, str]:
    base = write_run(tmp_path / "base.json", before)
    new = write_run(tmp_path / "new.json", after)
    junit, summary = tmp_path / "gate.xml", tmp_path / "gate.md"
    argv = ["gate", "--baseline", str(base), "--results", str(new)]
    code = main([*argv, "--junit", str(junit), "--summary", str(summary)])
    out = capsys.readouterr().out
    return code, out, ET.parse(junit).getroot(), summary.read_text()


def _case(root: ET.Element, name: str) -> ET.Element:
    (case,) = [c for c in root.iter("testcase") if c.get("name") == name]
    return case


def test_a_record_flaky_on_its_answer_still_counts_in_its_gold_cell(capsys, tmp_path):
    before = gate_run({("superseded", "B"): [True] * 5}, measure="correct")
    after = gate_run({("superseded", "B"): [False, True, True, True, True]}, measure="correct")
    first = after["instances"][0]  # superseded-000: lost its gold and its answer, flaky
    first.update(gold_in_context=False, gold_rank=None, flaky=MARK)
    code, out, root, summary = _gate(capsys, tmp_path, before, after)
    # gold: 5/5 → 4/5, one loss, p = (1/2)^1 = 0.5; Holm over the two cells: sorted
    # (0.5, 1.0) → 2 × 0.5 = 1.0, then max(1.0, 1 × 1.0) = 1.0; drop 1/5 = 20 points > 10
    assert code == 1
    assert (
        "superseded:B (gold in context): 5/5 → 4/5; lost 1, gained 0; one-sided McNemar "
        "p = 0.5000 (Holm 1.0000), not significant at 0.05; drop 20 points > --max-drop 10: "
        "FAIL on --max-drop, not on significance"
    ) in out
    assert "lost superseded-000 (superseded, B): gold left the context (was rank 1, now " in out
    # answer correct: superseded-000 left out, 4/4 → 4/4
    assert "superseded:B (answer correct): 4/4 → 4/4; lost 0, gained 0;" in out
    assert (
        "1 flaky instance(s) left out of the answer-correct cells (the verdict changed "
        "between generation conditions; gold in context still paired):\n"
        "  flaky superseded-000 (superseded, B)\n"
    ) in out
    answer = _case(root, "superseded:B (answer correct)")
    assert answer.find("failure") is None
    assert answer.find("system-out").text.splitlines()[-1] == (
        "flaky, left out: superseded-000 (superseded, B)"
    )
    gold = _case(root, "superseded:B (gold in context)")
    assert gold.find("failure") is not None and "flaky" not in ET.tostring(gold, "unicode")
    assert "- `superseded-000` (superseded, B)" in summary.split("### Flaky instances")[1]


def test_the_log_names_ten_flaky_instances_and_counts_the_rest(capsys, tmp_path):
    before = gate_run({("superseded", "B"): [True] * 13}, measure="correct")
    after = gate_run({("superseded", "B"): [True] * 13}, measure="correct")
    for record in after["instances"][:12]:  # superseded-000 … -011 flaky, -012 not
        record["flaky"] = MARK
    code, out, root, summary = _gate(capsys, tmp_path, before, after)
    assert code == 0
    assert "superseded:B (answer correct): 1/1 → 1/1" in out
    listed = [line for line in out.splitlines() if line.startswith("  flaky ")]
    assert listed == [f"  flaky superseded-{i:03d} (superseded, B)" for i in range(10)]
    assert "  and 2 more (all in the summary and the JUnit file)" in out
    assert out.splitlines()[-1].endswith("; 12 flaky instance(s) left out")
    flaky_part = summary.split("### Flaky instances")[1].split("###")[0]
    assert flaky_part.count("- `superseded-0") == 12 and "`superseded-011`" in flaky_part
    text = _case(root, "superseded:B (answer correct)").find("system-out").text
    assert [line for line in text.splitlines() if line.startswith("flaky")] == [
        f"flaky, left out: superseded-{i:03d} (superseded, B)" for i in range(12)
    ]


def test_a_cell_all_flaky_is_a_skipped_case_naming_them(capsys, tmp_path):
    before = gate_run({("superseded", "B"): [True] * 3}, measure="correct")
    after = gate_run({("superseded", "B"): [False] * 3}, measure="correct")
    for record in after["instances"]:
        record["flaky"] = MARK
    code, out, root, _ = _gate(capsys, tmp_path, before, after)
    assert code == 0  # the gold cell, 3/3 → 3/3, is the only one gated
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("2", "0", "1")
    answer = _case(root, "superseded:B (answer correct)")
    assert answer.find("skipped").text == "not gated: all 3 paired instance(s) are flaky"
    assert answer.find("system-out").text.splitlines() == [
        f"flaky, left out: superseded-{i:03d} (superseded, B)" for i in range(3)
    ]
