"""A LangChain LCEL retrieval chain (langchain-core, langchain-openai against an
OpenAI-compatible server): the pipeline `langchain.yaml` names. Its output is a dict with
`answer` and `context` (Documents), as create_retrieval_chain's is."""

from __future__ import annotations

import os
from operator import itemgetter
from typing import Any

from minilm_embeddings import langchain_embeddings

PROMPT = (
    "Answer the question from the context only. If the context does not say, reply that "
    "you do not know.\n\nContext:\n{context}\n\nQuestion: {input}"
)


def build_chain(texts: list[tuple[str, str]], model: str, k: int, max_tokens: int,
                base_url: str, api_key: str) -> Any:  # fmt: skip
    """The chain over (doc_id, text) pairs: split, embed in memory, retrieve k, answer."""
    from langchain_core.documents import Document
    from langchain_core.output_parsers import StrOutputParser
    from langchain_core.prompts import ChatPromptTemplate
    from langchain_core.runnables import RunnableLambda, RunnablePassthrough
    from langchain_core.vectorstores import InMemoryVectorStore
    from langchain_openai import ChatOpenAI
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    splitter = RecursiveCharacterTextSplitter(chunk_size=800, chunk_overlap=0)
    chunks = splitter.split_documents(
        [Document(page_content=text, metadata={"doc_id": doc_id}) for doc_id, text in texts]
    )
    store = InMemoryVectorStore(langchain_embeddings())
    store.add_documents(chunks)
    retriever = store.as_retriever(search_kwargs={"k": k})
    llm = ChatOpenAI(model=model, base_url=base_url, api_key=api_key, max_tokens=max_tokens,
                     temperature=0.0)  # fmt: skip

    def joined(documents: list[Any]) -> str:
        return "\n\n".join(d.page_content for d in documents)

    answer = (
        {"context": itemgetter("context") | RunnableLambda(joined), "input": itemgetter("input")}
        | ChatPromptTemplate.from_template(PROMPT)
        | llm
        | StrOutputParser()
    )
    return RunnablePassthrough.assign(context=itemgetter("input") | retriever).assign(answer=answer)


def make(
    documents: list[dict],
    model: str,
    k: int = 2,
    max_tokens: int = 64,
    base_url_env: str = "PIPELINE_BASE_URL",
    api_key_env: str = "PIPELINE_API_KEY",
) -> Any:
    return build_chain(
        [(d["id"], d["text"]) for d in documents], model, k, max_tokens,
        os.environ[base_url_env], os.environ.get(api_key_env, "none"),
    )  # fmt: skip
