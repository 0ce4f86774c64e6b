"""Real pipeline modules for the `pipeline: factory:` tests, written into a test's folder
beside its stack file (the folder is importable, as a user's project is): a zero-delay
word-overlap RAG over the documents it is handed, in each of the three forms, and an
oracle that answers with its first context's first sentence."""

from __future__ import annotations

from pathlib import Path

WORD_RAG = """
import re


def _words(text):
    return set(re.findall(r"\\w+", text.lower()))


def _passages(documents):
    return [(d["id"], p) for d in documents for p in d["text"].split("\\n\\n") if p.strip()]


def _rank(passages, question, k):
    q = _words(question)
    return sorted(passages, key=lambda p: (-len(q & _words(p[1])), p[0]))[:k]


def make(documents, k=3, shape="plain", normalise=False, rewrite_first=False, raise_on=None):
    passages = _passages(documents)

    def contexts(question):
        out = []
        for i, (doc_id, text) in enumerate(_rank(passages, question, k)):
            if normalise:
                text = "**" + " ".join(text.split()) + "**"
            if rewrite_first and i == 0:
                text = "In short: " + " ".join(reversed(text.split()))
            out.append((doc_id, text, float(k - i)))
        return out

    def plain(question):
        if raise_on and raise_on in question:
            raise RuntimeError("the index is rebuilding")
        found = contexts(question)
        return {
            "answer": found[0][1][:300] + " [c1]",
            "contexts": [{"text": t, "id": d, "doc_id": d, "score": s} for d, t, s in found],
        }

    if shape == "plain":
        return plain
    if shape == "junk":
        return lambda question: {"answer": None, "contexts": []}
    if shape == "llama":
        from llama_index.core.base.response.schema import Response
        from llama_index.core.query_engine import CustomQueryEngine
        from llama_index.core.schema import NodeWithScore, TextNode

        class WordEngine(CustomQueryEngine):
            def custom_query(self, query_str):
                found = plain(query_str)
                nodes = [
                    NodeWithScore(node=TextNode(text=c["text"], id_=f"n{i}"), score=c["score"])
                    for i, c in enumerate(found["contexts"])
                ]
                return Response(response=found["answer"], source_nodes=nodes)

        return WordEngine()
    if shape == "langchain":
        from langchain_core.documents import Document
        from langchain_core.runnables import RunnableLambda

        def chain(given):
            found = plain(given["input"])
            docs = [Document(page_content=c["text"], metadata={"doc_id": c["id"]})
                    for c in found["contexts"]]
            return {"input": given["input"], "answer": found["answer"], "context": docs}

        return RunnableLambda(chain)
    raise ValueError(shape)


def fails_to_build(documents):
    raise RuntimeError("cannot reach the vector store")


def first_sentence_oracle():
    def answer(question, contexts):
        return contexts[0].split(". ")[0] if contexts else "NOT_IN_CONTEXT"
    return answer
"""


def write_word_rag(folder: Path, name: str = "word_rag") -> Path:
    """The module written into `folder` as `<name>.py`."""
    path = folder / f"{name}.py"
    path.write_text(WORD_RAG)
    return path
