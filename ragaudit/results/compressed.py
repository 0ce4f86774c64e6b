"""Gzip-compressed documents: a results file named `*.gz` (the shipped reference run) is read
by the one loader like any other, and written byte for byte the same from the same JSON."""

from __future__ import annotations

import gzip
import stat
import zlib
from pathlib import Path

from ragaudit.errors import RagauditError

SUFFIX = ".gz"
MAX_DECOMPRESSED_BYTES = 256 * 2**20
"""The most a gzip file may hold once gunzipped, counted while it is read, so a 1 MB file
that inflates to 1 GiB (a gzip bomb) is refused after 256 MB, not read whole. The loader
caps a plain file at the same size (results.io), as the inspector does
(ui.allowed.MAX_DOCUMENT_BYTES)."""
_CHUNK = 2**20


def is_compressed(path: str | Path) -> bool:
    """True for a file the loader gunzips (its name ends in `.gz`)."""
    return Path(path).suffix == SUFFIX


def read_gzip_text(path: str | Path, max_bytes: int = MAX_DECOMPRESSED_BYTES) -> str:
    """The UTF-8 text inside the gzip file at `path`, at most `max_bytes` of it once
    gunzipped (counted chunk by chunk as it inflates, so no more is ever held). A
    RagauditError names the file and the problem: missing, not a regular file, not gzip,
    truncated, over the limit, not UTF-8."""
    path = Path(path)
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise RagauditError(f"{path}: not a regular file")
        return str(_inflate(path, max_bytes), "utf-8-sig")
    except FileNotFoundError:
        raise RagauditError(f"{path}: no such file") from None
    except UnicodeDecodeError as error:
        raise RagauditError(f"{path}: not UTF-8 text once gunzipped (byte {error.start})") from None
    except (gzip.BadGzipFile, EOFError, zlib.error) as error:
        raise RagauditError(f"{path}: not a readable gzip file ({error})") from None
    except OSError as error:
        raise RagauditError(f"{path}: cannot read ({error.strerror})") from None


def _inflate(path: Path, max_bytes: int) -> bytearray:
    inflated = bytearray()
    with path.open("rb") as raw, gzip.GzipFile(fileobj=raw) as stream:
        while chunk := stream.read(_CHUNK):
            if len(inflated) + len(chunk) > max_bytes:
                raise RagauditError(
                    f"{path}: more than {max_bytes // 2**20} MB once gunzipped, over the "
                    "limit for one results file; not read"
                )
            inflated += chunk
    return inflated


def gzip_bytes(text: str) -> bytes:
    """`text` gzip-compressed with no timestamp in the header, so the same results give the
    same bytes (and the same sha256) whenever they are compressed."""
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)
