"""The user's own retriever (contract §3): a real llama-index retriever, plain callables
returning ids or texts, one that re-chunks the documents itself, the example factory, and
the bad ones, each refused in one line naming the component.

The factories below stand for the user's code; the stack file names them by import path
(this module is importable as ``test_userstack_retriever``, tests/ being on sys.path).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ragaudit.backends.cache import CallCache
from ragaudit.backends.llamaindex import as_llamaindex_embedding
from ragaudit.backends.specs import load_embedder
from ragaudit.documents import Document
from ragaudit.errors import RagauditError
from ragaudit.stack.chunking import Chunk
from ragaudit.targets.retriever import UserRetriever

HERE = __name__
LABEL = "my_stack.yaml: retriever.factory"

# Offsets counted by hand: "Parking is free after six. " is 27 characters.
FAQ = Document(
    "faq",
    "Parking is free after six. Parking is free after six. The lift is out of order.",
)
DESK = Document("desk", "Badges are collected at reception. Visitors sign in at the gate.")
DOCUMENTS = [FAQ, DESK]
CHUNKS = [
    Chunk("stack-t/faq#0", "faq", 0, 0, 26, "Parking is free after six."),
    Chunk("stack-t/faq#1", "faq", 1, 27, 53, "Parking is free after six."),
    Chunk("stack-t/faq#2", "faq", 2, 54, 79, "The lift is out of order."),
    Chunk("stack-t/desk#0", "desk", 0, 0, 34, "Badges are collected at reception."),
    Chunk("stack-t/desk#1", "desk", 1, 35, 64, "Visitors sign in at the gate."),
]


def test_the_hand_spans_hold():
    # the fixture itself: every chunk's span is its text in its document
    docs = {doc.doc_id: doc for doc in DOCUMENTS}
    assert all(docs[c.doc_id].text[c.start : c.end] == c.text for c in CHUNKS)


def retriever_of(factory: str, args: dict | None = None) -> UserRetriever:
    return UserRetriever(f"{HERE}:{factory}", args or {}, CHUNKS, DOCUMENTS, LABEL)


# -- the user's factories ------------------------------------------------------------------


def vector_retriever(chunks, top_k: int = 2):
    """A real llama-index VectorIndexRetriever over a VectorStoreIndex of the chunks."""
    from llama_index.core import VectorStoreIndex

    embed_model = as_llamaindex_embedding(load_embedder("local:minilm", CallCache()))
    index = VectorStoreIndex(chunks, embed_model=embed_model)
    return index.as_retriever(similarity_top_k=top_k)


def fixed_ids(chunks, answer: list):
    """A plain callable answering every question with the same (id or text, score) list."""
    return lambda question: answer


def sentence_retriever(documents):
    """Re-chunks the documents itself (llama-index SentenceSplitter, sentence-sized) and
    returns the passages holding a word of the question, as NodeWithScore."""
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.core.schema import NodeWithScore

    nodes = SentenceSplitter(chunk_size=8, chunk_overlap=0).get_nodes_from_documents(documents)

    def retrieve(question: str):
        words = set(question.lower().split())
        hits = [n for n in nodes if words & set(n.get_content().lower().split())]
        return [NodeWithScore(node=node, score=1.0) for node in hits]

    return retrieve


def lowercasing_retriever(documents):
    """Returns a document's last sentence lowercased, with the document named: a passage
    the retriever rewrote, so it can only be aligned approximately."""
    from llama_index.core.schema import TextNode

    node = TextNode(text="the lift is out of order.")
    node.metadata["doc_id"] = "faq"
    return lambda question: [(node, 0.7)]


def second_parking_sentence(documents):
    """Names the document and the offset of the *second* "Parking is free" in it."""
    from llama_index.core.schema import NodeWithScore, TextNode

    node = TextNode(text="Parking is free", start_char_idx=27, end_char_idx=42)
    node.metadata["doc_id"] = "faq"
    return lambda question: [NodeWithScore(node=node, score=0.5)]


def texts_only(documents, answer: list):
    """Given documents, answers with bare passage texts."""
    return lambda question: answer


def broken(chunks):
    raise ConnectionError("vector db at 10.0.0.5:6333 refused\nretry later")


def not_a_retriever(chunks):
    return 42


def raising_at_query(chunks):
    def retrieve(question):
        raise TimeoutError("reranker took over 30 s")

    return retrieve


def takes_nothing(top_k: int = 3):
    return lambda question: []


# -- what the user sees --------------------------------------------------------------------


def test_a_llamaindex_vector_retriever_ranks_the_chunks(ragaudit_home):
    user = retriever_of("vector_retriever", {"top_k": 3})
    assert user.given == "chunks"
    hits = user.ranking("Is the lift working?", depth=10)
    # the lift sentence is the only one about a lift; top_k=3 bounds what comes back
    assert [h.rank for h in hits] == [1, 2, 3]
    assert (hits[0].chunk_id, hits[0].doc_id, hits[0].start, hits[0].end) == (
        "stack-t/faq#2",
        "faq",
        54,
        79,
    )
    assert all(h.bm25_score is None and h.score == h.dense_score for h in hits)
    assert hits[0].score > hits[1].score >= hits[2].score
    assert len(user.ranking("Is the lift working?", depth=1)) == 1


def test_a_callable_returning_ids_keeps_its_order_and_scores():
    answer = [
        ("stack-t/faq#2", 0.9),
        ("stack-t/faq#2", 0.8),  # the same chunk again: counted once
        ("stack-t/desk#0", 0.5),
        "stack-t/desk#1",  # no score given
    ]
    user = retriever_of("fixed_ids", {"answer": answer})
    hits = user.ranking("anything", depth=10)
    assert [(h.chunk_id, h.rank, h.score, h.dense_score) for h in hits] == [
        ("stack-t/faq#2", 1, 0.9, 0.9),
        ("stack-t/desk#0", 2, 0.5, 0.5),
        ("stack-t/desk#1", 3, None, None),
    ]
    assert [h.chunk_id for h in user.ranking("anything", depth=2)] == [
        "stack-t/faq#2",
        "stack-t/desk#0",
    ]


def test_a_callable_returning_texts_names_the_chunks_holding_them():
    same = "Parking is free after six."
    answer = [(same, 1.0), (same, 0.5), ("Visitors sign in at the gate.", 0.25)]
    hits = retriever_of("fixed_ids", {"answer": answer}).ranking("parking?", depth=5)
    # two chunks share the text: the second mention names the second chunk, not the first again
    assert [(h.chunk_id, h.start, h.score) for h in hits] == [
        ("stack-t/faq#0", 0, 1.0),
        ("stack-t/faq#1", 27, 0.5),
        ("stack-t/desk#1", 35, 0.25),
    ]


def test_passages_of_its_own_chunking_become_located_extra_chunks():
    user = retriever_of("sentence_retriever")
    assert user.given == "documents"
    hits = user.ranking("parking rules", depth=10)
    # SentenceSplitter cut the two equal parking sentences apart; they equal chunk texts,
    # so they name the stack's chunks, each at its own place
    assert [h.chunk_id for h in hits] == ["stack-t/faq#0", "stack-t/faq#1"]
    hits = user.ranking("who collects badges at reception", depth=10)
    # "Badges are collected at reception." is desk#0; "at the gate" shares "at"
    assert [h.chunk_id for h in hits] == ["stack-t/desk#0", "stack-t/desk#1"]


def test_a_passage_found_in_a_document_is_an_extra_chunk_with_its_span():
    passage = "The lift is out"  # a piece of faq, not any chunk's whole text
    user = retriever_of("texts_only", {"answer": [(passage, 0.4), ("Visitors sign in", 0.3)]})
    hits = user.ranking("lift?", depth=10)
    assert [(h.chunk_id, h.doc_id, h.start, h.end) for h in hits] == [
        ("stack-t/faq#r0", "faq", 54, 69),
        ("stack-t/desk#r0", "desk", 35, 51),
    ]
    assert [(c.chunk_id, c.text, c.span_exact) for c in user.extra_chunks] == [
        ("stack-t/faq#r0", passage, True),
        ("stack-t/desk#r0", "Visitors sign in", True),
    ]
    # asked again, the same passage is the same extra chunk
    assert [h.chunk_id for h in user.ranking("lift again?", depth=10)][0] == "stack-t/faq#r0"
    assert len(user.extra_chunks) == 2 and user.approximate == 0


def test_a_repeated_passage_goes_where_the_retriever_says_not_to_the_first_match():
    user = retriever_of("second_parking_sentence")
    [hit] = user.ranking("parking?", depth=10)
    assert (hit.chunk_id, hit.start, hit.end) == ("stack-t/faq#r0", 27, 42)
    assert user.extra_chunks[0].span_exact is True and user.approximate == 0


def test_a_repeated_passage_with_nothing_to_place_it_by_is_not_exact():
    # "Parking is free" is in faq twice and the retriever says neither which document nor
    # where: placed at the first, but counted as not located exactly
    user = retriever_of("texts_only", {"answer": [("Parking is free", 0.5)]})
    [hit] = user.ranking("parking?", depth=10)
    assert (hit.start, hit.end) == (0, 15)
    assert user.extra_chunks[0].span_exact is False and user.approximate == 1


def test_a_rewritten_passage_is_placed_approximately_and_counted():
    user = retriever_of("lowercasing_retriever")
    [hit] = user.ranking("lift?", depth=10)
    [extra] = user.extra_chunks
    assert (hit.chunk_id, hit.score) == ("stack-t/faq#r0", 0.7)
    assert extra.span_exact is False and user.approximate == 1
    # the best alignment is the sentence it came from; the text stays the retriever's
    assert (extra.start, extra.end) == (54, 79) and extra.text == "the lift is out of order."


def example_ranking(args: dict, question: str) -> list:
    """The example factory through UserRetriever, its folder importable as K's loader makes it."""
    example = Path(__file__).resolve().parents[1] / "examples" / "stack"
    sys.path.insert(0, str(example))
    try:
        user = UserRetriever("rerank_retriever:make_retriever", args, CHUNKS, DOCUMENTS, LABEL)
        return user.ranking(question, depth=10)
    finally:
        sys.path.remove(str(example))
        sys.modules.pop("rerank_retriever", None)


