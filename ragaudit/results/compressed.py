"""Gzip-compressed documents: a results file named `*.gz` (the shipped reference run) is read
by the one loader like any other, and written byte for byte the same from the same JSON."""

from __future__ import annotations

import gzip
import stat
import zlib
from pathlib import Path

from ragaudit.errors import RagauditError

SUFFIX = ".gz"


def is_compressed(path: str | Path) -> bool:
    """True for a file the loader gunzips (its name ends in `.gz`)."""
    return Path(path).suffix == SUFFIX


def read_gzip_text(path: str | Path) -> str:
    """The UTF-8 text inside the gzip file at `path`. A RagauditError names the file and
    the problem: missing, not a regular file, not gzip, truncated, not UTF-8."""
    path = Path(path)
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise RagauditError(f"{path}: not a regular file")
        return gzip.decompress(path.read_bytes()).decode("utf-8-sig")
    except FileNotFoundError:
        raise RagauditError(f"{path}: no such file") from None
    except UnicodeDecodeError as error:
        raise RagauditError(f"{path}: not UTF-8 text once gunzipped (byte {error.start})") from None
    except (gzip.BadGzipFile, EOFError, zlib.error) as error:
        raise RagauditError(f"{path}: not a readable gzip file ({error})") from None
    except OSError as error:
        raise RagauditError(f"{path}: cannot read ({error.strerror})") from None


def gzip_bytes(text: str) -> bytes:
    """`text` gzip-compressed with no timestamp in the header, so the same results give the
    same bytes (and the same sha256) whenever they are compressed."""
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)
