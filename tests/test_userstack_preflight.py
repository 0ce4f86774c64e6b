"""The user's stack's own Ollama models are checked before any work, as the run's are: a
stack file naming an `ollama:` embedder or generator the server lacks is refused in one
line (exit 2) naming the stack file's line, having asked the server once and embedded
nothing. Against a real local process speaking Ollama's API (tests/helpers/ollama_fake.py)."""

from __future__ import annotations

import time

from ragaudit.cli.main import main
from ragaudit.runner.plan import build_plan
from ragaudit.runner.preflight import remote_specs
from ragaudit.stack import presets

SPLITTER = (
    "splitter:\n  class: langchain_text_splitters.RecursiveCharacterTextSplitter\n"
    "  args: {chunk_size: 1000, chunk_overlap: 200}\n"
)


def stack_file(tmp_path, embedder: str, generator: str | None = None):
    text = f"name: mine\n{SPLITTER}embedder: {embedder}\nk: 3\n"
    if generator:
        text += f"generator: {generator}\n"
    path = tmp_path / "mine.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def written(home) -> list[str]:
    return sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file())


def test_a_stack_embedder_not_pulled_is_refused_in_one_line(
    ragaudit_home, tmp_path, fake_ollama, monkeypatch, capsys
):
    server = fake_ollama()  # it has mxbai-embed-large:latest and qwen2.5:7b
    monkeypatch.setenv("OLLAMA_HOST", server.url)
    monkeypatch.setenv("RAGAUDIT_RETRIES", "0")
    path = stack_file(tmp_path, "ollama:nomic-embed-text")
    flags = ["--n", "1", "--no-generate", "--embedders", "local:minilm"]
    started = time.perf_counter()
    assert main(["run", "--stack", str(path), *flags, "--out", str(tmp_path / "r.json")]) == 2
    assert time.perf_counter() - started < 5  # refused before any model loads
    assert capsys.readouterr().err == (
        f"ragaudit run: stack file {path}: line 5: field embedder: ollama:nomic-embed-text: "
        f"model 'nomic-embed-text' is not on the ollama server at {server.url} (it has: "
        "mxbai-embed-large:latest, qwen2.5:7b); run `ollama pull nomic-embed-text` there, "
        "or name another model\n"
    )
    assert server.requests() == {"/api/tags": 1}  # asked once, nothing embedded
    assert written(ragaudit_home) == [] and not (tmp_path / "r.json").exists()


def test_a_stack_generator_not_pulled_is_refused_before_retrieval(
    ragaudit_home, tmp_path, fake_ollama, monkeypatch, capsys
):
    server = fake_ollama()
    monkeypatch.setenv("OLLAMA_HOST", server.url)
    monkeypatch.setenv("RAGAUDIT_RETRIES", "0")
    path = stack_file(tmp_path, "ollama:mxbai-embed-large", generator="ollama:llama3")
    flags = ["--n", "1", "--embedders", "local:minilm", "--generator", "local:qwen2.5-0.5b"]
    assert main(["run", "--stack", str(path), "--stack-only", *flags]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(
        f"ragaudit run: stack file {path}: line 7: field generator: ollama:llama3: model "
        "'llama3' is not on the ollama server at "
    )
    assert "run `ollama pull llama3` there" in line
    assert server.requests() == {"/api/tags": 1}
    assert written(ragaudit_home) == []


def test_a_stacks_ollama_models_join_the_runs_and_its_generator_only_when_generating(
    tmp_path,
):
    path = stack_file(tmp_path, "ollama:nomic-embed-text", generator="ollama:llama3")
    kwargs = {"n": 1, "embedders": ["local:minilm", "ollama:mxbai-embed-large"]}
    plan = build_plan(presets.QUICK, **kwargs, stacks=[path], out=tmp_path / "r.json")
    assert remote_specs(plan) == [
        "ollama:mxbai-embed-large",
        "ollama:nomic-embed-text",
        "ollama:llama3",
    ]
    quiet = build_plan(
        presets.QUICK, **kwargs, stacks=[path], generate=False, out=tmp_path / "r.json"
    )
    assert remote_specs(quiet) == ["ollama:mxbai-embed-large", "ollama:nomic-embed-text"]
    local = stack_file(tmp_path, "local:minilm")
    plain = build_plan(presets.QUICK, **kwargs, stacks=[local], out=tmp_path / "r.json")
    assert remote_specs(plain) == ["ollama:mxbai-embed-large"]  # local: nothing to ask
