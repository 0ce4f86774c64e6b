"""The user's splitter, run through the real llama-index and LangChain packages: every chunk
gets its exact span in its document, text that repeats is never placed at its first match,
and a chunk the library rewrote is marked approximate and counted."""

from __future__ import annotations

import pytest
from langchain_text_splitters import RecursiveCharacterTextSplitter, TextSplitter
from llama_index.core.node_parser import (
    HierarchicalNodeParser,
    MarkdownNodeParser,
    NodeParser,
    SentenceSplitter,
    TokenTextSplitter,
)
from llama_index.core.schema import TextNode

from ragaudit.corpus.files import load_planted_corpus
from ragaudit.documents import Document
from ragaudit.errors import RagauditError
from ragaudit.targets.splitter import UserSplitter

REPEATED_PARAGRAPHS = "\n\n".join(["Repeat me now."] * 4)
"""Four 14-character paragraphs at 0, 16, 32 and 48 (each "\\n\\n" is 2 characters)."""
REPEATED_SENTENCES = " ".join(["The pump runs at night."] * 8)
"""Eight 23-character sentences, one every 24 characters: at 0, 24, 48, ..., 168."""


def spans(outcome) -> list[tuple[int, int]]:
    return [(chunk.start, chunk.end) for chunk in outcome.chunks]


def split_one(component, text: str, doc_id: str = "doc-1"):
    return UserSplitter(component, "splitter").split([Document(doc_id, text)], "stack-t")


@pytest.fixture(scope="module")
def corpus_documents() -> list[Document]:
    return load_planted_corpus().documents


def test_langchain_recursive_places_repeated_paragraphs_where_they_are() -> None:
    # chunk_size 30: "P\n\nP" (30 characters) fits, then each last paragraph alone. The
    # overlap of 16 carries nothing (the next piece would not fit), so LangChain's own
    # add_start_index search (from index + length - overlap) lands on 16 twice.
    for add_start_index in (False, True):
        splitter = RecursiveCharacterTextSplitter(
            chunk_size=30, chunk_overlap=16, add_start_index=add_start_index
        )
        outcome = split_one(splitter, REPEATED_PARAGRAPHS)
        assert spans(outcome) == [(0, 30), (32, 46), (48, 62)]
        assert outcome.approximate == 0
        assert all(chunk.span_exact for chunk in outcome.chunks)


def test_langchain_recursive_with_overlap_keeps_overlapping_spans() -> None:
    text = "Alpha one. Alpha one. Alpha one. Alpha one.\n\nBeta two. Beta two."
    # Word pieces "Alpha"(5) " one."(5) " Alpha"(6) ...: 21 characters fit in 22; each next
    # chunk keeps the previous one's last 11 characters, so three identical chunks overlap.
    for add_start_index in (False, True):
        splitter = RecursiveCharacterTextSplitter(
            chunk_size=22, chunk_overlap=11, add_start_index=add_start_index
        )
        outcome = split_one(splitter, text)
        assert spans(outcome) == [(0, 21), (11, 32), (22, 43), (45, 64)]
        assert [chunk.text for chunk in outcome.chunks] == [
            "Alpha one. Alpha one.",
            "Alpha one. Alpha one.",
            "Alpha one. Alpha one.",
            "Beta two. Beta two.",
        ]


def test_llama_index_sentence_splitter_places_repeated_chunks_where_they_are() -> None:
    # 14 tokens hold two sentences: four identical 47-character chunks, one every 48
    # characters. llama-index's own start_char_idx (find from the previous start + 1)
    # would put them at 0, 24, 48, 72, leaving the second half of the text uncovered.
    outcome = split_one(SentenceSplitter(chunk_size=14, chunk_overlap=0), REPEATED_SENTENCES)
    assert spans(outcome) == [(0, 47), (48, 95), (96, 143), (144, 191)]
    assert outcome.approximate == 0


def test_llama_index_markdown_parser_spans() -> None:
    text = "# Title\n\nIntro para.\n\n## Part\n\nSame line.\n\n## Part\n\nSame line.\n"
    outcome = split_one(MarkdownNodeParser(), text)
    assert spans(outcome) == [(0, 20), (22, 41), (43, 62)]
    assert [chunk.text for chunk in outcome.chunks] == [
        "# Title\n\nIntro para.",
        "## Part\n\nSame line.",
        "## Part\n\nSame line.",
    ]


