"""ragaudit in a pytest suite: the mutation audit of a llama-index retriever with its
SentenceSplitter over examples/mutate/corpus, retrieval-only (no generator), in seconds.

    pytest examples/pytest/test_keyword_retriever.py

The plugin comes with ragaudit (the `pytest11` entry point); nothing to configure. A
failing assertion names each operator below its threshold, killed / applicable with its
95% interval, the surviving mutants by id, and the results file it kept.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from keyword_retriever import keyword_retriever
from llama_index.core.node_parser import SentenceSplitter

import ragaudit
from ragaudit.testing import assert_mutation_score

EXAMPLE = Path(__file__).resolve().parents[1] / "mutate"
CORPUS, CASES = EXAMPLE / "corpus", EXAMPLE / "cases.yaml"


def target() -> ragaudit.Components:
    """The system under test: their splitter, their retriever, the top 4 chunks."""
    splitter = SentenceSplitter(chunk_size=256, chunk_overlap=20)
    return ragaudit.Components(splitter=splitter, retriever=keyword_retriever, k=4)


def test_a_near_duplicate_or_diluted_corpus_still_finds_the_answer():
    # Only the operators named are run (no '*'): near-duplicates and dilution.
    assert_mutation_score(target(), CORPUS, CASES, at_least={"near_duplicate": 0.8, "dilute": 0.8})


@pytest.mark.xfail(strict=True, reason="BM25 ranks a superseded value as high as the current")
def test_a_superseded_value_is_noticed():
    # Word overlap cannot tell "was 46 euros" from "is 38 euros": this fails, naming the
    # survivors (supersede/<intent>) and the results file.
    assert_mutation_score(target(), CORPUS, CASES, at_least={"supersede": 0.8})
