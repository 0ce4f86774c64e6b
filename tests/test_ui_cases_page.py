"""The Cases page (AppTest): it lists the results folder's cases files, shows the miner's
counts and each intent with its checks and its sentence highlighted in its document, and
writes the accepted (edited) intents to results/<stem>.reviewed.yaml, never over its input
nor outside the results folder. The fixture is tests/data/cases/mined_cases.yaml, whose
spans point into tests/data/cases/corpus/ (counted by hand there)."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml
from helpers.ui_apptest import open_app, texts

from ragaudit.paths import REPO_ROOT
from ragaudit.ui.cases_checks import check_rows

CASES = REPO_ROOT / "tests" / "data" / "cases" / "mined_cases.yaml"
PAGE = "pages/cases.py"
KEY = "cases:mined_cases.yaml:"
EDITED_PHRASING = "how short can an abbreviated name be with core.abbrev"


@pytest.fixture
def results(ragaudit_home, monkeypatch):
    """The data folder's results folder holding the fixture cases file; the corpus path it
    records is relative to the checkout, where the inspector runs."""
    monkeypatch.chdir(REPO_ROOT)
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    folder = ragaudit_home / "results"
    folder.mkdir()
    shutil.copy(CASES, folder / CASES.name)
    return folder


def _input() -> dict:
    return yaml.safe_load(CASES.read_text(encoding="utf-8"))


def _review(at, decisions: dict[str, str], phrasing: str | None = None):
    """Choose each intent's decision, edit git-config's second phrasing, run the page."""
    if phrasing is not None:
        at.text_input(key=f"{KEY}git-config-core-abbrev:phrasing:2").input(phrasing).run()
    for intent, decision in decisions.items():
        at.radio(key=f"{KEY}{intent}:decision").set_value(decision).run()
    return at


def _save(at):
    at.button(key="cases_save").click().run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def test_only_the_results_folders_cases_files_are_listed(results, tmp_path):
    (results / "settings.yaml").write_text("name: prod\nk: 5\n")
    (results / "hand.yaml").write_text("intents:\n  - intent: a\n    phrasings: [q]\n")
    (results / "latest.json").write_text(json.dumps({"generated_by": {}, "intents": []}))
    outside = tmp_path / "outside.yaml"
    shutil.copy(CASES, outside)
    (results / "linked.yaml").symlink_to(outside)  # a cases file, but out of the folder
    shutil.copy(CASES, results / "second.yml")
    at = open_app(page=PAGE)
    assert not at.exception
    assert at.selectbox(key="cases_file").options == ["mined_cases.yaml", "second.yml"]


def test_a_link_chooses_a_listed_file_by_name_never_by_path(results):
    shutil.copy(CASES, results / "b.yaml")
    at = open_app(page=PAGE, cases="mined_cases.yaml")
    assert at.selectbox(key="cases_file").value == "mined_cases.yaml"
    at = open_app(page=PAGE, cases=str(CASES))  # a path: not a name in the listing
    assert at.selectbox(key="cases_file").value == "b.yaml"
    assert f"`?cases={CASES}` is not a cases file of the results folder." in texts(at)


def test_no_cases_file_says_how_to_make_one(ragaudit_home):
    at = open_app(page=PAGE)
    assert not at.exception
    assert f"No cases file in `{ragaudit_home / 'results'}` yet" in texts(at)
    assert at.code[0].value == f"ragaudit cases DOCS --out {ragaudit_home / 'results'}/cases.yaml"


def test_the_counts_are_written_over_their_denominators(results):
    at = open_app(page=PAGE)
    shown = texts(at)
    # 12 mined, 9 checked: 3 kept, 5 rejected, 1 unverified; 1 of the 3 kept known
    assert (
        "**12 candidates** · checked 75% 9/12 · kept 33% 3/9 · unverified 11% 1/9 · "
        "known without context 33% 1/3 of kept"
    ) in shown
    assert (
        "Rejected: answer_in_question 11% 1/9 · near_duplicate 11% 1/9 · oracle_failed 33% 3/9"
    ) in shown
    assert "Accepted 0% 0/3 · rejected 0% 0/3 · undecided 100% 3/3" in shown
    rejected = at.dataframe[0].value  # the rejected candidates, their nested checks as text
    assert len(rejected) == 5
    assert rejected["questions"][0] == (
        "What is the default of max_connections? | how many connections can postgres take"
    )
    assert rejected["checks"][0] == "answer_not_in_question passed; oracle failed"
    assert at.dataframe[1].value["error"][0] == "phrasing call failed: timed out after 120 s"


def test_each_intent_shows_its_fields_checks_and_highlighted_sentence(results):
    at = open_app(page=PAGE)
    shown = texts(at)
    assert "**Answer** `4` · **anchor** `core.abbrev`" in shown
    assert "1. When was version 2.3.1 released?\n2. release date of 2.3.1" in shown
    assert "Known without context: local:qwen2.5-1.5b answered it with no document" in shown
    assert "Source `git-config`, answer at characters 262–263, under “core.abbrev”" in shown
    # the sentence (purple) around the answer (yellow), the document's < > & " escaped
    assert (
        '<span style="background:#c58af9">The minimum length is </span>'
        '<span style="background:#f9d648">4</span>'
        '<span style="background:#c58af9"> hexadecimal digits, and &quot;no&quot; turns '
        "abbreviation off.</span>&#10;See &lt;git-rev-parse&gt; &amp; its --short option."
    ) in shown
    checks = at.dataframe[-1].value  # the last intent's (release notes)
    assert checks.to_dict("records") == [
        {"check": "phrasing", "result": "recorded",
         "detail": "reply: 1. When was version 2.3.1 released? / 2. release date of 2.3.1"},
        {"check": "language", "result": "passed", "detail": "document: en; phrasings: en | en"},
        {"check": "answer_not_in_question", "result": "passed", "detail": "found: none"},
        {"check": "verbatim_in_source", "result": "passed", "detail": "also_in: none"},
        {"check": "near_duplicate", "result": "passed", "detail": "jaccard: 0.4; threshold: 0.8"},
        {"check": "oracle", "result": "passed", "detail": "✓ 14 March 2024 | ✓ On 14 March 2024."},
        {"check": "closed_book", "result": "not known",
         "detail": "✗ (wrong) 2023 | ✗ (wrong) I do not know."},
    ]  # fmt: skip


def test_save_writes_the_accepted_intents_edited_and_the_review_counts(results):
    at = _review(
        open_app(page=PAGE),
        {"postgres-port": "accept", "git-config-core-abbrev": "accept",
         "release-2-3-1-date": "reject"},
        phrasing=EDITED_PHRASING,
    )  # fmt: skip
    assert "Edited: phrasings." in texts(at)
    before = CASES.read_bytes()
    _save(at)
    written = yaml.safe_load((results / "mined_cases.reviewed.yaml").read_text(encoding="utf-8"))
    source = _input()
    assert (results / "mined_cases.yaml").read_bytes() == before  # never over its input
    assert written["generated_by"] == source["generated_by"]
    assert written["counts"] == {
        "candidates": 12, "checked": 9, "kept": 3, "known_without_context": 1,
        "rejected": {"answer_in_question": 1, "near_duplicate": 1, "oracle_failed": 3},
        "unverified": 1, "reviewed": {"accepted": 2, "rejected": 1, "edited": 1},
    }  # fmt: skip
    assert [i["intent"] for i in written["intents"]] == ["postgres-port", "git-config-core-abbrev"]
    assert written["intents"][0] == source["intents"][0]
    edited = written["intents"][1]
    assert edited["phrasings"] == [
        "What is the minimum length of an abbreviated object name set by core.abbrev?",
        EDITED_PHRASING,
    ]
    assert (edited["answer"], edited["anchor"]) == ("4", "core.abbrev")
    assert edited["provenance"]["review"] == {
        "edited": ["phrasings"],
        "before": {"phrasings": [
            "What is the minimum length of an abbreviated object name set by core.abbrev?",
            "how short can core.abbrev get",
        ]},
    }  # fmt: skip
    assert edited["provenance"]["source"]["start"] == 262
    assert len(written["rejected"]) == 5 and len(written["unverified"]) == 1
    assert "Saved 2 accepted intents to" in at.success[0].value


def test_an_edited_answer_moves_the_source_span_to_it(results):
    at = open_app(page=PAGE)
    at.text_input(key=f"{KEY}release-2-3-1-date:answer").input("March 2024").run()
    _save(_review(at, {"release-2-3-1-date": "accept"}))
    (intent,) = yaml.safe_load((results / "mined_cases.reviewed.yaml").read_text())["intents"]
    assert intent["answer"] == "March 2024"
    # "14 March 2024" stood at [65, 78): "March 2024" is its last 10 characters
    source = intent["provenance"]["source"]
    assert (source["start"], source["end"]) == (68, 78)
    assert intent["provenance"]["review"] == {
        "edited": ["answer"],
        "before": {"answer": "14 March 2024"},
    }


def test_the_reviewed_file_is_a_case_file_the_readers_accept(results):
    # Needs the lead's extension of ragaudit.auditing.cases (CaseFile taking generated_by,
    # counts, rejected, unverified; IntentSpec taking provenance, known_without_context):
    # without it read_case_file refuses these keys as extra.
    from ragaudit.auditing.cases import load_cases, read_case_file

    at = _review(open_app(page=PAGE), {"postgres-port": "accept",
                 "git-config-core-abbrev": "accept"}, phrasing=EDITED_PHRASING)  # fmt: skip
    _save(at)
    path = results / "mined_cases.reviewed.yaml"
    spec, _, _ = read_case_file(path)
    assert [i.intent for i in spec.intents] == ["postgres-port", "git-config-core-abbrev"]
    questions = [case.question for case in load_cases(path)]
    assert questions[3] == EDITED_PHRASING and len(questions) == 4


def test_an_edit_that_breaks_a_check_says_so_in_one_line_and_is_not_saved(results):
    at = open_app(page=PAGE)
    at.text_input(key=f"{KEY}git-config-core-abbrev:phrasing:1").input("Is it 4 digits?").run()
    assert [e.value for e in at.error] == [
        "Edit not valid: phrasing 1 gives the answer away ('4' is in it)"
    ]
    at.text_input(key=f"{KEY}git-config-core-abbrev:phrasing:1").input("How short?").run()
    at.text_input(key=f"{KEY}git-config-core-abbrev:answer").input("5").run()
    assert [e.value for e in at.error] == [
        "Edit not valid: the answer '5' does not stand verbatim in git-config"
    ]
    _save(_review(at, {"git-config-core-abbrev": "accept"}))
    assert at.error[-1].value == (
        "Nothing saved: git-config-core-abbrev: the answer '5' does not stand verbatim in "
        "git-config"
    )
    assert not (results / "mined_cases.reviewed.yaml").exists()


def test_nothing_accepted_writes_nothing(results):
    _save(_review(open_app(page=PAGE), {"postgres-port": "reject"}))
    assert not (results / "mined_cases.reviewed.yaml").exists()


def test_a_symlink_under_the_reviewed_name_is_refused_and_its_target_untouched(results, tmp_path):
    outside = tmp_path / "elsewhere.yaml"
    outside.write_text("kept\n")
    (results / "mined_cases.reviewed.yaml").symlink_to(outside)
    at = _save(_review(open_app(page=PAGE), {"postgres-port": "accept"}))
    assert "refused: it would be written outside" in at.error[-1].value
    assert outside.read_text() == "kept\n"


def test_a_changed_or_missing_document_is_reported_not_drawn(results, tmp_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(CASES.parent / "corpus", corpus)
    text = (corpus / "postgres-settings.txt").read_text()
    (corpus / "postgres-settings.txt").write_text("Changed. " + text)  # spans now off by 9
    (corpus / "release-notes.md").unlink()
    data = _input()
    data["generated_by"]["corpus"]["path"] = str(corpus)
    (results / "mined_cases.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    at = open_app(page=PAGE)
    assert not at.exception
    assert [w.value for w in at.warning if w.value.startswith("Source not drawn")] == [
        "Source not drawn: postgres-settings on disk is not the text the cases were mined "
        "from: [87, 91) does not hold the answer",
        "Source not drawn: the corpus holds no document release-notes",
    ]


def test_a_check_the_miner_skipped_reads_skipped():
    # --no-generate: no oracle and no closed-book check (ragaudit.casemining.verify)
    skipped = {"passed": None, "skipped": "--no-generate: no generator"}
    assert check_rows({"oracle": skipped}) == [
        {"check": "oracle", "result": "skipped", "detail": "skipped: --no-generate: no generator"}
    ]
