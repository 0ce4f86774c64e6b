"""The character chunkers: exact spans, sizes, overlaps, separators kept at the end."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from ragaudit.documents import Document
from ragaudit.errors import RagauditError
from ragaudit.stack.chunking import (
    Chunking,
    chunk_corpus,
    chunk_document,
    chunk_spans,
    chunking_name,
)

WORDS = "alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega".split()


def random_text(rng: random.Random, paragraphs: int = 6) -> str:
    """Paragraphs of sentences of random words; some sentences are long and unbroken."""
    paras = []
    for _ in range(paragraphs):
        sentences = []
        for _ in range(rng.randint(1, 12)):
            words = [rng.choice(WORDS) for _ in range(rng.randint(3, 40))]
            sentences.append(" ".join(words).capitalize() + ".")
        paras.append(" ".join(sentences))
    return "\n\n".join(paras)


def test_chunking_names_and_validation():
    assert Chunking("fixed", 1000, 0).name == "fixed-1000-0"
    assert Chunking("recursive", 1000, 200).name == "recursive-1000-200-carry_tail"
    assert Chunking("recursive", 512, 128, "langchain").name == "recursive-512-128-langchain"
    # The audit's settings and the inspector's result configs spell names the same way.
    assert chunking_name("recursive", 512, 128) == "recursive-512-128-carry_tail"
    assert chunking_name("recursive", 512, 128, "langchain") == "recursive-512-128-langchain"
    with pytest.raises(RagauditError, match="size"):
        Chunking("fixed", 0, 0)
    with pytest.raises(RagauditError, match="overlap"):
        Chunking("recursive", 100, 100)
    with pytest.raises(RagauditError, match="overlap"):
        Chunking("recursive", 100, -1)
    with pytest.raises(RagauditError, match="splitter"):
        Chunking("semantic", 100, 0)  # type: ignore[arg-type]
    with pytest.raises(RagauditError, match="recursive-1000-0"):
        Chunking.from_name("recursive1000")
    with pytest.raises(RagauditError, match="overlap_rule 'tail' is not one of"):
        Chunking("recursive", 100, 10, "tail")  # type: ignore[arg-type]


def test_both_name_spellings_read_back():
    for name in ("recursive-1000-200-carry_tail", "recursive-512-128-langchain"):
        assert Chunking.from_name(name).name == name
    assert Chunking.from_name("recursive-512-128-langchain") == Chunking(
        "recursive", 512, 128, "langchain"
    )
    # The 3-part forms: overlap 0 and the fixed splitter take no rule suffix ...
    for name in ("recursive-1000-0", "fixed-1000-200", "recursive-4000-0"):
        assert Chunking.from_name(name).name == name
    # ... and a 3-part recursive overlap is how files before the rules spelt LangChain's.
    assert Chunking.from_name("recursive-1000-200") == Chunking("recursive", 1000, 200, "langchain")
    assert chunking_name("recursive", 1000, 200, None) == "recursive-1000-200"
    with pytest.raises(RagauditError, match="'tail' is not one of carry_tail, langchain"):
        Chunking.from_name("recursive-1000-200-tail")


def test_overlap_zero_is_one_chunking_under_either_rule():
    # At overlap 0 the rules cut the same chunks, so A_prime/C_prime keep their one name.
    assert Chunking("recursive", 1000, 0, "langchain") == Chunking("recursive", 1000, 0)
    assert Chunking("recursive", 1000, 0, "langchain").name == "recursive-1000-0"


def test_the_fixed_splitter_refuses_the_langchain_rule_in_one_line():
    with pytest.raises(RagauditError) as caught:
        Chunking("fixed", 1000, 200, "langchain")
    assert str(caught.value) == (
        "the 'langchain' rule applies to the recursive splitter only: the fixed splitter's "
        "sliding window already carries the previous chunk's tail"
    )


def test_fixed_splitter_cuts_at_offsets():
    text = "x" * 2500
    assert chunk_spans(text, Chunking("fixed", 1000, 0)) == [(0, 1000), (1000, 2000), (2000, 2500)]
    assert chunk_spans(text, Chunking("fixed", 1000, 200)) == [
        (0, 1000),
        (800, 1800),
        (1600, 2500),
    ]
    assert chunk_spans("x" * 1000, Chunking("fixed", 1000, 200)) == [(0, 1000)]
    assert chunk_spans("", Chunking("fixed", 1000, 0)) == []


def test_recursive_keeps_separator_with_the_sentence_it_ends():
    # "aaa. " + "bbb. " is 10 > 9, so the cut falls after "aaa. " and the space is stripped.
    assert [
        "aaa. bbb. ccc"[s:e] for s, e in chunk_spans("aaa. bbb. ccc", Chunking("recursive", 9, 0))
    ] == ["aaa.", "bbb. ccc"]
    # Paragraphs are preferred over sentences when they fit.
    text = "One. Two.\n\nThree four five."
    assert [text[s:e] for s, e in chunk_spans(text, Chunking("recursive", 20, 0))] == [
        "One. Two.",
        "Three four five.",
    ]
    # A word longer than the chunk falls through to single characters.
    assert [
        len("abcdefghij"[s:e]) for s, e in chunk_spans("abcdefghij", Chunking("recursive", 4, 0))
    ] == [
        4,
        4,
        2,
    ]


def test_langchain_overlap_carries_trailing_pieces():
    text = "aa. bb. cc. dd. ee."
    chunks = [text[s:e] for s, e in chunk_spans(text, Chunking("recursive", 8, 4, "langchain"))]
    # pieces are 4 characters ("aa. "); 8 fits two; an overlap of 4 carries the last one.
    assert chunks == ["aa. bb.", "bb. cc.", "cc. dd.", "dd. ee."]


# Overlap 0 at size 40 cuts "Pump log" [0, 8), "The pump ran. It stopped at noon." [10, 43),
# "Then it ran again." [44, 62) and "Done." [64, 69) (worked by hand from the separators).
PUMP_LOG = "Pump log\n\nThe pump ran. It stopped at noon. Then it ran again.\n\nDone."


def test_carry_tail_prefixes_the_previous_chunks_tail_at_a_separator():
    spans = chunk_spans(PUMP_LOG, Chunking("recursive", 40, 25))
    assert [PUMP_LOG[s:e] for s, e in spans] == [
        "Pump log",
        # "Pump log" (8 <= 25 characters) travels whole, with the blank line after it.
        "Pump log\n\nThe pump ran. It stopped at noon.",
        # The last 25 characters are " ran. It stopped at noon."; its coarsest separator
        # is ". ", so the carry starts after it (not after the earlier " ").
        "It stopped at noon. Then it ran again.",
        "Then it ran again.\n\nDone.",
    ]
    assert [e for _, e in spans] == [8, 43, 62, 69]  # each chunk still ends where it did


def test_carry_tail_carries_at_most_the_overlap():
    spans = chunk_spans(PUMP_LOG, Chunking("recursive", 40, 20))
    # The window " It stopped at noon." holds no ". ": the carry starts after its " ".
    assert PUMP_LOG[spans[2][0] : spans[2][1]] == "It stopped at noon. Then it ran again."
    spans = chunk_spans(PUMP_LOG, Chunking("recursive", 40, 12))
    # The window is "ped at noon.": after its first " " the carry is "at noon.".
    assert PUMP_LOG[spans[2][0] : spans[2][1]] == "at noon. Then it ran again."
    # A window with no separator at all is carried from its first character.
    text = "abcdefghij"
    assert [text[s:e] for s, e in chunk_spans(text, Chunking("recursive", 4, 2))] == [
        "abcd",
        "cdefgh",
        "ghij",
    ]


@pytest.mark.parametrize(
    "chunking",
    [
        Chunking("fixed", 300, 0),
        Chunking("fixed", 300, 120),
        Chunking("recursive", 300, 0),
        Chunking("recursive", 300, 100, "langchain"),
        Chunking("recursive", 1000, 200, "langchain"),
        Chunking("recursive", 97, 13, "langchain"),
        Chunking("recursive", 300, 100),
        Chunking("recursive", 1000, 200),
        Chunking("recursive", 97, 13),
    ],
    ids=lambda c: c.name,
)
def test_spans_are_exact_bounded_and_cover_the_text(chunking):
    rng = random.Random(7)
    for trial in range(20):
        text = random_text(rng)
        doc = Document(f"d{trial}", text)
        chunks = chunk_document(doc, chunking)
        assert chunks == chunk_document(doc, chunking)  # deterministic
        # carry_tail: the overlap-0 chunks, each grown backwards by at most the overlap.
        carried = chunking.overlap_rule == "carry_tail" and chunking.splitter == "recursive"
        plain = chunk_spans(text, replace(chunking, overlap=0)) if carried else []
        assert not carried or len(chunks) == len(plain)
        covered = set()
        previous_start = -1
        for index, chunk in enumerate(chunks):
            assert chunk.chunk_id == f"{chunking.name}/d{trial}#{index}"
            assert text[chunk.start : chunk.end] == chunk.text
            assert chunk.text == chunk.text.strip() or chunking.splitter == "fixed"
            if carried:
                own_start, own_end = plain[index]
                assert chunk.end == own_end and chunk.start <= own_start
                assert index == 0 or chunk.start >= plain[index - 1][1] - chunking.overlap
                assert own_end - own_start <= chunking.size
            else:
                assert 0 < len(chunk.text) <= chunking.size
            assert chunk.start > previous_start  # in document order
            previous_start = chunk.start
            covered.update(range(chunk.start, chunk.end))
        # Nothing but whitespace is ever lost.
        assert all(text[i].isspace() for i in set(range(len(text))) - covered)
        for before, after in zip(chunks, chunks[1:], strict=False):
            assert (
                after.start - before.end >= -chunking.overlap
            )  # overlap never exceeds the setting
            if chunking.overlap == 0:
                assert after.start >= before.end


def test_recursive_never_cuts_a_fresh_sentence_that_fits():
    rng = random.Random(11)
    chunking = Chunking("recursive", 400, 0)
    for trial in range(30):
        text = random_text(rng, paragraphs=4)
        spans = chunk_spans(text, chunking)
        start = 0
        for para in text.split("\n\n"):
            for sentence in para.split(". "):
                sentence = sentence if sentence.endswith(".") else sentence + "."
                s = text.index(sentence, start)
                start = s + len(sentence)
                if len(sentence) <= chunking.size:
                    assert any(a <= s and start <= b for a, b in spans), (trial, sentence)


def test_repeated_text_gets_distinct_correct_spans():
    para = "The same sentence again and again. " * 5
    text = "\n\n".join([para.strip()] * 6)
    doc = Document("rep", text)
    chunks = chunk_document(doc, Chunking("recursive", 400, 100))
    starts = [c.start for c in chunks]
    assert starts == sorted(set(starts))
    assert all(text[c.start : c.end] == c.text for c in chunks)
    assert chunks[-1].end == len(text)


def test_chunk_corpus_keeps_document_order():
    docs = [Document("a", "One. Two. Three."), Document("b", "Four. Five.")]
    chunks = chunk_corpus(docs, Chunking("recursive", 6, 0))
    assert [c.doc_id for c in chunks] == ["a", "a", "a", "b", "b"]
    assert [c.index for c in chunks] == [0, 1, 2, 0, 1]


def test_character_node_parser_matches_chunk_document():
    from llama_index.core.schema import MetadataMode

    from ragaudit.stack.chunking import CharacterNodeParser, llama_documents

    text = "\n\n".join(["Repeated paragraph text here. " * 8] * 4)
    doc = Document("doc-1", text)
    chunking = Chunking("recursive", 300, 60)
    nodes = CharacterNodeParser(chunking=chunking).get_nodes_from_documents(llama_documents([doc]))
    chunks = chunk_document(doc, chunking)
    assert [n.id_ for n in nodes] == [c.chunk_id for c in chunks]
    for node, chunk in zip(nodes, chunks, strict=True):
        assert node.text == chunk.text
        assert (node.start_char_idx, node.end_char_idx) == (chunk.start, chunk.end)
        assert node.metadata == {
            "doc_id": "doc-1",
            "start": chunk.start,
            "end": chunk.end,
            "chunking": "recursive-300-60-carry_tail",
        }
        # identifiers must not leak into what is embedded
        assert node.get_content(metadata_mode=MetadataMode.EMBED) == chunk.text


def test_importing_chunking_and_corpus_loads_no_heavy_library():
    import subprocess
    import sys

    code = (
        "import sys, ragaudit.stack.chunking, ragaudit.corpus.build, ragaudit.corpus.files,"
        " ragaudit.corpus.stats, ragaudit.cli.corpus;"
        "heavy = [m for m in ('llama_index', 'chromadb', 'onnxruntime', 'streamlit')"
        " if any(k == m or k.startswith(m + '.') for k in sys.modules)];"
        "print(','.join(heavy))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""
