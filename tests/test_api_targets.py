"""Targets given as Python objects (issue 43, item 2): each form becomes the StackSpec the
YAML form would (a stack path, a mapping, a pipeline factory, Components with an embedder,
a retriever factory, a built llama-index or LangChain retriever or a callable retriever, a
built query engine), the built ones are asked by the verbs as they stand, `mutate` refuses
one it cannot rebuild in one line before any work, and every bound applies as for YAML.
No model is loaded: the retrievers rank by shared words, the pipelines answer fixed text."""

from __future__ import annotations

import re
import sys
import time

import pytest
from langchain_core.documents import Document as LangChainDocument
from langchain_core.retrievers import BaseRetriever as LangChainRetriever
from langchain_text_splitters import RecursiveCharacterTextSplitter
from llama_index.core import Document as LlamaDocument
from llama_index.core.base.response.schema import Response
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.query_engine import CustomQueryEngine
from llama_index.core.retrievers import BaseRetriever as LlamaRetriever
from llama_index.core.schema import NodeWithScore, TextNode

import ragaudit
from ragaudit.targets.bounded import UserCodeLimits
from ragaudit.targets.given import Built, Given
from ragaudit.targets.objects import IN_PYTHON, as_stack
from ragaudit.targets.stackfile import load_stack

FILLER = " ".join(f"Note {i} on the office plants and the printer queue." for i in range(12))
DOCUMENTS = [
    ("policies/travel", "The meal allowance on domestic trips is 46 euros per day.\n\n" + FILLER),
    ("policies/leave", "Full-time employees get 27 days of paid annual leave.\n\n" + FILLER),
    ("newsletter", "The canteen reopens in May after its refit.\n\n" + FILLER),
]
CASES = [
    ragaudit.Case(intent="meal", expect=["policies/travel"], answer="46 euros",
                  phrasings=["What is the meal allowance on domestic trips?",
                             "How much is the daily meal allowance when travelling?"]),
    ragaudit.Case(intent="leave", expect=["policies/leave"], answer="27 days",
                  phrasings=["How many days of annual leave do employees get?",
                             "What is the paid annual leave of full-time employees?"]),
]  # fmt: skip
RANKED_FIRST = [("meal/1", "pass", [1]), ("meal/2", "pass", [1]),
                ("leave/1", "pass", [1]), ("leave/2", "pass", [1])]  # fmt: skip
"""By hand: each question shares words only with its expected document's first chunk."""

ANSWER = "46 euros"
USER_RAG = '''
ANSWER = "46 euros"


def make(documents):
    """A pipeline factory: answers ANSWER from the first two documents."""
    texts = [(d["id"], d["text"]) for d in documents]

    def ask(question):
        contexts = [{"text": t, "doc_id": i, "score": 1.0} for i, t in texts[:2]]
        return {"answer": ANSWER, "contexts": contexts}

    return ask


def slow(chunks):
    import time

    time.sleep(3)
    return lambda question: []
'''


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 3 or w.isdigit()}


def overlap(question: str, text: str) -> int:
    return len(words(question) & words(text))


class WordNodes(LlamaRetriever):
    """A llama-index retriever ranking its nodes by the words they share with the question."""

    def __init__(self, nodes: list) -> None:
        super().__init__()
        self._nodes = nodes

    def _retrieve(self, query_bundle):
        q = query_bundle.query_str
        ranked = sorted(self._nodes, key=lambda n: -overlap(q, n.get_content()))[:3]
        return [NodeWithScore(node=n, score=float(overlap(q, n.get_content()))) for n in ranked]


class WordDocs(LangChainRetriever):
    """A LangChain retriever ranking its chunks by the words they share with the question."""

    chunks: list

    def _get_relevant_documents(self, query, *, run_manager):
        return sorted(self.chunks, key=lambda d: -overlap(query, d.page_content))[:3]


def no_hits(question: str) -> list:
    """A built retriever that is a plain callable."""
    return []


class Engine(CustomQueryEngine):
    """A built llama-index query engine: a fixed answer from one source node."""

    def custom_query(self, query_str: str) -> Response:
        node = TextNode(text="The meal allowance is 46 euros.", id_="n1")
        return Response(response=ANSWER, source_nodes=[NodeWithScore(node=node, score=0.5)])


class QueryOnly:
    """Not a query engine: a `query` method of its own (adapters would not know its reply)."""

    def query(self, question: str) -> str:
        return "46 euros"


@pytest.fixture
def user_rag(tmp_path, monkeypatch):
    """The user's module `user_rag` (USER_RAG) in tmp_path, importable, imported afresh."""
    (tmp_path / "user_rag.py").write_text(USER_RAG, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "user_rag", raising=False)
    import user_rag

    return user_rag


