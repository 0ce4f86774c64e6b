"""Start tests/helpers/rag_service.py as its own process on 127.0.0.1 and stop it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

RAG_SERVICE = Path(__file__).resolve().parent / "rag_service.py"


@contextmanager
def running_service(*flags: str) -> Iterator[str]:
    """The service's base URL (``http://127.0.0.1:<port>``) while it runs with `flags`."""
    process = subprocess.Popen(
        [sys.executable, str(RAG_SERVICE), "--port", "0", *flags],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        port = int(process.stdout.readline())
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)
