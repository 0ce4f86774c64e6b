"""Small runs that several test files share: the fake-Ollama slice (`FLAGS`), the n=1
retrieval run whose every call a test can make fail (`ragaudit_run`, `TINY`, the counts
worked out by hand), and MiniLM embedding rows written into a call cache by hand (what a
dry run must find cached)."""

from __future__ import annotations

import os
import subprocess
import sys

from helpers.corpus_counts import question_records
from ragaudit.backends.cache import CallCache, call_key

FLAGS = [
    "--n", "1",
    "--embedders", "ollama:mxbai-embed-large",
    "--generator", "ollama:qwen2.5:7b",
    "--gen-configs", "A",
    "--gen-probes", "control",
]  # fmt: skip
"""The fast fake-Ollama slice of `ragaudit run`, generating one answer."""

EMBEDDER = "ollama:mxbai-embed-large"
TINY = ["--n", "1", "--no-generate"]
# The n=1 corpus: one question per probe, over the matrix's 7 configs (A…M), and one record
# more per table_split question (its T4000 config): 78 with the 11 shipped probes. Read from
# the shipped corpus's files (helpers.corpus_counts), so a probe added by the recipe counts.
CONFIGS = 7
_QUESTIONS = question_records()
QUESTIONS = len(_QUESTIONS)
RECORDS = QUESTIONS * CONFIGS + sum(r["probe"] == "table_split" for r in _QUESTIONS)


def ragaudit_run(home, host: str, *flags: str) -> subprocess.CompletedProcess:
    """`ragaudit run` as a user types it, with data in `home` and Ollama at `host`."""
    env = {**os.environ, "RAGAUDIT_HOME": str(home), "OLLAMA_HOST": host}
    env.update(RAGAUDIT_RETRIES="0", RAGAUDIT_RETRY_DELAY="0")
    env.pop("RAGAUDIT_CONTENTION_PATTERN", None)
    command = [sys.executable, "-m", "ragaudit.cli.main", "run", *flags]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)


MINILM = {"backend": "local", "model": "all-MiniLM-L6-v2-int8", "kind": "embed",
          "server": None, "params": {}}  # fmt: skip


def store_questions(cache: CallCache, digest: str, questions: list[str]) -> None:
    """Embedding calls of local:minilm for `questions`, keyed as its front keys them (no
    role: MiniLM ignores roles; no server: it runs in process) under `digest`."""
    identity = cache.remember_identity({**MINILM, "digest": digest})
    for question in questions:
        key = call_key("local", MINILM["model"], digest, "embed", {},
                       {"role": None, "text": question}, None)  # fmt: skip
        cache.put("local:minilm", "embed", key, b"\0" * 16, identity=identity, seconds=0.5)