def one_line_error(call, *args, **kwargs) -> str:
    with pytest.raises(ragaudit.RagauditError) as caught:
        call(*args, **kwargs)
    message = str(caught.value)
    assert "\n" not in message
    return message


def audited(target, tmp_path) -> list[tuple]:
    results = ragaudit.audit(DOCUMENTS, CASES, target, data_dir=tmp_path / "home", progress=False)
    return [
        (c["case_id"], c["status"], [s["rank"] for s in c["sources"]])
        for c in results.document["cases"]
    ]


# -- each form's StackSpec ----------------------------------------------------------------


def test_a_stack_path_is_the_stack_file(user_rag, tmp_path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text("name: mine\npipeline:\n  factory: user_rag:make\n", encoding="utf-8")
    for given in (path, str(path)):
        stack = as_stack(given)
        assert stack == load_stack(path)
        assert (stack.name, stack.file) == ("mine", str(path))
        assert stack.pipeline["factory"] == "user_rag:make"
        assert not isinstance(stack.pipeline["factory"], Given)  # an import path, as in YAML


def test_a_mapping_is_a_stack_file_given_in_python() -> None:
    http = {"url": "http://127.0.0.1:8765/ask", "body": {"query": "{{question}}"},
            "answer": "answer", "contexts": "sources", "context_text": "text"}  # fmt: skip
    stack = as_stack({"pipeline": {"http": http, "ingest": "none", "version": 2}}, name="svc")
    assert (stack.name, stack.file) == ("svc", IN_PYTHON)
    entry = stack.pipeline
    assert (entry["http"]["url"], entry["http"]["method"], entry["ingest"]) == (
        "http://127.0.0.1:8765/ask", "POST", "none")  # fmt: skip
    assert entry["factory"] is None and stack.splitter is None
    other = as_stack({"pipeline": {"http": http, "ingest": "none", "version": 3}}, name="svc")
    assert stack.sha256 != other.sha256  # what the results file records as which stack ran
    bad = one_line_error(as_stack, {"pipeline": {"http": {"url": "http://x/ask"}}})
    assert bad == f"stack file {IN_PYTHON}: field pipeline.http.answer: Field required"


def test_a_factory_is_a_pipeline_given_in_python(user_rag) -> None:
    stack = as_stack(user_rag.make, name="mine", version="7")
    factory = stack.pipeline["factory"]
    assert isinstance(factory, Given) and not isinstance(factory, Built)
    assert (factory, factory.value) == ("python:user_rag.make", user_rag.make)
    assert (stack.name, stack.file, stack.pipeline["version"], stack.splitter) == (
        "mine", IN_PYTHON, "7", None)  # fmt: skip
    assert as_stack(user_rag.make).pipeline["version"] is None


def test_components_with_an_embedder_is_our_core_over_their_splitter() -> None:
    splitter = SentenceSplitter(chunk_size=256, chunk_overlap=0)
    stack = as_stack(ragaudit.Components(splitter=splitter, embedder="local:minilm", k=3,
                                         hybrid=True, name="mine"))  # fmt: skip
    assert isinstance(stack.splitter["class"], Built) and stack.splitter["class"].value is splitter
    assert stack.splitter["class"] == f"python:{SentenceSplitter.__module__}.SentenceSplitter"
    assert stack.embedder["spec"] == "local:minilm"
    assert (stack.k, stack.hybrid, stack.retriever, stack.pipeline, stack.name) == (
        3, True, None, None, "mine")  # fmt: skip
    no_ranking = ragaudit.Components(splitter=splitter)
    assert (
        one_line_error(as_stack, no_ranking) == "Components: give an embedder spec or a retriever"
    )
    no_k = ragaudit.Components(splitter=splitter, embedder="local:minilm", k=0)
    assert one_line_error(as_stack, no_k) == "Components: k=0 is not from 1 to 50"


def test_components_with_a_retriever_factory_rebuilds_it_per_corpus() -> None:
    def build(chunks):
        return WordNodes(list(chunks))

    stack = as_stack(ragaudit.Components(splitter=SentenceSplitter(), retriever=build, k=2))
    factory = stack.retriever["factory"]
    assert isinstance(factory, Given) and factory.value is build
    assert (stack.embedder, stack.hybrid) == (None, False)


@pytest.mark.parametrize("kind", ["llama-index", "langchain", "callable"])
def test_components_with_a_built_retriever_hand_it_back_as_built(kind) -> None:
    built = {"llama-index": WordNodes([]), "langchain": WordDocs(chunks=[]),
             "callable": no_hits}[kind]  # fmt: skip
    stack = as_stack(ragaudit.Components(splitter=SentenceSplitter(), retriever=built))
    factory = stack.retriever["factory"]
    assert isinstance(factory, Given) and factory.value(documents=[]) is built
    named = {"llama-index": "WordNodes", "langchain": "WordDocs", "callable": "no_hits"}[kind]
    assert factory == f"python:test_api_targets.{named}"  # what the results file names


@pytest.mark.parametrize("retriever", [WordNodes([]), WordDocs(chunks=[])], ids=["llama", "lc"])
def test_a_bare_retriever_is_refused_naming_components(retriever) -> None:
    message = one_line_error(as_stack, retriever)
    assert "is a retriever: give it with the splitter that chunked its documents" in message
    assert "ragaudit.Components(splitter=..., retriever=..., k=...)" in message


def test_a_built_engine_is_a_pipeline_asked_as_it_stands() -> None:
    engine = Engine()
    factory = as_stack(engine).pipeline["factory"]
    assert isinstance(factory, Built) and factory.value is engine
    assert factory == "python:test_api_targets.Engine"
    expected = ("target {}: expected a stack file's path, a mapping, a pipeline factory, "
                "ragaudit.Components or a query engine / Runnable / callable")  # fmt: skip
    assert one_line_error(as_stack, 5) == expected.format("int")
    assert one_line_error(as_stack, QueryOnly()) == expected.format("QueryOnly")


def test_a_class_taking_documents_is_a_factory(user_rag) -> None:
    class Pipeline:
        def __init__(self, documents):
            self.answer = user_rag.make(documents)

        def __call__(self, question):
            return self.answer(question)

    factory = as_stack(Pipeline).pipeline["factory"]
    assert isinstance(factory, Given) and not isinstance(factory, Built)
    assert factory.value is Pipeline


# -- the built ones, asked by the verbs ---------------------------------------------------


def llama_nodes(splitter) -> list:
    # a reader's documents carry metadata, which a SentenceSplitter counts against its size
    documents = [LlamaDocument(text=t, id_=i, metadata={"file_path": f"/srv/docs/{i}.md"})
                 for i, t in DOCUMENTS]  # fmt: skip
    return splitter.get_nodes_from_documents(documents)


def test_the_audit_asks_a_built_llama_index_retriever(tmp_path) -> None:
    splitter = SentenceSplitter(chunk_size=48, chunk_overlap=0)
    target = ragaudit.Components(splitter=splitter, retriever=WordNodes(llama_nodes(splitter)), k=1)
    assert audited(target, tmp_path) == RANKED_FIRST


def test_the_audit_asks_a_llama_index_retriever_factory(tmp_path) -> None:
    def build(chunks):
        return WordNodes(list(chunks))

    target = ragaudit.Components(splitter=SentenceSplitter(chunk_size=48, chunk_overlap=0),
                                 retriever=build, k=1)  # fmt: skip
    assert audited(target, tmp_path) == RANKED_FIRST


def test_the_audit_asks_a_built_langchain_retriever(tmp_path) -> None:
    splitter = RecursiveCharacterTextSplitter(chunk_size=120, chunk_overlap=0)
    chunks = splitter.split_documents(
        [LangChainDocument(page_content=t, metadata={"source": i}) for i, t in DOCUMENTS]
    )
    target = ragaudit.Components(splitter=splitter, retriever=WordDocs(chunks=chunks), k=1)
    assert audited(target, tmp_path) == RANKED_FIRST


def test_the_audit_asks_a_question_to_text_and_score_callable(tmp_path) -> None:
    def retriever(question):
        first = [(t.split("\n\n")[0], float(overlap(question, t))) for _, t in DOCUMENTS]
        return sorted(first, key=lambda hit: -hit[1])

    target = ragaudit.Components(splitter=SentenceSplitter(chunk_size=48, chunk_overlap=0),
                                 retriever=retriever, k=1)  # fmt: skip
    assert audited(target, tmp_path) == RANKED_FIRST


def test_run_asks_a_built_query_engine_as_it_stands(tmp_path, capsys) -> None:
    results = ragaudit.run("quick", n=1, target=Engine(), target_only=True,
                           data_dir=tmp_path / "home", progress=False)  # fmt: skip
    asked = [r["generation"] for r in results.document["instances"] if r["generation"]]
    assert asked and {(g["generator"], g["reply"]) for g in asked} == {("pipeline:yours", ANSWER)}
    assert "python:test_api_targets.Engine was given built" in capsys.readouterr().err


def test_the_audit_ranks_each_case_by_the_contexts_a_pipeline_returns(user_rag, tmp_path):
    # user_rag.make answers from the first two documents (travel, leave): the meal cases
    # find their expected document among its contexts, and so do the leave cases
    results = ragaudit.audit(DOCUMENTS, CASES, user_rag.make, data_dir=tmp_path / "home",
                             progress=False)  # fmt: skip
    summary = results.document["summary"]
    assert (summary["cases"], summary["failed_calls"]) == (4, 0)
    assert summary["passed"] == 4


# -- mutate needs a target it can rebuild -------------------------------------------------


@pytest.mark.parametrize("kind", ["llama-index", "langchain", "callable", "bare", "engine"])
def test_mutate_refuses_a_built_target_in_one_line_before_any_work(kind, tmp_path) -> None:
    splitter = SentenceSplitter()
    target = {
        "llama-index": ragaudit.Components(splitter=splitter, retriever=WordNodes([])),
        "langchain": ragaudit.Components(splitter=splitter, retriever=WordDocs(chunks=[])),
        "callable": ragaudit.Components(splitter=splitter, retriever=lambda question: []),
        "bare": WordNodes([]),
        "engine": Engine(),
    }[kind]
    home, out = tmp_path / "home", tmp_path / "out.json"
    started = time.perf_counter()
    message = one_line_error(ragaudit.mutate, DOCUMENTS, CASES, target, data_dir=home, out=out,
                             progress=False)  # fmt: skip
    assert message.startswith("mutate builds your target again over every mutated corpus")
    assert "pass its factory (a function of documents or chunks)" in message
    assert not home.exists() and not out.exists()  # no cache, no lock, no results file
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize("target", [5, QueryOnly()], ids=["int", "query method"])
def test_mutate_names_a_value_that_is_no_target(target, tmp_path) -> None:
    message = one_line_error(ragaudit.mutate, DOCUMENTS, CASES, target,
                             data_dir=tmp_path / "home", progress=False)  # fmt: skip
    assert message.startswith(f"target {type(target).__name__}: expected a stack file's path")


# -- every bound applies as for the YAML form ---------------------------------------------


def test_a_retriever_factory_past_build_seconds_is_one_line(user_rag, tmp_path) -> None:
    limits = UserCodeLimits(build_seconds=0.5)
    splitter = SentenceSplitter()
    target = ragaudit.Components(splitter=splitter, retriever=user_rag.slow, limits=limits)
    started = time.perf_counter()
    message = one_line_error(ragaudit.audit, DOCUMENTS, CASES, target,
                             data_dir=tmp_path / "home", progress=False)  # fmt: skip
    assert time.perf_counter() - started < 2.5
    assert message == (
        f"stack file {IN_PYTHON}: field retriever.factory: python:user_rag.slow gave no answer "
        "within 0.5 s (the call was abandoned) (limits.build_seconds)"
    )


def test_a_retriever_past_call_seconds_is_a_failed_call(tmp_path) -> None:
    def retriever(question):
        time.sleep(0.6)
        return []

    limits = UserCodeLimits(call_seconds=0.2)
    target = ragaudit.Components(splitter=SentenceSplitter(), retriever=retriever, limits=limits)
    results = ragaudit.audit(DOCUMENTS, CASES, target, data_dir=tmp_path / "home", progress=False)
    errors = [c["error"] for c in results.document["cases"]]
    assert all(e is not None for e in errors)
    assert errors[0] == (
        f"stack file {IN_PYTHON}: field retriever.factory: retriever gave no answer within "
        "0.2 s (the call was abandoned) (limits.call_seconds)"
    )


def test_a_factory_pipeline_is_held_to_the_default_reply_limits(user_rag, tmp_path) -> None:
    user_rag.ANSWER = "x" * (UserCodeLimits().max_answer_chars + 1)
    results = ragaudit.mutate(DOCUMENTS, CASES, user_rag.make, operators=["supersede"],
                              data_dir=tmp_path / "home", progress=False)  # fmt: skip
    failed = results.document["conditions"]["failed_calls"]
    assert failed and "limits.max_answer_chars (100,000)" in failed[0]["error"]


def test_a_mapping_sets_a_pipeline_factorys_limits(user_rag, tmp_path) -> None:
    target = {"pipeline": {"factory": "user_rag:make"}, "limits": {"max_answer_chars": 3}}
    results = ragaudit.mutate(DOCUMENTS, CASES, target, operators=["supersede"],
                              data_dir=tmp_path / "home", progress=False)  # fmt: skip
    failed = results.document["conditions"]["failed_calls"]
    assert failed and "limits.max_answer_chars (3)" in failed[0]["error"]
