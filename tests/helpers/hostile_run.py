"""Running `ragaudit run` in this process against the hostile OpenAI-compatible server
(hostile_openai_server.py) and reading back what it left: exit code, stderr, the results
file's call counts, the cache's rows, and whether any file or stderr holds the key.

`Servers` starts servers and stops them; `run_ragaudit(home, monkeypatch, capfd, server,
key=None, env=FAST)` runs the small matrix against one with a random key unless given
(a test module wraps both in its fixtures).
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
import time
from pathlib import Path

import numpy as np

import ragaudit.runner.progress  # noqa: F401 (its default stream is bound before capture)
from helpers.hostile_openai_server import (
    CHAT_MODEL,
    EMBED_MODEL,
    server_reply,
    server_vector,
    start_hostile,
    unit,
)
from ragaudit.backends.cache import call_key
from ragaudit.cli.main import main

RUN = ["run", "--n", "1", "--no-extra-configs", "--embedders", f"openai:{EMBED_MODEL}"]
RUN += ["--generator", f"openai:{CHAT_MODEL}", "--gen-configs", "A", "--gen-probes", "negation"]
PROMPTS = 2  # the run's prompts, counted by hand from its stderr (A x negation at --n 1)
FAST = {
    "RAGAUDIT_RETRIES": "1",
    "RAGAUDIT_RETRY_DELAY": "0",  # a retry waits for nothing the test checks
    "RAGAUDIT_TIMEOUT": "1",
    "RAGAUDIT_BREAKER_TIMEOUTS": "2",
    "RAGAUDIT_MAX_REPLY_MB": "1",
}


def listed_digest(model: str) -> str:
    """The digest the hostile server lists for `model` (its helper's recipe)."""
    return "sha256:" + hashlib.sha256(model.encode()).hexdigest()


def key_runs(key: str) -> set[str]:
    """Every run of 8 consecutive characters of `key`."""
    return {key[start : start + 8] for start in range(len(key) - 7)}


def new_key() -> str:
    return "sk-" + secrets.token_urlsafe(40)


class Run:
    """One `ragaudit run` against `server` with `key`: exit code, stderr, results, cache."""

    def __init__(self, home: Path, server, key: str, status: int, stderr: str, seconds: float):
        self.home, self.server, self.key = home, server, key
        self.status, self.stderr, self.seconds = status, stderr, seconds
        self.seen = server.seen()

    @property
    def results(self) -> dict:
        # A run whose records lost calls may write latest.failed.json (issue 25, item 10).
        names = ("latest.json", "latest.failed.json")
        files = [self.home / "results" / name for name in names]
        newest = max((p for p in files if p.exists()), key=lambda p: p.stat().st_mtime)
        return json.loads(newest.read_text())

    @property
    def calls(self) -> dict:
        return self.results["conditions"]["calls"]

    @property
    def reasons(self) -> list[str]:
        return [entry["reason"] for entry in self.results["conditions"]["failure_reasons"]]

    def rows(self, kind: str) -> list[tuple[str, bytes]]:
        with sqlite3.connect(self.home / "cache.sqlite") as conn:
            query = "SELECT key, value FROM calls WHERE kind = ?"
            return [(key, bytes(value)) for key, value in conn.execute(query, (kind,))]

    def texts_by_key(self, digest: str) -> dict[str, str]:
        """The cache key of each text the server was asked, for the model's `digest`."""
        return {
            call_key(
                "openai",
                EMBED_MODEL,
                digest,
                "embed",
                {},
                {"role": None, "text": text},
                self.server.base_url,
            ): text
            for text in self.seen["texts"]
        }

    def assert_cache_holds_only_the_servers_answers(self, digest: str, salt: str = "") -> int:
        """Every stored vector is the server's for its text; every stored reply is one it
        gave. Returns how many vectors are stored."""
        texts = self.texts_by_key(digest)
        vectors = self.rows("embed")
        for key, value in vectors:
            assert key in texts, "a stored vector belongs to no text the server was asked"
            expected = np.array(unit(server_vector(salt + texts[key])), dtype=np.float32)
            assert np.allclose(np.frombuffer(value, dtype=np.float32), expected, atol=1e-6)
        replies = {server_reply(messages) for messages in self.seen["chats"]}
        for _, value in self.rows("generate"):
            assert json.loads(value)["text"].split(" (you sent")[0] in replies
        return len(vectors)

    def assert_key_never_written(self) -> None:
        runs = key_runs(self.key)
        for path in self.home.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                leaked = [run for run in runs if run.encode() in data]
                assert not leaked, f"{path.relative_to(self.home)} holds {leaked[0]!r}"
        leaked = [run for run in runs if run in self.stderr]
        assert not leaked, f"stderr holds {leaked[0]!r}"


class Servers:
    """Hostile servers started by one test: `start(mode, salt)`, all stopped by `stop()`."""

    def __init__(self) -> None:
        self.started = []

    def start(self, mode: str = "normal", salt: str = ""):
        server = start_hostile(mode, salt)
        self.started.append(server)
        return server

    def stop(self) -> None:
        for server in self.started:
            server.stop()


def run_ragaudit(home: Path, monkeypatch, capfd, server, key=None, env=None, args=RUN) -> Run:
    """One run against `server` with `key` (random unless given) and `env` (FAST unless
    given) in the environment; stderr read from `capfd`."""
    key = new_key() if key is None else key
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", key)
    for name, value in (FAST if env is None else env).items():
        monkeypatch.setenv(name, value)
    capfd.readouterr()
    started = time.monotonic()
    status = main(list(args))
    seconds = time.monotonic() - started
    return Run(home, server, key, status, capfd.readouterr().err, seconds)