def test_the_example_factory_reorders_its_bm25_shortlist_by_meaning(ragaudit_home):
    # BM25 puts desk#1 first ("at", "the", "gate": three shared words) and the parking
    # sentences next ("parking", "free"); of that shortlist of two, the cosine prefers the
    # parking sentence. BM25 alone would answer [desk#1, faq#0]; dense alone [faq#0, faq#1].
    hits = example_ranking({"candidates": 2, "top_k": 2}, "Is parking at the gate free?")
    assert [h.chunk_id for h in hits] == ["stack-t/faq#0", "stack-t/desk#1"]


def test_the_example_factory_scores_by_cosine(ragaudit_home):
    hits = example_ranking({"top_k": 2}, "Who collects badges at reception?")
    # "badges", "at" and "reception" are in desk#0; "at" also in desk#1; no other chunk
    # shares a word with the question, so BM25 shortlists those two and cosine orders them
    assert [h.chunk_id for h in hits] == ["stack-t/desk#0", "stack-t/desk#1"]
    embedder = load_embedder("local:minilm", CallCache())
    query = embedder.embed(["Who collects badges at reception?"], role="query")[0]
    passage = embedder.embed([CHUNKS[3].text], role="passage")[0]
    cosine = sum(a * b for a, b in zip(query, passage, strict=True))
    assert hits[0].score == pytest.approx(cosine, abs=1e-6)


