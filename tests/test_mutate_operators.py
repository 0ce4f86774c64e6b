"""The operators and their validity checks on a small corpus, with no model: seeded and
deterministic, the planted text where it is recorded, a superseding revision without the
old value, a boundary really cut by the splitter, a near-duplicate near its original only,
a removed answer in no document left, and an operator that cannot apply says why."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragaudit.auditing.corpus_io import read_user_corpus
from ragaudit.cli.main import main
from ragaudit.errors import RagauditError
from ragaudit.mutation.cases import load_mutation_cases
from ragaudit.mutation.column import Column
from ragaudit.mutation.grouping import MutantCorpus, build_mutants
from ragaudit.mutation.operator import Context
from ragaudit.mutation.operators import operators
from ragaudit.stack.chunking import Chunking, chunk_spans

EXAMPLE = Path(__file__).parent.parent / "examples" / "mutate"


def corpora(settings: str, seed: int = 0, names=None, tmp_path=None):
    corpus = read_user_corpus(EXAMPLE / "corpus")
    intents = load_mutation_cases(EXAMPLE / "cases.yaml", corpus.documents)
    path = tmp_path / "settings.yaml"
    path.write_text(settings, encoding="utf-8")
    column = Column(path, None)
    context = Context(tuple(corpus.documents), tuple(intents), seed, column.splitter())
    return {op.name: build_mutants(op, context) for op in operators(names)}, corpus


def documents_of(corpus, mutant):
    """The mutant's own corpus: the user's documents with its change only."""
    return MutantCorpus(corpus.documents, mutant).documents


RECURSIVE = "name: r\nsplitter: recursive\nchunk_size: 1000\noverlap: 200\nk: 3\n"


def test_mutants_are_the_same_for_a_seed_and_change_with_it(tmp_path):
    first, _ = corpora(RECURSIVE, 0, ["supersede", "boundary"], tmp_path)
    again, _ = corpora(RECURSIVE, 0, ["supersede", "boundary"], tmp_path)
    other, _ = corpora(RECURSIVE, 7, ["supersede", "boundary"], tmp_path)

    def texts(built):
        return {n: [m.diff for m in c.mutants] for n, c in built.items()}

    assert texts(first) == texts(again)
    assert texts(first)["supersede"] != texts(other)["supersede"]


def test_supersede_states_the_new_value_where_recorded_and_not_the_old(tmp_path):
    built, corpus = corpora(RECURSIVE, 0, ["supersede"], tmp_path)
    mutant = next(m for m in built["supersede"].mutants if m.intent == "annual-leave-days")
    docs = {d.doc_id: d for d in documents_of(corpus, mutant)}
    revision = docs["policies/leave~supersede~annual-leave-days"].text
    assert "27 days" not in revision and "27 days" in docs["policies/leave"].text
    (new,) = mutant.accept
    assert new != "27 days" and new in mutant.gold_spans[0].text
    for span in mutant.planted:
        assert revision[span.start : span.end] == span.text
    assert revision.startswith("Revision ") and "supersedes every earlier version" in revision
    assert all(check["passed"] for check in mutant.validity)
    assert mutant.diff.startswith(
        "--- policies/leave\n+++ policies/leave~supersede~annual-leave-days\n"
    )


TABLE_ROWS = ("zone-c-price", "eastfield-manager")
"""The intents whose answer stands in a table row (Markdown, CSV)."""


def test_a_boundary_mutant_is_cut_by_the_splitter_and_a_sentence_keeping_one_is_not(tmp_path):
    fixed = "name: f\nsplitter: fixed\nchunk_size: 300\noverlap: 0\nk: 3\n"
    built, _ = corpora(fixed, 0, ["boundary"], tmp_path)
    for mutant in built["boundary"].mutants:
        if mutant.intent in TABLE_ROWS:  # table_split's fault, not this one
            assert mutant.reason.startswith("the answer is in a table row")
            continue
        assert mutant.applied, mutant.reason
        doc = next(d for d in mutant.added if d.doc_id == mutant.mutant_doc_id)
        gold = mutant.gold_spans[0]
        # cut again here, by the built-in fixed splitter: a chunk end inside the sentence
        spans = chunk_spans(doc.text, Chunking("fixed", 300, 0))
        assert any(gold.start < end < gold.end for _, end in spans)
    # recursive cuts a long paragraph at ". " before " ", a whole-document chunk nowhere:
    # neither cuts the sentence, and with no embedder window known neither is credited
    for settings in (RECURSIVE, "name: d\nsplitter: document\nk: 3\n"):
        kept, _ = corpora(settings, 0, ["boundary"], tmp_path)
        for mutant in kept["boundary"].mutants:
            assert not mutant.applied and not mutant.robust
            assert mutant.intent in TABLE_ROWS or mutant.reason.endswith(
                "the embedder's window is unknown, so no robust credit"
            )


def test_near_duplicates_remove_answer_and_table_split_say_what_they_did(tmp_path):
    built, corpus = corpora(RECURSIVE, 0, ["near_duplicate", "remove_answer", "table_split"],
                            tmp_path)  # fmt: skip
    for mutant in [m for m in built["near_duplicate"].mutants if m.applied]:
        checks = {c["check"]: c for c in mutant.validity}
        assert checks["near_original"]["passed"] and checks["near_nothing_else"]["passed"]
    meal = next(m for m in built["remove_answer"].mutants if m.intent == "domestic-meal-allowance")
    left = [d.text for d in documents_of(corpus, meal)]
    assert not any("46 euros" in text for text in left)
    table = {m.intent: m for m in built["table_split"].mutants}
    assert table["zone-c-price"].applied and table["eastfield-manager"].applied
    assert table["mileage-rate"].reason == "the answer is not in a table row"


def test_an_answer_its_sources_do_not_hold_is_refused_in_one_line(tmp_path, capsys):
    cases = tmp_path / "cases.yaml"
    cases.write_text(
        "intents:\n  - intent: leave\n    expect: [policies/leave]\n    answer: 99 days\n"
        "    phrasings: [How many days of leave]\n",
        encoding="utf-8",
    )
    with pytest.raises(RagauditError, match="intent 'leave': answer '99 days' appears in none"):
        load_mutation_cases(cases, read_user_corpus(EXAMPLE / "corpus").documents)
    out = tmp_path / "never.json"
    status = main(["mutate", str(EXAMPLE / "corpus"), str(cases), "--no-generate",
                   "--out", str(out)])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and "intent 'leave'" in err[0] and not out.exists()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_duration_is_replaced_by_a_duration_and_a_name_by_no_duration(tmp_path, seed):
    # The example's answers without a digit to shift: 'nine hours' (a number word and the
    # unit 'hours') and 'Helen Marsh' (two capitalised words). Of the other 13 answers only
    # '72 hours' is a number followed by 'hours'; no other answer is two capitalised words.
    built, _ = corpora(RECURSIVE, seed, ["supersede", "near_duplicate"], tmp_path)
    for name, corpus in built.items():
        mutants = {m.intent: m for m in corpus.mutants}
        duration = mutants["business-class-threshold"]
        assert duration.applied, (name, duration.reason)
        changed = duration.accept if name == "supersede" else duration.traps
        assert changed == ("72 hours",), name
        manager = mutants["eastfield-manager"]
        assert not manager.applied and manager.reason == (
            "the answer cannot be changed: no other intent's answer has the same shape (Name Name)"
        ), name
