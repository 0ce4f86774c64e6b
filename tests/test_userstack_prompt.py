"""A component stack's `prompt:` block (issue 26): its template, system message and chunk
label are what the generator is sent (read back from a real OpenAI-compatible stand-in on
127.0.0.1, tests/helpers/hostile_openai_server.py in its honest mode), the prompt used is
recorded in the results file, and without the block the default stays ragaudit's."""

from __future__ import annotations

import json

import pytest
from helpers.hostile_openai_server import CHAT_MODEL, EMBED_MODEL, start_hostile

from ragaudit.cli.main import main
from ragaudit.runner.generate import SYSTEM_PROMPT, build_messages

STACK = """name: own_prompt
splitter:
  class: langchain_text_splitters.RecursiveCharacterTextSplitter
  args: {{chunk_size: 400, chunk_overlap: 0}}
embedder: {{spec: "openai:{embed}", base_url: "{url}", api_key_env: PROMPT_KEY}}
generator: {{spec: "openai:{chat}", base_url: "{url}", api_key_env: PROMPT_KEY}}
k: 2
probes: [control]
{prompt}"""
PROMPT = """prompt:
  system: "You are terse. If unsure say: I don't know."
  template: "Sources:\\n{context}\\n---\\nQ: {question}\\nA:"
  chunk_label: "<{n}>"
  separator: "\\n"
"""


@pytest.fixture
def server(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PROMPT_KEY", "prompt-key-0001")
    hostile = start_hostile("normal")
    yield hostile
    hostile.stop()


def run(tmp_path, server, prompt: str) -> dict:
    stack = tmp_path / "stack.yaml"
    stack.write_text(STACK.format(embed=EMBED_MODEL, chat=CHAT_MODEL, url=server.base_url,
                                  prompt=prompt))  # fmt: skip
    out = tmp_path / "out.json"
    flags = ["--stack-only", "--n", "1", "--gen-probes", "control", "--out", str(out)]
    assert main(["run", "--stack", str(stack), *flags]) == 0
    return json.loads(out.read_text())


def test_the_stack_prompt_is_what_the_generator_is_sent(tmp_path, server):
    results = run(tmp_path, server, PROMPT)
    (record,) = [r for r in results["instances"] if r["generation"]]
    texts = [results["chunks"][h["chunk_id"]]["text"].strip() for h in record["retrieved"]]
    # the template filled by hand: chunks labelled <1>, <2>, one newline apart
    user = f"Sources:\n<1> {texts[0]}\n<2> {texts[1]}\n---\nQ: {record['question']}\nA:"
    chats = server.seen()["chats"]
    sent = [
        {"role": "system", "content": "You are terse. If unsure say: I don't know."},
        {"role": "user", "content": user},
    ]
    assert sent in chats
    used = results["configs"][0]["prompt_used"]
    assert used["template"] == "Sources:\n{context}\n---\nQ: {question}\nA:"
    assert used["chunk_label"] == "<{n}>" and used["default"] is False


def test_without_a_prompt_block_the_prompt_is_ragaudits(tmp_path, server):
    results = run(tmp_path, server, "")
    (record,) = [r for r in results["instances"] if r["generation"]]
    chunks = [results["chunks"][h["chunk_id"]] for h in record["retrieved"]]
    assert build_messages(record["question"], chunks) in server.seen()["chats"]
    used = results["configs"][0]["prompt_used"]
    assert used["system"] == SYSTEM_PROMPT and used["default"] is True