# -- the bad ones: one line naming the component -------------------------------------------


def refusal(factory: str, args: dict | None = None, question: str | None = None) -> str:
    with pytest.raises(RagauditError) as caught:
        user = retriever_of(factory, args)
        user.ranking(question or "where is parking", depth=5)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(LABEL + ": ")
    return message


def test_a_factory_that_raises_is_one_line():
    assert refusal("broken") == (
        f"{LABEL}: {HERE}:broken raised ConnectionError: "
        "vector db at 10.0.0.5:6333 refused: retry later"
    )


def test_a_factory_returning_a_non_retriever_is_one_line():
    assert refusal("not_a_retriever") == (
        f"{LABEL}: {HERE}:not_a_retriever returned int, not a llama-index BaseRetriever or "
        "a callable question -> [(chunk text or id, score)]"
    )


def test_an_id_that_names_no_chunk_is_one_line():
    answer = [("stack-t/faq#9", 1.0)]
    assert refusal("fixed_ids", {"answer": answer}) == (
        f"{LABEL}: returned 'stack-t/faq#9' which names no chunk"
    )
    # given documents, a text found in none of them names nothing either
    assert refusal("texts_only", {"answer": [("The canteen opens at noon.", 1.0)]}) == (
        f"{LABEL}: returned 'The canteen opens at noon.' which names no chunk"
    )


def test_other_failures_are_one_line_too():
    assert refusal("raising_at_query") == (
        f"{LABEL}: retriever raised TimeoutError: reranker took over 30 s"
    )
    assert refusal("takes_nothing") == (
        f"{LABEL}: {HERE}:takes_nothing takes neither a chunks nor a documents parameter"
    )
    assert refusal("fixed_ids", {"answer": [("stack-t/faq#0", float("nan"))]}) == (
        f"{LABEL}: returned score nan for 'stack-t/faq#0', not a finite number"
    )
    assert refusal("fixed_ids", {"answer": 7}) == (
        f"{LABEL}: returned 7, not a list of (chunk text or id, score)"
    )
    assert "cannot import" in refusal("no_such_factory")
