"""The stack stage: the planted corpus through a user's splitter and our core or their
retriever, giving the same fragments as the matrix's stage; bad components are one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragaudit.backends.cache import CallCache
from ragaudit.backends.specs import load_embedder
from ragaudit.corpus.files import load_planted_corpus
from ragaudit.errors import RagauditError
from ragaudit.runner.progress import Progress
from ragaudit.runner.stack_retrieval import StackRetrieval
from ragaudit.runner.stage import fold_fragments
from ragaudit.stack.index import open_client
from ragaudit.targets.stackfile import load_stack

FRAGMENT_KEYS = {"instances", "chunks", "chunk_counts", "chunk_offsets", "indexes", "failed_calls"}

LANGCHAIN = """\
name: lc
splitter:
  class: langchain_text_splitters.RecursiveCharacterTextSplitter
  args: {chunk_size: 1000, chunk_overlap: 200}
embedder: local:minilm
k: 3
probes: [boundary, multihop]
"""


RECURSIVE = "langchain_text_splitters.RecursiveCharacterTextSplitter"
RECURSIVE_ARGS = "{chunk_size: 1000, chunk_overlap: 0}"


def own(factory: str, splitter: str = RECURSIVE, args: str = RECURSIVE_ARGS) -> str:
    return (
        "name: theirs\n"
        f"splitter: {{class: {splitter}, args: {args}}}\n"
        f"retriever: {{factory: '{factory}'}}\n"
        "k: 2\nprobes: [boundary]\n"
    )


# --- user code the stack files below name (this module is importable as test_userstack_stage)


def anchor_retriever(chunks):
    """A plain callable: the chunks holding the question's last word, by id, score 1.0."""

    def retrieve(question: str):
        word = question.rstrip("?").split()[-1].lower()
        return [(node.node_id, 1.0) for node in chunks if word in node.get_content().lower()]

    return retrieve


def phantom_retriever(chunks):
    return lambda question: [("no-such-chunk-id", 0.5)]


def raising_retriever(chunks):
    raise ConnectionError("vector store at 10.0.0.9:6333 refused the connection")


class EmptySplitter:
    """A LangChain-shaped splitter that returns a whitespace-only chunk."""

    def split_text(self, text: str) -> list[str]:
        return [text[:10], "   "]


# ---


@pytest.fixture(scope="module")
def corpus():
    return load_planted_corpus().subset(1)


def stage_of(tmp_path: Path, text: str, corpus, embedder=None) -> StackRetrieval:
    path = tmp_path / "stack.yaml"
    path.write_text(text, encoding="utf-8")
    stack = load_stack(path)
    return StackRetrieval(
        corpus, stack, embedder, open_client(in_memory=True), Progress(stream=None)
    )


def contains_gold(record: dict, chunks: dict) -> bool:
    """By hand: every gold text appears inside some retrieved chunk's text."""
    texts = [chunks[hit["chunk_id"]]["text"] for hit in record["retrieved"]]
    return all(any(g["text"] in t for t in texts) for g in record["gold_spans"])


def test_our_core_over_their_splitter_gives_the_matrix_fragments(tmp_path, corpus, ragaudit_home):
    embedder = load_embedder("local:minilm", CallCache())
    fragment = stage_of(tmp_path, LANGCHAIN, corpus, embedder).run()
    assert set(fragment) == FRAGMENT_KEYS
    records = fragment["instances"]
    assert [r["instance_id"] for r in records] == ["boundary-000", "multihop-000"]
    documents = {d.doc_id: d.text for d in corpus.documents}
    for record in records:
        assert record["config"] == "lc" and record["chunking"] == "stack-lc"
        assert record["embedder"] == "local:minilm" and record["k"] == 3
        assert len(record["retrieved"]) == 3
        assert record["gold_in_context"] == contains_gold(record, fragment["chunks"])
    for chunk_id, chunk in fragment["chunks"].items():
        assert chunk_id.startswith("stack-lc/") and chunk["span_exact"] is True
        assert documents[chunk["doc_id"]][chunk["start"] : chunk["end"]] == chunk["text"]
    offsets = fragment["chunk_offsets"]["stack-lc"]
    assert fragment["chunk_counts"] == {"stack-lc": sum(len(v) for v in offsets.values())}
    (index,) = fragment["indexes"]
    assert index["chunking"] == "stack-lc" and index["approximate_spans"] == 0
    assert index["chunks"] == fragment["chunk_counts"]["stack-lc"]
    assert fragment["failed_calls"] == []


def test_their_retriever_ranks_and_names_the_records(tmp_path, corpus):
    fragment = stage_of(tmp_path, own("test_userstack_stage:anchor_retriever"), corpus).run()
    (record,) = fragment["instances"]
    assert record["embedder"] == "retriever:test_userstack_stage:anchor_retriever"
    assert len(record["retrieved"]) <= 2
    assert record["gold_in_context"] == contains_gold(record, fragment["chunks"])
    assert fragment["indexes"][0]["collection"] is None


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (own("test_userstack_stage:raising_retriever"), "ConnectionError"),
        (
            own(
                "test_userstack_stage:anchor_retriever", "test_userstack_stage.EmptySplitter", "{}"
            ),
            "empty",
        ),
    ],
)
def test_a_bad_component_is_one_line_naming_it(tmp_path, corpus, text, says):
    with pytest.raises(RagauditError) as caught:
        stage_of(tmp_path, text, corpus).run()
    message = str(caught.value)
    assert "\n" not in message and says in message
    assert f"stack file {tmp_path / 'stack.yaml'}: line " in message


def test_a_question_answered_with_no_chunk_is_a_failed_call_not_the_end(tmp_path, corpus):
    """Junk for one question is that question's failed call (issue 25, item 14)."""
    fragment = stage_of(tmp_path, own("test_userstack_stage:phantom_retriever"), corpus).run()
    (record,) = fragment["instances"]
    assert record["retrieved"] == [] and "names no chunk" in record["retrieval_error"]
    (failed,) = fragment["failed_calls"]
    assert failed["kind"] == "retrieve" and failed["instance_keys"] == [record["key"]]


def test_a_fragment_merges_into_the_matrix_fragments():
    matrix = {
        "instances": [{"key": "m"}], "chunks": {"A/x#0": {}}, "chunk_counts": {"A": 1},
        "chunk_offsets": {"A": {}}, "indexes": [{"chunking": "A"}], "failed_calls": [],
        "comparisons": [{"name": "A->A_prime"}],
    }  # fmt: skip
    stack = {
        "instances": [{"key": "s"}], "chunks": {"stack-s/x#0": {}}, "chunk_counts": {"stack-s": 2},
        "chunk_offsets": {"stack-s": {}}, "indexes": [{"chunking": "stack-s"}],
        "failed_calls": [{"kind": "embed"}], "comparisons": [],
    }  # fmt: skip
    merged = fold_fragments([matrix, stack])
    assert [r["key"] for r in merged["instances"]] == ["m", "s"]
    assert merged["chunk_counts"] == {"A": 1, "stack-s": 2}
    assert set(merged["chunks"]) == {"A/x#0", "stack-s/x#0"}
    assert len(merged["indexes"]) == 2 and merged["failed_calls"] == [{"kind": "embed"}]
    assert merged["comparisons"] == [{"name": "A->A_prime"}]  # the first stage's, not []
    # with no matrix (--stack-only), the first stack gives the run-wide keys
    assert fold_fragments([stack, matrix])["comparisons"] == []
