"""The case file and the structural check that runs before anything is embedded."""

from __future__ import annotations

import json

import pytest

from ragaudit.auditing.cases import check_sources, check_structure, load_cases, normalise_question
from ragaudit.cli.main import main
from ragaudit.errors import RagauditError

CASES = """\
intents:
  - intent: death-benefit
    expect: [statutes/estate]
    phrasings:
      - id: formal
        q: Is a life insurance benefit payable to a named beneficiary part of the estate?
      - id: casual
        q: After the client dies, does the death benefit get taxed as estate?
  - intent: tools
    expect: [statutes/estate]
    phrasings:
      - q: Are a decedent's professional tools excluded from the estate?
      - id: sentinel
        q: "  death benefit -- after the client DIES, does the death benefit get taxed as estate "
"""


SENTINEL = (
    'q: "  death benefit -- after the client DIES, does the death benefit get taxed as estate "'
)


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_normalised_questions_fold_case_punctuation_and_spacing():
    assert normalise_question("Does it COUNT,  toward the estate?") == normalise_question(
        "does it count toward the estate"
    )
    assert normalise_question("Does it count?") != normalise_question("Does it count now?")


def test_duplicate_phrasing_is_fatal_naming_both_cases(tmp_path):
    text = CASES.replace(
        SENTINEL,
        'q: "after the client DIES,  does the death benefit get taxed as ESTATE"',
    )
    cases = load_cases(write(tmp_path, "cases.yaml", text))
    report = check_structure(cases)
    assert report.fatal
    assert [(a.case_id, b.case_id) for a, b in report.duplicates] == [
        ("death-benefit/casual", "tools/sentinel")
    ]
    lines = report.fatal_lines(tmp_path / "cases.yaml")
    assert "case death-benefit/casual (line 8) and case tools/sentinel (line 14)" in lines[1]
    assert lines[-1].strip() == "cases.yaml has 4 entries but only 3 distinct phrasings."


def test_duplicate_check_runs_before_the_corpus_is_read(tmp_path, ragaudit_home, capsys):
    text = CASES.replace(
        SENTINEL,
        "q: Is a life insurance benefit payable to a named beneficiary part of the estate",
    )
    cases = write(tmp_path, "cases.yaml", text)
    # The corpus does not even exist: the structural check must fail first, and loudly.
    status = main(["audit", str(tmp_path / "no-corpus"), str(cases)])
    err = capsys.readouterr().err
    assert status == 2
    assert "[fatal] duplicate phrasings in the case list, the coverage is fake:" in err
    assert "case death-benefit/formal (line 6) and case tools/sentinel (line 14)" in err
    assert "cases.yaml has 4 entries but only 3 distinct phrasings." in err


def test_single_phrasing_intent_is_flagged_not_fatal(tmp_path):
    text = (
        CASES
        + "  - intent: deadline\n    expect: [guides/deadline]\n    phrasings: [When is it due]\n"
    )
    report = check_structure(load_cases(write(tmp_path, "cases.yaml", text)))
    assert not report.fatal
    assert report.single_phrasing_intents == ["deadline"]
    assert (report.entries, report.distinct) == (5, 5)


def test_json_case_file_is_accepted(tmp_path):
    data = {
        "intents": [{"intent": "a", "expect_any": ["x", "y"], "phrasings": [{"q": "one?"}, "two?"]}]
    }
    cases = load_cases(write(tmp_path, "cases.json", json.dumps(data, indent=1)))
    assert [c.case_id for c in cases] == ["a/1", "a/2"]
    assert cases[1].expect_any == ("x", "y") and cases[1].expect_all == ()


@pytest.mark.parametrize(
    "text, expected",
    [
        ("intents:\n  - intent: a\n    phrasings:\n      - q: [unclosed\n", "line 5: invalid YAML"),
        (
            "intents:\n  - intent: a\n    expect: [x]\n    phrasings:\n      - q: fine\n"
            "        expcet: [y]\n",
            "line 6: field intents[0].phrasings[0].expcet: unknown field",
        ),
        (
            "intents:\n  - intent: a\n    expect: [x]\n    phrasings:\n      - id: b\n",
            "line 5: field intents[0].phrasings[0].q: Field required",
        ),
        (
            "intents:\n  - intent: a\n    phrasings:\n      - q: fine\n",
            "line 4: intents[0].phrasings[0]: names no expected source",
        ),
        ("intents: []\n", "line 1: field intents: List should have at least 1 item"),
        ("", "the file is empty"),
        (
            'intents:\n  - intent: "a\\nb"\n    expect: [x]\n    phrasings: [q]\n',
            "line 2: field intents[0].intent: must be one line (no line breaks or control "
            "characters) (got 'a\\nb')",
        ),
        (
            "intents:\n  - intent: a\x01b\n",
            "line 2: invalid YAML (unacceptable character #x0001: special characters are not "
            "allowed)",
        ),
    ],
)
def test_malformed_case_file_names_line_and_field(tmp_path, text, expected):
    path = write(tmp_path, "cases.yaml", text)
    with pytest.raises(RagauditError) as error:
        load_cases(path)
    message = str(error.value)
    assert message.startswith(f"case file {path}: ")
    assert expected in message


def test_malformed_json_case_file_names_the_line(tmp_path):
    path = write(tmp_path, "cases.json", '{\n "intents": [\n  {"intent": "a",,}\n ]\n}\n')
    with pytest.raises(RagauditError) as error:
        load_cases(path)
    # the one wording of a JSON syntax error (fileio), prefixed as the audit names files
    assert str(error.value) == (
        f"case file {path}: not valid JSON "
        "(Expecting property name enclosed in double quotes at line 3)"
    )


def test_unknown_source_id_is_a_clear_error_with_a_hint(tmp_path):
    cases = load_cases(write(tmp_path, "cases.yaml", CASES))
    with pytest.raises(RagauditError) as error:
        check_sources(cases, {"statutes/estates", "guides/deadline"}, tmp_path / "cases.yaml")
    message = str(error.value)
    assert "case death-benefit/formal expects unknown source id 'statutes/estate'" in message
    assert "did you mean 'statutes/estates'?" in message
    assert "line 6" in message  # the line of that case's question


MUTATION_CASES = """\
intents:
  - intent: tools
    expect: [statutes/estate]
    answer: "12 months"
    anchor: section 4
    phrasings:
      - How long are a decedent's professional tools excluded from the estate?
"""


def test_a_mutation_case_file_is_an_audit_case_file_read_bounded(tmp_path):
    # one file serves audit and mutate: the audit reads answer: and anchor: as they are
    source = write(tmp_path, "mutation.yaml", MUTATION_CASES)
    (case,) = load_cases(source)
    assert (case.case_id, case.expect_all) == ("tools/1", ("statutes/estate",))
    # 4.5 MB: a valid case file under a long comment, refused before it is parsed
    comment = "#" * (9 * 2**19 - len(MUTATION_CASES) - 1) + "\n"
    padded = write(tmp_path, "padded.yaml", MUTATION_CASES + comment)
    assert padded.stat().st_size == 9 * 2**19
    with pytest.raises(RagauditError) as refused:
        load_cases(padded)
    assert str(refused.value) == (
        f"case file {padded}: 4.5 MB, more than the 4 MB ragaudit reads from a file like this"
    )
