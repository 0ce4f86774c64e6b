"""A project's source file read once and parsed for real: Python through `ast`, JavaScript
and TypeScript through tree-sitter (compiled grammars, nothing fetched at run time), YAML,
JSON and `.env` recognised by name. Every place a finding points to is a `Location`."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

import tree_sitter
import tree_sitter_javascript
import tree_sitter_typescript

from ragaudit.errors import RagauditError
from ragaudit.fileio import MAX_INPUT_BYTES, read_text

SourceKind = Literal["python", "javascript", "typescript", "tsx", "yaml", "json", "env"]

SUFFIXES: dict[str, SourceKind] = {
    ".py": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".json": "json",
    ".env": "env",
}
JS_KINDS = ("javascript", "typescript", "tsx")


@dataclass(frozen=True)
class Location:
    """Where something was found: the file as the user named it and its 1-based line."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


def source_kind(path: str | Path) -> SourceKind | None:
    """The kind of source `path` holds, by its suffix (`.env`, `.env.local`, … by name);
    None for a file ragaudit does not parse."""
    path = Path(path)
    if path.name.startswith(".env"):
        return "env"
    return SUFFIXES.get(path.suffix.lower())


def read_source(path: str | Path) -> str:
    """The file as UTF-8 text, capped like every hand-written input; a problem is one
    line naming the file."""
    return read_text(path, f"source file {path}", max_bytes=MAX_INPUT_BYTES)


def python_tree(path: str | Path, text: str) -> ast.Module:
    """The file's Python syntax tree; a syntax error is one line with file:line."""
    try:
        return ast.parse(text, filename=str(path))
    except SyntaxError as error:
        where = Location(str(path), error.lineno or 1)
        raise RagauditError(f"{where}: not valid Python ({error.msg})") from None
    except (ValueError, RecursionError) as error:  # a NUL byte, or nesting past the limit
        raise RagauditError(f"source file {path}: not valid Python ({error})") from None


@cache
def _parser(kind: str) -> tree_sitter.Parser:
    # one parser per language for the process: building a Language is the costly part
    if kind == "javascript":
        language = tree_sitter_javascript.language()
    elif kind == "typescript":
        language = tree_sitter_typescript.language_typescript()
    elif kind == "tsx":
        language = tree_sitter_typescript.language_tsx()
    else:
        raise ValueError(f"no tree-sitter grammar for {kind!r}")
    return tree_sitter.Parser(tree_sitter.Language(language))


def js_tree(kind: SourceKind, text: str) -> tree_sitter.Tree:
    """The tree-sitter syntax tree of JavaScript, TypeScript or TSX source. tree-sitter
    recovers from errors, so a broken file still yields a tree (with ERROR nodes)."""
    return _parser(kind).parse(text.encode("utf-8"))


def node_text(node: tree_sitter.Node, text: str) -> str:
    """The source text a tree-sitter node spans (its offsets are UTF-8 bytes, not
    characters, so the slice is taken from the encoded text)."""
    if node.text is not None:
        return node.text.decode("utf-8", errors="replace")
    return text.encode("utf-8")[node.start_byte : node.end_byte].decode("utf-8", "replace")


def line_of(node: tree_sitter.Node | ast.AST) -> int:
    """The 1-based line a tree-sitter node (or a Python ast node) starts on."""
    if isinstance(node, ast.AST):
        return getattr(node, "lineno", 1)
    return node.start_point[0] + 1
