"""test_mutate_discriminates' harbour corpus and cases with two stack files over real user
code: `good.yaml` (the word-overlap retriever) and `down.yaml` (a retriever of the same
module that raises on every question, as a search service that is down). No model loads."""

from __future__ import annotations

from pathlib import Path

from test_mutate_discriminates import CASES, FILLER, POLICY, RETRIEVER, TABLE

DOWN = """

def down(chunks):
    def retrieve(question):
        raise ConnectionError("the search service is down")
    return retrieve
"""
STACK = """\
name: {name}
splitter:
  class: langchain_text_splitters.RecursiveCharacterTextSplitter
  args: {{chunk_size: 400, chunk_overlap: 0}}
retriever:
  factory: harbour_retriever:{factory}
  args: {{}}
k: 2
"""


def write_harbour(root: Path) -> Path:
    """Write corpus/, cases.yaml, harbour_retriever.py, good.yaml and down.yaml into
    `root` (which must be on sys.path for the stacks to import the retriever). The module
    has its own name: test_mutate_discriminates' overlap_retriever, imported first in the
    same process, has no `down`."""
    corpus = root / "corpus"
    corpus.mkdir()
    (corpus / "handbook.md").write_text(POLICY, encoding="utf-8")
    (corpus / "cranes.md").write_text(TABLE, encoding="utf-8")
    for i, text in enumerate(FILLER):
        (corpus / f"news-{i}.md").write_text(" ".join([text] * 3), encoding="utf-8")
    (root / "cases.yaml").write_text(CASES, encoding="utf-8")
    (root / "harbour_retriever.py").write_text(RETRIEVER + DOWN, encoding="utf-8")
    for name, factory in (("good", "make"), ("down", "down")):
        (root / f"{name}.yaml").write_text(STACK.format(name=name, factory=factory), "utf-8")
    return root
