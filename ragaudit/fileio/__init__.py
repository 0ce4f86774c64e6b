"""The bottom layer: bounded reads, atomic writes, and JSON/YAML parsed with line numbers.

Every package reads and writes files through here; it imports nothing of ragaudit's but
`errors`, so nothing below it can import upward (tests/test_layers.py).
"""

from ragaudit.fileio.atomic import (
    check_writable,
    now_iso,
    process_umask,
    remove_orphan_temps,
    write_bytes_atomic,
    write_json_atomic,
    write_text_atomic,
)
from ragaudit.fileio.text import MAX_INPUT_BYTES, parse_json, parse_yaml, read_text

__all__ = [
    "MAX_INPUT_BYTES",
    "check_writable",
    "now_iso",
    "parse_json",
    "parse_yaml",
    "process_umask",
    "read_text",
    "remove_orphan_temps",
    "write_bytes_atomic",
    "write_json_atomic",
    "write_text_atomic",
]
