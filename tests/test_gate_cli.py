"""`ragaudit gate`: the verdict a team's CI sees, on runs written by hand
(tests/helpers/gate_fixtures.py: every count below is counted from the lists here) and on
the shipped n=25 reference, whose boundary row under B and A_prime is the issue's real
regression: 24/25 → 19/25, six lost (boundary-000, -001, -003, -004, -005, -006) and one
gained (boundary-010). One-sided exact McNemar: P(X >= 6 | n = 7) = (C(7,6) + C(7,7)) / 2^7
= 8/128 = 0.0625, not significant at 0.05; the drop is 5/25 = 20 points, over 10.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from helpers.gate_fixtures import gate_run, write_run

from ragaudit.cli.main import main
from ragaudit.results.reference import REFERENCE_FILE

REF = str(REFERENCE_FILE)
ALL5, NONE5 = [True] * 5, [False] * 5


def gate(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["gate", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def files(tmp_path, before: dict, after: dict) -> list[str]:
    base = write_run(tmp_path / "base.json", before)
    new = write_run(tmp_path / "new.json", after)
    return ["--baseline", str(base), "--results", str(new)]


def test_the_real_regression_fails_on_max_drop_not_on_significance(capsys, tmp_path):
    junit = tmp_path / "gate.xml"
    args = ["--baseline", REF, "--results", REF, "--pair", "B=A_prime", "--cells", "boundary:B"]
    code, out, _ = gate(capsys, *args, "--junit", str(junit))
    assert code == 1
    assert (
        "boundary:B → A_prime (gold in context): 24/25 → 19/25; lost 6, gained 1; one-sided "
        "McNemar p = 0.0625 (Holm 0.0625), not significant at 0.05; drop 20 points > "
        "--max-drop 10: FAIL on --max-drop, not on significance"
    ) in out
    for lost in ("000", "001", "003", "004", "005", "006"):
        assert f"lost boundary-{lost} (boundary, A_prime): gold left the context (was rank" in out
    assert "boundary-010" not in out.split("lost boundary")[-1].split("\n")[0]
    assert out.splitlines()[-1].startswith("ragaudit gate: FAIL: 1 of 1 cells lost")
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite.get("tests") == "1" and suite.get("failures") == "1"
    assert "boundary-004" in suite.find("testcase/failure").text


def test_a_wider_max_drop_lets_the_same_regression_pass(capsys):
    args = ["--baseline", REF, "--results", REF, "--pair", "B=A_prime", "--cells", "boundary:B"]
    code, out, _ = gate(capsys, *args, "--max-drop", "20")
    assert code == 0
    assert "drop 20 points <= --max-drop 20: pass" in out
    assert out.splitlines()[-1].startswith("ragaudit gate: PASS: 1 cells")


def test_all_five_lost_at_n5_is_significant_and_the_power_says_so(capsys, tmp_path):
    args = files(
        tmp_path, gate_run({("boundary", "C"): ALL5}), gate_run({("boundary", "C"): NONE5})
    )
    code, out, _ = gate(capsys, *args, "--max-drop", "100")
    assert code == 1
    # 5 losses, 0 gains: (1/2)^5 = 0.03125, shown to four decimals
    assert "lost 5, gained 0; one-sided McNemar p = 0.0313 (Holm 0.0313), significant" in out
    assert "FAIL on significance" in out
    # power: d^5 >= 0.8, d = 0.8 ** (1/5) = 0.956
    assert "95.6 points (each of the 5 baseline passes lost with probability 0.956" in out
    assert "(only losing all of them is significant)" in out


def test_four_of_five_lost_is_not_significant(capsys, tmp_path):
    before = gate_run({("boundary", "C"): ALL5})
    after = gate_run({("boundary", "C"): [True, False, False, False, False]})
    code, out, _ = gate(capsys, *files(tmp_path, before, after), "--max-drop", "100")
    assert code == 0
    assert "one-sided McNemar p = 0.0625" in out  # (1/2)^4


def test_holm_over_two_cells_doubles_the_smaller_p(capsys, tmp_path):
    cells_before = {("boundary", "C"): ALL5, ("distractor", "C"): ALL5}
    cells_after = {("boundary", "C"): NONE5, ("distractor", "C"): NONE5}
    args = files(tmp_path, gate_run(cells_before), gate_run(cells_after))
    code, out, _ = gate(capsys, *args, "--max-drop", "100")
    # each p = 1/32; Holm: 2 * 1/32 = 0.0625 for the first, max(0.0625, 1/32) for the second
    assert code == 0
    assert out.count("one-sided McNemar p = 0.0313 (Holm 0.0625), not significant") == 2


def test_a_control_cell_fails_on_any_drop(capsys, tmp_path):
    before = gate_run({("control", "C"): [True] * 25})
    after = gate_run({("control", "C"): [False] + [True] * 24})
    code, out, _ = gate(capsys, *files(tmp_path, before, after))
    assert code == 1
    assert "drop 4 points <= --max-drop 10; a control cell dropped: FAIL on the control rule" in out


def test_a_lost_answer_says_it_became_the_trap_value(capsys, tmp_path):
    before = gate_run({("superseded", "B"): ALL5}, measure="correct")
    after = gate_run({("superseded", "B"): [False, True, True, True, True]}, measure="correct")
    code, out, _ = gate(capsys, *files(tmp_path, before, after))
    assert code == 1  # 20 points
    assert (
        "lost superseded-000 (superseded, B): the answer became the trap value: '12 months' "
        "(grader branch trap_taken:12)"
    ) in out


def test_a_pair_of_configs_is_gated_and_named(capsys, tmp_path):
    before = gate_run({("boundary", "B"): ALL5})
    after = gate_run({("boundary", "A_prime"): ALL5})
    code, out, _ = gate(capsys, *files(tmp_path, before, after), "--pair", "B=A_prime")
    assert code == 0
    assert "boundary:B → A_prime (gold in context): 5/5 → 5/5; lost 0, gained 0" in out


def test_other_documents_are_refused_and_nothing_written(capsys, tmp_path):
    before = gate_run({("boundary", "C"): ALL5})
    after = gate_run({("boundary", "C"): ALL5}, documents=["doc-000", "doc-001"])
    junit, summary = tmp_path / "out" / "gate.xml", tmp_path / "out" / "gate.md"
    args = files(tmp_path, before, after)
    code, out, err = gate(capsys, *args, "--junit", str(junit), "--summary", str(summary))
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "the indexed documents differ (A 6 documents, B 2 documents; 4 only in A" in err
    assert not junit.exists() and not summary.exists()


def test_the_reference_against_a_small_run_is_refused(capsys):
    small = "tests/data/behaviour_n1.json"
    code, _, err = gate(capsys, "--baseline", REF, "--results", small)
    assert code == 2
    assert "the indexed documents differ (A 638 documents, B 26 documents" in err


def test_other_weights_are_the_change_under_test(capsys, tmp_path):
    before = gate_run({("boundary", "C"): ALL5})
    after = gate_run({("boundary", "C"): ALL5}, digest="e" * 64)
    code, out, _ = gate(capsys, *files(tmp_path, before, after))
    assert code == 0
    assert (
        "Change under test: local:minilm has other weights in the baseline (dddddddddddd…) "
        "than in the new run (eeeeeeeeeeee…): this is the change under test; instances are "
        "paired by id.\n"
    ) in out
    assert "unpaired" not in out


def test_a_flaky_instance_is_left_out_and_listed(capsys, tmp_path):
    before = gate_run({("superseded", "C"): ALL5}, measure="correct")
    after = gate_run({("superseded", "C"): [False, True, True, True, True]}, measure="correct")
    after["instances"][0]["flaky"] = {"verdicts": ["correct", "trap_taken"]}
    summary = tmp_path / "gate.md"
    code, out, _ = gate(capsys, *files(tmp_path, before, after), "--summary", str(summary))
    assert code == 0  # the one loss was flaky: 4/4 → 4/4
    assert "superseded:C (answer correct): 4/4 → 4/4; lost 0" in out
    assert "1 flaky instance(s) left out" in out
    assert "- `superseded-000` (superseded, C)" in summary.read_text().split("Flaky instances")[1]


def test_the_step_summary_gets_the_markdown(capsys, tmp_path, monkeypatch):
    step = tmp_path / "step.md"
    step.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step))
    before = gate_run({("boundary", "C"): ALL5, ("control", "C"): ALL5})
    after = gate_run({("boundary", "C"): ALL5, ("control", "C"): ALL5})
    junit = tmp_path / "gate.xml"
    code, _, _ = gate(capsys, *files(tmp_path, before, after), "--junit", str(junit))
    assert code == 0
    text = step.read_text()
    assert text.startswith("earlier step\n## ragaudit gate")
    assert "| boundary:C (gold in context) | 100% 5/5 | 100% 5/5 | 0 | 0 |" in text
    names = [c.get("name") for c in ET.parse(junit).getroot().iter("testcase")]
    assert names == ["boundary:C (gold in context)", "control:C (gold in context)"]


def test_bad_flags_are_one_line_exit_2(capsys, tmp_path):
    args = files(tmp_path, gate_run({("boundary", "C"): ALL5}), gate_run({("boundary", "C"): ALL5}))
    for extra, words in (
        (["--alpha", "0"], "--alpha '0': give a number in (0, 0.5]"),
        (["--alpha", "nan"], "--alpha 'nan'"),
        (["--max-drop", "-1"], "--max-drop '-1': give a number in [0, 100]"),
        (["--cells", "boundary"], "--cells 'boundary': write PROBE:CONFIG"),
        (["--cells", "boundry:C"], "did you mean 'boundary'?"),
        (["--cells", "boundary:Q"], "unknown config with a paired boundary cell 'Q'"),
        (["--pair", "C=Z"], "unknown config in run B 'Z'"),
    ):
        code, out, err = gate(capsys, *args, *extra)
        assert code == 2, extra
        assert words in err and len(err.strip().splitlines()) == 1, (extra, err)


def test_the_thread_count_and_the_prompt_are_reported_as_the_change(capsys, tmp_path):
    before = gate_run({("superseded", "B"): ALL5}, measure="correct")
    after = gate_run({("superseded", "B"): ALL5}, measure="correct")
    qwen = {"spec": "local:qwen2.5-1.5b", "kind": "generator", "digest": "q" * 64}
    before["models"].append({**qwen, "llm_threads": 2, "prefix_reuse": True})
    after["models"].append({**qwen, "llm_threads": 1, "prefix_reuse": True})
    for i, record in enumerate(after["instances"]):
        record["generation"]["prompt_sha256"] = "p" if i < 2 else "same"
    for record in before["instances"]:
        record["generation"]["prompt_sha256"] = "same"
    code, out, _ = gate(capsys, *files(tmp_path, before, after))
    assert code == 0
    assert "Change under test: local:qwen2.5-1.5b: llama.cpp threads 2 → 1" in out
    assert "Change under test: the prompt changed in 2 of 5 records generated in both" in out
    assert "prefix reuse" not in out


def test_an_output_that_is_an_input_is_refused(capsys, tmp_path, monkeypatch):
    args = files(tmp_path, gate_run({("boundary", "C"): ALL5}), gate_run({("boundary", "C"): ALL5}))
    base = tmp_path / "base.json"
    before = base.read_bytes()
    for extra in (["--junit", str(base)], ["--summary", str(tmp_path / "." / "new.json")]):
        code, out, err = gate(capsys, *args, *extra)
        assert code == 2 and out == "" and "writing it would replace the input" in err
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(base))
    code, _, err = gate(capsys, *args)
    assert code == 2 and "GITHUB_STEP_SUMMARY" in err
    assert base.read_bytes() == before
