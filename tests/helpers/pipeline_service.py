"""Start ragaudit/bench/rag_service.py as its own process on 127.0.0.1 and stop it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def running_service(*flags: str) -> Iterator[str]:
    """The service's base URL (``http://127.0.0.1:<port>``) while it runs with `flags`."""
    process = subprocess.Popen(
        [sys.executable, "-m", "ragaudit.bench.rag_service", "--port", "0", *flags],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        port = int(process.stdout.readline())
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)