def test_hierarchical_parser_levels_are_each_placed_from_the_start() -> None:
    # Twelve 65-character paragraphs, one every 67 characters (paragraph 11 is 66 long):
    # level 128 holds paragraphs 0-7 and 8-11, level 32 two paragraphs each. llama-index
    # gives the last two children offsets within their parent (0 and 134), not the text.
    text = "\n\n".join(
        f"Paragraph {i} says the pump runs at night and the valve stays shut." for i in range(12)
    )
    parser = HierarchicalNodeParser.from_defaults(chunk_sizes=[128, 32], chunk_overlap=0)
    outcome = split_one(parser, text)
    assert spans(outcome) == [
        (0, 534),
        (536, 804),
        (0, 132),
        (134, 266),
        (268, 400),
        (402, 534),
        (536, 668),
        (670, 804),
    ]
    assert outcome.approximate == 0


@pytest.mark.parametrize(
    ("overlap", "step", "pairs", "tail"), [(0, 24, 200, []), (12, 12, 399, [(4788, 4799)])]
)
def test_a_table_of_identical_rows_is_placed_row_by_row(overlap, step, pairs, tail) -> None:
    # 400 identical 12-character rows; a 24-character chunk holds two rows (23 characters
    # once stripped). Without overlap chunk i starts at 24 i (200 chunks); with 12, at 12 i
    # (399 chunks), and LangChain's last merge leaves the final row alone. Far more copies
    # than the alignment keeps open at once (MAX_STATES).
    text = "row | x | y\n" * 400
    splitter = RecursiveCharacterTextSplitter(chunk_size=24, chunk_overlap=overlap)
    outcome = split_one(splitter, text)
    assert spans(outcome) == [(i * step, i * step + 23) for i in range(pairs)] + tail
    assert outcome.approximate == 0


def test_chunk_ids_name_the_chunking_the_document_and_the_position() -> None:
    splitter = UserSplitter(
        RecursiveCharacterTextSplitter(chunk_size=30, chunk_overlap=0), "splitter"
    )
    documents = [Document("a", REPEATED_PARAGRAPHS), Document("b", "Short one.")]
    outcome = splitter.split(documents, "stack-mine")
    assert [chunk.chunk_id for chunk in outcome.chunks] == [
        "stack-mine/a#0",
        "stack-mine/a#1",
        "stack-mine/a#2",
        "stack-mine/b#0",
    ]
    assert [chunk.index for chunk in outcome.chunks] == [0, 1, 2, 0]
    assert splitter.kind == "langchain"
    assert (
        splitter.describe() == "langchain_text_splitters.character.RecursiveCharacterTextSplitter"
    )


@pytest.mark.parametrize(
    "component",
    [
        SentenceSplitter(chunk_size=256, chunk_overlap=32),
        TokenTextSplitter(chunk_size=128, chunk_overlap=16),
        RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=200),
        RecursiveCharacterTextSplitter(chunk_size=512, chunk_overlap=128, add_start_index=True),
    ],
    ids=["sentence-256-32", "token-128-16", "recursive-1000-200", "recursive-512-128-start"],
)
def test_probe_corpus_chunks_are_exact_in_order_and_cover_every_document(
    component, corpus_documents
) -> None:
    outcome = UserSplitter(component, "splitter").split(corpus_documents, "stack-t")
    assert outcome.approximate == 0
    by_doc: dict[str, list] = {}
    for chunk in outcome.chunks:
        by_doc.setdefault(chunk.doc_id, []).append(chunk)
    texts = {doc.doc_id: doc.text for doc in corpus_documents}
    assert set(by_doc) == set(texts)
    for doc_id, chunks in by_doc.items():
        text = texts[doc_id]
        assert all(text[c.start : c.end] == c.text and c.span_exact for c in chunks)
        assert all(a.start < b.start for a, b in zip(chunks, chunks[1:], strict=False))
        covered = [False] * len(text)
        for chunk in chunks:
            covered[chunk.start : chunk.end] = [True] * (chunk.end - chunk.start)
        assert all(covered[i] or text[i].isspace() for i in range(len(text))), doc_id


def test_langchain_regex_separator_rewrites_a_chunk_which_is_counted_approximate() -> None:
    # keep_separator=False makes LangChain join merged pieces with the separator itself,
    # here the regex source: "Fourth.\\s*\\n\\s*Fifth one." is in no document.
    text = (
        "First line here.   \n   Second line here.\n\n\n"
        "Third line, much longer than the others are.\n  Fourth.  \nFifth one."
    )
    splitter = RecursiveCharacterTextSplitter(
        separators=[r"\s*\n\s*", " "],
        is_separator_regex=True,
        keep_separator=False,
        chunk_size=40,
        chunk_overlap=0,
    )
    outcome = split_one(splitter, text)
    rewritten = [chunk for chunk in outcome.chunks if not chunk.span_exact]
    assert outcome.approximate == 1
    assert [chunk.text for chunk in rewritten] == [r"Fourth.\s*\n\s*Fifth one."]
    assert text[rewritten[0].start : rewritten[0].end] == "Fourth.  \nFifth one."
    exact = [chunk for chunk in outcome.chunks if chunk.span_exact]
    assert all(text[c.start : c.end] == c.text for c in exact)
    assert len(exact) == len(outcome.chunks) - 1


