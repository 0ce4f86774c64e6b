"""The real parts of issue 26, slow (they load the 0.5B Qwen in llama.cpp's server, under
flock /tmp/ragaudit-model.lock): the three examples of examples/pipeline run through
`ragaudit run --stack-only` at n=1 on one probe each (one question: the suite's time), with
replies capped at 32 tokens: a llama-index VectorStoreIndex query engine (unanswerable) and
a LangChain LCEL chain (control) whose LLM is the OpenAI-compatible server, and a FastAPI
service (uvicorn, on 127.0.0.1, control) ingesting the corpus through its endpoint and
audited over HTTP. Each record's contexts are located in the corpus and the model's real
reply is graded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.openai_server import API_KEY, CHAT_MODEL, unused_port

from ragaudit.cli.main import main

pytestmark = pytest.mark.slow
EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "pipeline"
CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "documents"
MAX_TOKENS = 32


@pytest.fixture
def environment(tmp_path, monkeypatch, openai_chat_server):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PIPELINE_BASE_URL", openai_chat_server.base_url)
    monkeypatch.setenv("PIPELINE_API_KEY", API_KEY)
    monkeypatch.setenv("PIPELINE_MODEL", CHAT_MODEL)
    monkeypatch.setenv("PIPELINE_SERVICE_KEY", "service-key")
    monkeypatch.setenv("PIPELINE_MAX_TOKENS", str(MAX_TOKENS))
    monkeypatch.syspath_prepend(str(EXAMPLES))
    return tmp_path


def run(tmp_path: Path, stack: Path, probe: str) -> dict:
    text = stack.read_text().replace("model: qwen-chat", f"model: {CHAT_MODEL}")
    text = text.replace("max_tokens: 64", f"max_tokens: {MAX_TOKENS}")
    text = text.replace("probes: [control, unanswerable]", f"probes: [{probe}]")
    copy = tmp_path / stack.name
    copy.write_text(text)
    out = tmp_path / "out.json"
    assert main(["run", "--stack", str(copy), "--stack-only", "--n", "1", "--out", str(out)]) == 0
    return json.loads(out.read_text())


def check(results: dict, probe: str) -> None:
    records = results["instances"]
    assert [r["probe"] for r in records] == [probe]
    for record in records:
        assert record["generation"]["status"] == "ok" and record["generation"]["reply"].strip()
        assert record["grade"]["verdict"] in ("correct", "wrong", "abstained", "empty")
        for hit in record["retrieved"]:  # located: the chunk's span is its text in the file
            chunk = results["chunks"][hit["chunk_id"]]
            text = (CORPUS / f"{chunk['doc_id']}.txt").read_text()
            if chunk["span_exact"]:
                assert text[chunk["start"] : chunk["end"]] == chunk["text"]
    assert any(r["retrieved"] for r in records)


@pytest.mark.parametrize(("example", "probe"), [("llamaindex", "unanswerable"),
                                              ("langchain", "control")])  # fmt: skip
def test_a_factory_pipeline_on_the_real_server(environment, example, probe):
    check(run(environment, EXAMPLES / f"{example}.yaml", probe), probe)


def test_the_fastapi_service_ingested_and_audited_over_http(environment):
    port = unused_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "service:app", "--host", "127.0.0.1", "--port",
         str(port), "--log-level", "warning"],
        cwd=EXAMPLES, env=dict(os.environ),
    )  # fmt: skip
    try:
        import httpx
        from helpers.openai_server import _wait_until_listening

        _wait_until_listening(f"http://127.0.0.1:{port}")  # any reply: it listens
        stack = environment / "service.yaml"
        stack.write_text((EXAMPLES / "service.yaml").read_text().replace("8765", str(port)))
        results = run(environment, stack, "control")
        check(results, "control")
        assert "indexed_documents" not in results["configs"][0]  # ragaudit handed them
        assert httpx.get(f"http://127.0.0.1:{port}/docs", timeout=5).status_code == 200
    finally:
        process.terminate()
        process.wait(timeout=20)
