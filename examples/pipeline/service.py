"""A small RAG web service (FastAPI on 127.0.0.1, the LangChain chain of langchain_chain.py
inside) with an ingest endpoint: what `service.yaml` audits through `pipeline: http:`.

POST /ingest {"documents": [{id, text, metadata}]} adds documents (the chain is rebuilt on
the next question); POST /ask {"query": q} answers
{"answer": str, "sources": [{"text", "doc_id"}]}. Started by run.py with uvicorn:
`python -m uvicorn service:app --host 127.0.0.1 --port N` in this folder, with
PIPELINE_BASE_URL, PIPELINE_API_KEY and PIPELINE_MODEL set (PIPELINE_MAX_TOKENS caps
a reply, default 64).
"""

from __future__ import annotations

import os
import threading

from fastapi import FastAPI
from langchain_chain import build_chain
from pydantic import BaseModel

app = FastAPI()
_documents: dict[str, str] = {}
_chain: list = []
_lock = threading.Lock()


class Batch(BaseModel):
    documents: list[dict]


class Question(BaseModel):
    query: str


@app.post("/ingest")
def ingest(batch: Batch) -> dict:
    with _lock:
        for doc in batch.documents:
            _documents[doc["id"]] = doc["text"]
        _chain.clear()
    return {"documents": len(_documents)}


@app.post("/ask")
def ask(question: Question) -> dict:
    with _lock:
        if not _chain:
            _chain.append(build_chain(
                list(_documents.items()), os.environ["PIPELINE_MODEL"], 2,
                int(os.environ.get("PIPELINE_MAX_TOKENS", "64")),
                os.environ["PIPELINE_BASE_URL"], os.environ.get("PIPELINE_API_KEY", "none"),
            ))  # fmt: skip
        chain = _chain[0]
    out = chain.invoke({"input": question.query})
    sources = [{"text": d.page_content, "doc_id": d.metadata.get("doc_id")} for d in out["context"]]
    return {"answer": out["answer"], "sources": sources}