def test_a_rewritten_chunk_among_repeats_is_aligned_between_its_neighbours() -> None:
    paragraph = "Alpha one.\nAlpha two."  # 21 characters; copies at 0, 23 and 46
    text = "\n\n".join([paragraph] * 3)
    splitter = RecursiveCharacterTextSplitter(
        separators=[r"\n\n", r"\n"],
        is_separator_regex=True,
        keep_separator=False,
        chunk_size=50,
        chunk_overlap=0,
    )
    outcome = split_one(splitter, text)
    # Two paragraphs merge (21 + 4 + 21 = 46 <= 50), joined by the four characters "\n\n"
    # written out; the third stays whole and verbatim, so it is the copy at 46.
    assert [chunk.text for chunk in outcome.chunks] == [
        paragraph + r"\n\n" + paragraph,
        paragraph,
    ]
    assert spans(outcome) == [(0, 44), (46, 67)]
    assert [chunk.span_exact for chunk in outcome.chunks] == [False, True]
    assert outcome.approximate == 1


class LowercasingParser(NodeParser):
    """A node parser that rewrites: one lower-cased node per paragraph."""

    def _parse_nodes(self, nodes, show_progress: bool = False, **kwargs) -> list:
        return [
            TextNode(text=paragraph.lower())
            for node in nodes
            for paragraph in node.get_content().split("\n\n")
        ]


def test_lowercasing_parser_chunks_are_approximate_and_placed_in_order() -> None:
    text = "Alpha Beta.\n\nGamma.\n\nAlpha Beta."
    outcome = split_one(LowercasingParser(), text)
    assert spans(outcome) == [(0, 11), (13, 19), (21, 32)]
    assert [chunk.text for chunk in outcome.chunks] == ["alpha beta.", "gamma.", "alpha beta."]
    assert outcome.approximate == 3
    assert not any(chunk.span_exact for chunk in outcome.chunks)


class BlankChunkSplitter(TextSplitter):
    def split_text(self, text: str) -> list[str]:
        return [text, "   "]


class RaisingSplitter(TextSplitter):
    def split_text(self, text: str) -> list[str]:
        raise ValueError("tokenizer file missing\nsecond line of detail")


class SilentSplitter(TextSplitter):
    def split_text(self, text: str) -> list[str]:
        return []


@pytest.mark.parametrize(
    ("component", "expected"),
    [
        (BlankChunkSplitter(), "splitter: returned an empty chunk ('   ') as chunk 1 of document"),
        (RaisingSplitter(), "splitter: raised ValueError: tokenizer file missing"),
        (SilentSplitter(), "splitter: returned no chunk for document 'doc-1'"),
    ],
    ids=["empty-chunk", "raises", "no-chunk"],
)
def test_a_misbehaving_splitter_is_one_line_naming_it_and_the_document(component, expected) -> None:
    with pytest.raises(RagauditError) as caught:
        split_one(component, "Some text to cut.", doc_id="doc-1")
    message = str(caught.value)
    assert message.startswith(expected)
    assert "'doc-1'" in message
    assert "\n" not in message


def test_an_empty_document_may_give_no_chunk() -> None:
    assert split_one(SilentSplitter(), "  \n ").chunks == []


@pytest.mark.parametrize("component", [{"chunk_size": 500}, "split me", 42])
def test_an_object_that_is_neither_kind_is_refused_in_one_line(component) -> None:
    with pytest.raises(RagauditError) as caught:
        UserSplitter(component, "stack.yaml: splitter")
    name = f"{type(component).__module__}.{type(component).__qualname__}"
    assert str(caught.value) == (
        f"stack.yaml: splitter: {name} is neither a llama-index node parser "
        "nor a LangChain text splitter"
    )


def test_llama_index_parsers_are_told_from_langchain_splitters() -> None:
    # SentenceSplitter has split_text too; it is run as a node parser.
    assert UserSplitter(SentenceSplitter(), "splitter").kind == "llama_index"
    assert UserSplitter(TokenTextSplitter(), "splitter").kind == "llama_index"
