"""The pairing check `compare` and `gate` share (ragaudit.comparison.agreement): instances are
paired by id only when the questions and the indexed document set agree.

The real files: the shipped n=25 reference indexed 638 documents (its corpus.documents and
its chunk_offsets ids), the n=1 behaviour run (tests/data/behaviour_n1.json) 26, all of them
among the reference's. Both carry the same manifest sha256, which is what made `compare`
call them paired before this check.
"""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path

import pytest
from helpers.gate_fixtures import gate_run, write_run

from ragaudit.cli.main import main
from ragaudit.comparison.agreement import ASSERTED, agreement
from ragaudit.results.reference import REFERENCE_FILE

N1 = Path(__file__).parent / "data" / "behaviour_n1.json"


@pytest.fixture(scope="module")
def reference() -> dict:
    with gzip.open(REFERENCE_FILE, "rt", encoding="utf-8") as handle:
        return json.load(handle)


@pytest.fixture(scope="module")
def small() -> dict:
    return json.loads(N1.read_text(encoding="utf-8"))


def test_compare_no_longer_pairs_a_small_run_with_the_reference(tmp_path, capsys):
    assert main(["compare", str(REFERENCE_FILE), str(N1), "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert (
        "Only unpaired rates: the indexed documents differ (agreed: the same corpus manifest, "
        "the same questions).\n"
    ) in out
    assert "The indexed documents differ (A 638 documents, B 26 documents; 612 only in A" in out
    # boundary under A holds 25 records in A and 1 in B: no flip is counted between them
    assert "| boundary | A | 0% 0/25 [0–13%] | 0% 0/1 [0–79%] | unpaired | unpaired |" in out


def test_compare_of_a_file_with_itself_says_what_it_checked(tmp_path, capsys):
    assert main(["compare", str(N1), str(N1), "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert (
        "Paired by id: the same corpus manifest, the same questions, the same indexed "
        "document set (26 documents), the same weights for every model both ran.\n"
    ) in out
    assert "Same questions, same indexed documents (A 26 documents, B 26 documents)" in out


def test_the_same_documents_agree_and_one_missing_document_does_not(small):
    assert agreement(small, copy.deepcopy(small)).paired
    fewer = copy.deepcopy(small)
    for per_doc in fewer["chunk_offsets"].values():
        per_doc.pop("control-000")
    checked = agreement(small, fewer)
    assert not checked.paired
    assert "1 only in A, 0 only in B" in checked.differs[0]


def test_another_question_under_the_same_id_is_refused(small):
    other = copy.deepcopy(small)
    for record in other["instances"]:
        if record["instance_id"] == "negation-000":
            record["question"] = "What is not kept?"
    checked = agreement(small, other)
    assert not checked.paired
    assert "ask another question in B than in A (first: negation-000)" in checked.differs[0]


def test_a_set_asserted_by_the_user_agrees_only_with_itself(small):
    asserted = {**copy.deepcopy(small), "indexed_documents": ASSERTED}
    assert agreement(asserted, copy.deepcopy(asserted)).paired
    for a, b in ((asserted, small), (small, asserted)):
        checked = agreement(a, b)
        assert not checked.paired
        assert "a set asserted by the user agrees only with itself" in checked.differs[0]
    on_config = copy.deepcopy(small)
    on_config["indexed_documents"] = {"asserted_by": "user", "ids": ["x"]}
    assert not agreement(asserted, on_config).paired


def test_an_unrecorded_set_is_unchecked_not_agreed(small):
    bare = copy.deepcopy(small)
    del bare["chunk_offsets"]
    del bare["corpus"]["documents"]
    checked = agreement(bare, copy.deepcopy(bare))
    assert checked.paired and not checked.checked
    assert "not recorded in both files" in checked.notes[0]


def test_compare_says_what_agreed_and_what_it_does_on_other_weights(tmp_path, capsys):
    """Hand-written runs (tests/helpers/gate_fixtures.py): six indexed documents each; B's
    embedder weights are e…e instead of d…d. compare keeps to unpaired rates across other
    weights and says so in its header; the gate pairs the same files."""
    before = write_run(tmp_path / "a.json", gate_run({("boundary", "C"): [True] * 5}))
    same = write_run(tmp_path / "b.json", gate_run({("boundary", "C"): [True] * 5}))
    other = gate_run({("boundary", "C"): [True] * 5}, digest="e" * 64)
    other_weights = write_run(tmp_path / "c.json", other)
    assert main(["compare", str(before), str(same), "--out", str(tmp_path / "same")]) == 0
    header = (tmp_path / "same" / "compare.md").read_text().split("## Corpus and models")[1]
    assert header.strip().splitlines()[0] == (
        "Paired by id: the same corpus manifest, the same questions, the same indexed "
        "document set (6 documents), the same weights for every model both ran."
    )
    assert main(["compare", str(before), str(other_weights), "--out", str(tmp_path / "o")]) == 0
    header = (tmp_path / "o" / "compare.md").read_text().split("## Corpus and models")[1]
    assert header.strip().splitlines()[0] == (
        "The same corpus manifest, the same questions, the same indexed document set "
        "(6 documents), but other weights for local:minilm: compare gives only unpaired rates "
        "across other weights (`ragaudit gate` pairs across them, as the change under test)."
    )
    capsys.readouterr()
    argv = ["gate", "--baseline", str(before), "--results", str(other_weights)]
    assert main(argv) == 0
    assert "instances are paired by id." in capsys.readouterr().out
