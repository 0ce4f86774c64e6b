"""A stack file's components by import path: the real class comes back, and every way of
failing (no such module, no such name, a module that breaks on import, a constructor that
raises) is one line naming the field, the path and what went wrong."""

from __future__ import annotations

import sys

import pytest
from langchain_text_splitters import RecursiveCharacterTextSplitter
from llama_index.core.node_parser import SentenceSplitter

from ragaudit.errors import RagauditError
from ragaudit.targets.components import build_component, import_component

SENTENCE = "llama_index.core.node_parser.SentenceSplitter"


@pytest.fixture
def user_code(tmp_path, monkeypatch):
    """A folder on sys.path where a test writes the user's own modules."""
    monkeypatch.syspath_prepend(str(tmp_path))

    def write(name: str, source: str) -> None:
        (tmp_path / f"{name}.py").write_text(source, encoding="utf-8")
        monkeypatch.delitem(sys.modules, name, raising=False)

    yield write


def failure(call, *args) -> str:
    with pytest.raises(RagauditError) as caught:
        call(*args)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_dotted_and_colon_paths_give_the_real_class() -> None:
    assert import_component(SENTENCE, "splitter.class") is SentenceSplitter
    assert (
        import_component("llama_index.core.node_parser:SentenceSplitter", "f") is SentenceSplitter
    )
    assert (
        import_component(
            "langchain_text_splitters:RecursiveCharacterTextSplitter.from_language", "f"
        )
        == RecursiveCharacterTextSplitter.from_language
    )


def test_a_factory_in_the_users_own_module_is_found(user_code) -> None:
    user_code("my_rag", "def make_retriever(chunks):\n    return chunks\n")
    assert import_component("my_rag:make_retriever", "retriever.factory")(chunks=[1]) == [1]
    assert import_component("my_rag.make_retriever", "retriever.factory")(chunks=[2]) == [2]


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("nosuchpkg.Thing", "ModuleNotFoundError: No module named 'nosuchpkg'"),
        ("llama_index.nosuch.Thing", "ModuleNotFoundError: No module named 'llama_index.nosuch'"),
        (
            "llama_index.core.node_parser.NoSuchSplitter",
            "AttributeError: module 'llama_index.core.node_parser' has no attribute "
            "'NoSuchSplitter'",
        ),
        (
            "llama_index.core.node_parser:NoSuchSplitter",
            "AttributeError: module 'llama_index.core.node_parser' has no attribute "
            "'NoSuchSplitter'",
        ),
        (
            "SentenceSplitter",
            "ValueError: not an import path: expected package.module.Name or package.module:name",
        ),
    ],
)
def test_an_import_path_that_does_not_exist_is_one_line(path, reason) -> None:
    message = failure(import_component, path, "splitter.class")
    assert message == f"splitter.class: cannot import {path!r} ({reason})"


def test_a_module_that_breaks_on_import_reports_its_own_error(user_code) -> None:
    user_code("needs_missing", "import nosuch_dependency_xyz\nFactory = 1\n")
    user_code("raises_on_import", "raise RuntimeError('no database URL configured')\n")
    assert failure(import_component, "needs_missing.Factory", "retriever.factory") == (
        "retriever.factory: cannot import 'needs_missing.Factory' "
        "(ModuleNotFoundError: No module named 'nosuch_dependency_xyz')"
    )
    assert failure(import_component, "raises_on_import:make", "retriever.factory") == (
        "retriever.factory: cannot import 'raises_on_import:make' "
        "(RuntimeError: no database URL configured)"
    )


def test_build_component_constructs_with_the_arguments() -> None:
    splitter = build_component(SENTENCE, {"chunk_size": 123, "chunk_overlap": 7}, "splitter")
    assert isinstance(splitter, SentenceSplitter)
    assert (splitter.chunk_size, splitter.chunk_overlap) == (123, 7)


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (
            {"chunk_size": 100, "chunk_overlap": 200},
            "ValueError: Got a larger chunk overlap (200) than chunk size (100), should be "
            "smaller.",
        ),
        (
            {"chunk_size": 0, "chunk_overlap": 0},
            # pydantic's first line names no field: the lines under it do.
            "ValidationError: 1 validation error for SentenceSplitter: chunk_size: Input should "
            "be greater than 0 [type=greater_than, input_value=0, input_type=int]",
        ),
        (
            {"chunk_sise": 100},
            "TypeError: SentenceSplitter.__init__() got an unexpected keyword argument "
            "'chunk_sise'",
        ),
    ],
    ids=["value-error", "validation-error", "unknown-argument"],
)
def test_a_constructor_that_raises_is_one_line(args, reason) -> None:
    assert failure(build_component, SENTENCE, args, "splitter") == (
        f"splitter: {SENTENCE} raised {reason}"
    )


def test_a_users_factory_that_raises_is_one_line(user_code) -> None:
    user_code("my_rag_bad", "def make(**kw):\n    raise KeyError('index_name')\n")
    assert failure(build_component, "my_rag_bad:make", {"top_k": 3}, "retriever") == (
        "retriever: my_rag_bad:make raised KeyError: 'index_name'"
    )


def test_build_component_refuses_arguments_that_are_not_a_mapping() -> None:
    assert failure(build_component, SENTENCE, [256, 32], "splitter") == (
        f"splitter: args for {SENTENCE} must be a mapping, got list"
    )
