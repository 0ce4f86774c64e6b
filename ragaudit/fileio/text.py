"""Bounded reads and strict parsing: a hand-written input (config, settings, cases, stack
file, source) as text, and JSON or YAML parsed with the line of every error. The one YAML
reader; the bottom layer, importing nothing of ragaudit's but errors."""

from __future__ import annotations

import json
import stat
from functools import cache
from pathlib import Path
from typing import Any

from ragaudit.errors import RagauditError

MAX_INPUT_BYTES = 4 * 2**20
"""The largest hand-written input ragaudit parses (configs, settings, case files): a real
one is a few KB, and PyYAML's pure-Python parser reads about 1 MB a second."""


def read_text(path: str | Path, source: str, *, max_bytes: int | None = None) -> str:
    """The regular file at `path` as UTF-8 text (a leading BOM dropped). A RagauditError
    names `source` (the file, as the caller names it) and the problem: missing, not a
    regular file (a FIFO would block, a device never ends), over `max_bytes`, unreadable,
    not UTF-8. Nothing is opened before os.stat says it is a regular file."""
    path = Path(path)
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise RagauditError(f"{source}: not a regular file")
        if max_bytes is not None and info.st_size > max_bytes:
            raise RagauditError(
                f"{source}: {info.st_size / 2**20:.1f} MB, more than the "
                f"{max_bytes / 2**20:.0f} MB ragaudit reads from a file like this"
            )
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise RagauditError(f"{source}: no such file") from None
    except UnicodeDecodeError as error:
        raise RagauditError(f"{source}: not UTF-8 text (byte {error.start})") from None
    except OSError as error:
        raise RagauditError(f"{source}: cannot read ({error.strerror})") from None


class _NonFinite(Exception):
    """NaN or ±Infinity in a JSON text: Python's json reads them, the JSON standard and
    ragaudit's writers (allow_nan=False) do not."""


def _refuse_constant(name: str) -> None:
    raise _NonFinite(name)


def parse_json(text: str, source: str | Path, *, one_line: bool = False) -> Any:
    """`text` parsed as strict JSON: NaN and ±Infinity are refused like any syntax error,
    and so is nesting too deep to read. An error names `source` (the file, as the caller
    names it) and the line, in the one wording every reader of a JSON file uses;
    `one_line=True` when `source` already names the line (a JSONL record)."""
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as error:
        where = "" if one_line else f" at line {error.lineno}"
        problem = f"{error.msg}{where}"
    except _NonFinite as error:
        problem = f"{error} is not a number JSON allows; ragaudit writes finite numbers only"
    except RecursionError:
        problem = "nested too deeply to read"
    raise RagauditError(f"{source}: not valid JSON ({problem})")


def parse_yaml(text: str, source: str | Path) -> tuple[Any, Any]:
    """`text` parsed as YAML with the safe loader (plain data only), and its root node
    (None for an empty document), whose marks give each field's line. One pass of
    PyYAML's pure-Python parser: it raises RecursionError on deep nesting where libyaml
    would overflow the C stack. A key given twice in one mapping, and aliases repeating
    more than MAX_ALIASED_VALUES values, are refused before anything is built
    (fileio.yaml_shape). An error is one line naming `source` and the line."""
    import yaml

    from ragaudit.fileio.yaml_shape import check_shape

    loader = None
    try:
        loader = _safe_loader()(text)  # its reader refuses control characters at once
        node = loader.get_single_node()
        if node is not None:
            check_shape(node, source)
        return (loader.construct_document(node) if node is not None else None), node
    except yaml.reader.ReaderError as error:  # a character YAML forbids, by offset
        where = f"line {text.count(chr(10), 0, error.position) + 1}: "
        problem = f"unacceptable character #x{error.character:04x}: {error.reason}"
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error)
    except RecursionError:
        where, problem = "", "nested too deeply to read"
    finally:
        if loader is not None:
            loader.dispose()
    raise RagauditError(f"{source}: {where}invalid YAML ({' '.join(problem.split())})")


@cache
def _safe_loader() -> type:
    import yaml

    class SafeLoader(yaml.SafeLoader):
        """The safe loader, with a value its constructor cannot build (`2020-13-45`,
        `!!int x`) reported as a YAML error at that value's line, not a ValueError."""

        def construct_object(self, node, deep=False):
            try:
                return super().construct_object(node, deep)
            except (ValueError, TypeError, OverflowError) as error:
                raise yaml.constructor.ConstructorError(
                    None, None, f"{node.value!r}: {error}"[:200], node.start_mark
                ) from None

    return SafeLoader
