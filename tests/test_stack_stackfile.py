"""The stack file: strict loading, one line per bad value naming file, line and field, the
components checked before any model loads, and the results file's configs entry."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from ragaudit.errors import RagauditError
from ragaudit.targets.stackfile import check_stack, load_stack

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "stack"
PROBES = ["boundary", "control", "table_split"]

GOOD = """\
name: mine
splitter:
  class: langchain_text_splitters.RecursiveCharacterTextSplitter
  args: {chunk_size: 1000, chunk_overlap: 200}
embedder: local:minilm
k: 3
"""


def write(tmp_path: Path, text: str, name: str = "stack.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def refusal(path: Path, probes=PROBES, taken=()) -> str:
    with pytest.raises(RagauditError) as caught:
        check_stack(load_stack(path), list(probes), list(taken))
    message = str(caught.value)
    assert "\n" not in message and "Traceback" not in message
    return message


def test_the_examples_load_and_their_components_import():
    langchain = load_stack(EXAMPLES / "langchain_recursive.yaml")
    assert langchain.splitter == {
        "class": "langchain_text_splitters.RecursiveCharacterTextSplitter",
        "args": {"chunk_size": 1000, "chunk_overlap": 200},
    }
    assert (langchain.k, langchain.hybrid, langchain.retriever) == (3, False, None)
    assert langchain.embedder == {"spec": "local:minilm", "base_url": None, "api_key_env": None}
    sentence = load_stack(EXAMPLES / "llamaindex_sentence.yaml")
    assert sentence.hybrid is True and sentence.chunking_name == "stack-llamaindex_sentence"
    own = load_stack(EXAMPLES / "own_retriever.yaml")
    assert own.embedder is None
    assert own.embedder_label == "retriever:rerank_retriever:make_retriever"
    for stack in (langchain, sentence, own):
        check_stack(stack, PROBES, ["A", "B"])  # the factory beside the file imports too


def test_the_configs_entry_names_the_file_its_bytes_and_components(tmp_path):
    path = write(tmp_path, GOOD)
    entry = load_stack(path).to_config_json()
    assert entry["name"] == "mine" and entry["kind"] == "stack"
    assert entry["chunking"] == "stack-mine"
    assert (entry["k"], entry["hybrid"], entry["probes"]) == (3, False, None)
    assert entry["stack"]["file"] == str(path)
    assert entry["stack"]["sha256"] == hashlib.sha256(GOOD.encode()).hexdigest()
    assert entry["stack"]["embedder"]["spec"] == "local:minilm"
    assert entry["stack"]["generator"] is None and entry["stack"]["retriever"] is None
    assert "RecursiveCharacterTextSplitter" in entry["description"]


@pytest.mark.parametrize(
    ("edit", "where", "says"),
    [
        (GOOD + "colour: red\n", "line 7: field colour", "unknown field"),
        (GOOD.replace("k: 3", "k: 51"), "line 6: field k", "more than 50"),
        (GOOD.replace("k: 3", "k: 0"), "line 6: field k", "greater than or equal to 1"),
        (GOOD.replace("name: mine", "name: B"), "line 1: field name", "clashes with a built-in"),
        (GOOD.replace("name: mine", "name: my-stack"), "line 1: field name", "letters, digits"),
        (GOOD.replace("  args:", "  argz:"), "line 4: field splitter.argz", "unknown field"),
        (GOOD.replace("local:minilm", "local:nosuch"), "line 5: field embedder", "embedder spec"),
        (
            GOOD.replace("embedder: local:minilm\n", ""),
            "field embedder",
            "needed unless a retriever is given",
        ),
        (
            GOOD + "hybrid: true\nretriever: {factory: 'rerank_retriever:make_retriever'}\n",
            "field hybrid",
            "with a retriever",
        ),
        (
            GOOD + "retriever: {factory: 'not a path'}\n",
            "line 7: field retriever.factory",
            "package.module:function",
        ),
        (GOOD + "probes: [boundry]\n", "line 7: field probes[0]", "unknown probe 'boundry'"),
    ],
)
def test_a_bad_value_is_one_line_naming_file_line_and_field(tmp_path, edit, where, says):
    path = write(tmp_path, edit)
    message = refusal(path)
    assert message.startswith(f"stack file {path}: ")
    assert where in message and says in message


def test_a_splitter_that_cannot_be_imported_is_named_with_its_line(tmp_path):
    path = write(tmp_path, GOOD.replace("langchain_text_splitters.", "nosuch_pkg."))
    message = refusal(path)
    assert f"{path}: line 3: field splitter.class: cannot import" in message
    assert "nosuch_pkg.RecursiveCharacterTextSplitter" in message


def test_a_splitter_whose_constructor_raises_is_named_before_any_model_loads(tmp_path):
    path = write(tmp_path, GOOD.replace("chunk_size: 1000", "chunk_size: 100"))
    message = refusal(path)
    assert "line 3: field splitter.class: langchain_text_splitters." in message
    assert "raised ValueError" in message and "chunk overlap (200)" in message


def test_a_retriever_factory_that_cannot_be_imported_is_named(tmp_path):
    path = write(
        tmp_path,
        GOOD.replace("embedder: local:minilm\n", "")
        + "retriever: {factory: 'no_such_module:make'}\n",
    )
    message = refusal(path)
    assert "line 6: field retriever.factory: cannot import 'no_such_module:make'" in message


def test_a_name_used_twice_in_one_run_is_refused(tmp_path):
    path = write(tmp_path, GOOD)
    message = refusal(path, taken=["A", "mine"])
    assert "line 1: field name" in message and "clashes with another config" in message


def test_the_endpoint_options_are_for_openai_specs_only(tmp_path):
    text = GOOD.replace(
        "embedder: local:minilm",
        "embedder:\n  spec: local:minilm\n  base_url: http://127.0.0.1:9/v1",
    )
    message = refusal(write(tmp_path, text))
    assert "field embedder.base_url" in message and "openai" in message


def test_only_a_spec_the_catalogue_serves_as_openai_reads_openai_base_url(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "ftp://models.internal/v1")
    assert load_stack(write(tmp_path, GOOD)).embedder["spec"] == "local:minilm"
    text = GOOD.replace(
        "embedder: local:minilm", "generator: openai:gpt-4o-mini\nembedder: local:minilm"
    )
    message = refusal(write(tmp_path, text))
    assert message.startswith(f"stack file {tmp_path / 'stack.yaml'}: line 5: field generator: ")
    assert "OPENAI_BASE_URL='ftp://models.internal/v1'" in message


def test_importing_the_run_plan_leaves_pydantic_unloaded():
    # `ragaudit run` imports the plan (and so this module) on every start, stack or none:
    # the stack file's models load with the first stack file.
    code = "import ragaudit.runner.plan, sys; print('pydantic' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "False\n"
