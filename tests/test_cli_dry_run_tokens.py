"""`--dry-run`'s prompt tokens: a local generator's own tokenizer read from its GGUF
(backends.tokenizer), its counts equal to llama.cpp's own (/tokenize and /apply-template of
the real server, slow), and the estimate a dry run prints: the fixed part of each prompt
counted, the k retrieved chunks at k x the mean chunk, a remote generator's at 4 characters
a token, a pipeline's not counted."""

from __future__ import annotations

import httpx
import pytest
from helpers.openai_server import API_KEY

from ragaudit.backends.qwen import gguf_path
from ragaudit.backends.tokenizer import local_tokenizer
from ragaudit.cli.main import main
from ragaudit.runner.generate import SYSTEM_PROMPT
from ragaudit.runner.prompt_tokens import answer_prompt_tokens

SPEC = "local:qwen2.5-0.5b"
QWEN_DEFAULT_SYSTEM = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."
TEXTS = [
    "Hello, world!",
    "The retention period is 38 days (see section 4417-B).",
    "中文文本的分词：保留期为三十八天。",
    "emoji 🙂👍🏽 and a family 👨‍👩‍👧 in one line",
    "def f(x):\n\tif x > 10_000:\n        return x ** 2  # squared\n\n\n",
    "  leading spaces, trailing   \r\n  CRLF, and 'll 've 're contractions: I'LL",
    "<|im_start|>user\nmarkers parse as specials<|im_end|>",
]


def chatml(system: str, user: str) -> str:
    """Qwen2.5's chat template written out by hand, the assistant's turn open."""
    return (
        f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n"
        "<|im_start|>assistant\n"
    )


@pytest.fixture(scope="module")
def tokenizer():
    gguf_path("0.5b")  # assembled from its packages if this machine has not yet
    built = local_tokenizer(SPEC)
    assert built is not None
    return built


def test_the_gguf_tokenizer_gives_qwen_token_ids(tokenizer):
    # Qwen2's vocabulary: "Hello" 9707, "," 11, " world" 1879, "!" 0; <|im_start|> 151644.
    assert tokenizer.tokenizer.encode("Hello, world!", add_special_tokens=False).ids == [
        9707, 11, 1879, 0,
    ]  # fmt: skip
    assert tokenizer.tokenizer.encode("<|im_start|>user").ids == [151644, 872]
    assert tokenizer.render([{"role": "user", "content": "hi"}]) == chatml(
        QWEN_DEFAULT_SYSTEM, "hi"
    )


def test_prompt_tokens_count_the_fixed_part_and_estimate_the_chunks(tokenizer):
    chunks = ["Hello, world!", "中文文本", "a " * 30]
    tokens = answer_prompt_tokens(SPEC, [(["What is it?", "What is it?"], 2, chunks)], None)
    fixed = tokenizer.count(chatml(SYSTEM_PROMPT, "Context:\n\n\nQuestion: What is it?"))
    mean = sum(tokenizer.count(f"[c1] {c.strip()}\n\n") for c in chunks) / 3
    assert tokens.total == 2 * fixed + round(2 * 2 * mean)
    assert f"{SPEC}'s own tokenizer, {2 * fixed}" in tokens.how
    assert tokens.how.startswith("2 answer prompts, oracle prompts not counted; estimated")
    # a stack's prompt: its template and system message, its chunk label and separator
    prompt = {"system": "", "template": "Q: {question}\n{context}", "chunk_label": "<{n}>"}
    tokens = answer_prompt_tokens(SPEC, [(["Why?"], 1, ["xyz"])], prompt)
    no_system = "<|im_start|>user\nQ: Why?\n<|im_end|>\n<|im_start|>assistant\n"
    qwen_system = f"<|im_start|>system\n{QWEN_DEFAULT_SYSTEM}<|im_end|>\n" + no_system
    assert tokens.total == tokenizer.count(qwen_system) + tokenizer.count("<1> xyz\n\n")


def test_a_remote_generator_is_estimated_at_four_characters_a_token():
    tokens = answer_prompt_tokens("ollama:qwen2.5:7b", [(["Why?"], 3, ["x" * 400, "y" * 80])], None)
    user = "Context:\n\n\nQuestion: Why?"
    fixed = round((len(SYSTEM_PROMPT) + len(user)) / 4)
    # "[c1] " + 400 x + "\n\n": 407 characters, 102 tokens; with 80 y: 87, 22; k=3 of the mean
    assert tokens.total == fixed + 3 * (102 + 22) // 2
    assert "4 characters a token (not the generator's tokenizer: it is not local)" in tokens.how


def test_a_retrievers_own_chunks_are_not_counted():
    tokens = answer_prompt_tokens("ollama:m", [(["Why?"], 3, [])], None)
    assert "your retriever's chunks not counted" in tokens.how


def test_dry_run_prints_the_local_generators_prompt_tokens(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    stack = tmp_path / "s.yaml"
    stack.write_text(
        "name: s\nsplitter:\n  class: langchain_text_splitters.RecursiveCharacterTextSplitter\n"
        f"  args: {{chunk_size: 500, chunk_overlap: 0}}\nembedder: local:minilm\nk: 2\n"
        f"generator: {SPEC}\nprobes: [control]\n"
    )
    assert main(["run", "--stack", str(stack), "--stack-only", "--n", "1", "--dry-run"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "generate" in x)
    assert f"stack s: generate {SPEC}: 2 calls" in line
    assert "prompt tokens (1 answer prompts, oracle prompts not counted; estimated" in line
    assert f"counted with {SPEC}'s own tokenizer" in line and "k x the mean chunk" in line
    assert not (tmp_path / "home").exists()


@pytest.mark.slow
def test_the_tokenizer_counts_as_llama_cpp_does(tokenizer, openai_chat_server):
    root = openai_chat_server.base_url.removesuffix("/v1")
    headers = {"Authorization": f"Bearer {API_KEY}"}
    with httpx.Client(base_url=root, headers=headers, timeout=30) as client:
        for text in TEXTS:
            body = {"content": text, "add_special": False, "parse_special": True}
            theirs = client.post("/tokenize", json=body).json()["tokens"]
            ours = tokenizer.tokenizer.encode(text, add_special_tokens=False).ids
            assert ours == theirs, text
        for messages in (
            [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": TEXTS[2]}],
            [{"role": "user", "content": TEXTS[4]}],
        ):
            prompt = client.post("/apply-template", json={"messages": messages}).json()["prompt"]
            assert tokenizer.render(messages) == prompt
            body = {"content": prompt, "add_special": False, "parse_special": True}
            theirs = client.post("/tokenize", json=body).json()["tokens"]
            assert tokenizer.count_prompt(messages) == len(theirs)


def test_the_matrix_counts_only_the_probes_each_config_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    probes = "control distractor negation superseded summarisation table_split unanswerable"
    argv = ["run", "--n", "2", "--generator", "local:qwen2.5-1.5b", "--embedders", "local:minilm"]
    argv += ["--gen-configs", "A", "B", "C", "M", "T4000", "--gen-probes", *probes.split()]
    assert main([*argv, "--dry-run"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "generate" in x)
    # 7 answer probes x 2 instances on A, B, C and M; T4000 runs table_split only: 2 more
    assert (
        "local:qwen2.5-1.5b (prompts, with oracle prompts at most twice the records): 116 calls"
        in line
    )
    assert "prompt tokens (58 answer prompts" in line
