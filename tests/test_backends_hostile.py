"""`ragaudit run` against a hostile OpenAI-compatible server (a real HTTP process on
127.0.0.1: tests/helpers/hostile_openai_server.py), one fault mode at a time, with a fresh
high-entropy key.

Each run asserts: the exit code; the failure counts equal the texts (every text the run
asked counted once, by its final outcome); the cache holds only vectors equal to the
server's vector for that text, recomputed here by hand (and only the server's replies);
and no file under the data folder and no byte of stderr holds 8 or more consecutive
characters of the key (issue 25, items 1-9 and 21-24).
"""

from __future__ import annotations

import json
import sqlite3

import pytest
from helpers.hostile_openai_server import EMBED_MODEL
from helpers.hostile_run import PROMPTS, TEXTS, Servers, listed_digest, run_ragaudit


@pytest.fixture
def hostile():
    servers = Servers()
    yield servers.start
    servers.stop()


@pytest.fixture
def run_against(ragaudit_home, monkeypatch, capfd):
    def run(server, key=None, env=None):
        return run_ragaudit(ragaudit_home, monkeypatch, capfd, server, key, env)

    return run


# mode -> (exit code, calls computed, calls failed), by hand from what the mode breaks:
# a mode that spoils every embedding reply fails every text (no retrieval: no prompt is
# asked); one that only spoils a batch of several is cured when each text is asked alone.
EVERY_TEXT_FAILS = (1, 0, TEXTS)
ALL_COMPUTED = (0, TEXTS + PROMPTS, 0)
EXPECTED = {
    "normal": ALL_COMPUTED,
    "error500": EVERY_TEXT_FAILS,
    "malformed_json": EVERY_TEXT_FAILS,
    "html": EVERY_TEXT_FAILS,
    "fewer_items": EVERY_TEXT_FAILS,
    "nan": EVERY_TEXT_FAILS,
    "hang": EVERY_TEXT_FAILS,
    "close_mid_body": EVERY_TEXT_FAILS,
    "echo_400": EVERY_TEXT_FAILS,
    "echo_embedding": EVERY_TEXT_FAILS,
    "echo_chat": ALL_COMPUTED,
    "echo_models": ALL_COMPUTED,
    "no_index_reversed": ALL_COMPUTED,  # a batch is refused, each text alone is answered
    "string_index": EVERY_TEXT_FAILS,  # "0" is not an index, even alone
    "duplicate_index": ALL_COMPUTED,
    "missing_index": ALL_COMPUTED,
    "overflow": ALL_COMPUTED,  # 1e38 * v still points along v
    "underflow": EVERY_TEXT_FAILS,  # 1e-320 * v points nowhere
    "no_models": ALL_COMPUTED,
    "null_content": (1, TEXTS, PROMPTS),
    "throttle429": ALL_COMPUTED,
    "throttle503": ALL_COMPUTED,
    "trickle": EVERY_TEXT_FAILS,
    "huge_reply": EVERY_TEXT_FAILS,
    "huge_chunked": EVERY_TEXT_FAILS,
}
NO_DIGEST = ("no_models", "echo_models")


@pytest.mark.parametrize("mode", sorted(EXPECTED))
def test_every_fault_mode_counts_each_text_once_caches_only_true_vectors_and_writes_no_key(
    mode, hostile, run_against
):
    server = hostile(mode)
    run = run_against(server)
    status, computed, failed = EXPECTED[mode]
    assert run.status == status, run.stderr[-3000:]
    assert run.calls == {"replayed": 0, "computed": computed, "failed": failed}
    digest = "unavailable" if mode in NO_DIGEST else listed_digest(EMBED_MODEL)
    stored = run.assert_cache_holds_only_the_servers_answers(digest)
    assert stored == (TEXTS if status == 0 or mode == "null_content" else 0)
    assert "Traceback" not in run.stderr
    run.assert_key_never_written()


def test_an_honest_server_is_asked_each_text_once_and_rows_record_identity_and_time(
    hostile, run_against, ragaudit_home
):
    server = hostile()
    run = run_against(server)
    assert run.status == 0
    assert len(run.seen["texts"]) == len(set(run.seen["texts"])) == TEXTS
    assert len(run.seen["batches"][0]) == 16  # the engine's batch
    assert len(run.seen["chats"]) == PROMPTS
    with sqlite3.connect(ragaudit_home / "cache.sqlite") as conn:
        rows = conn.execute("SELECT identity, seconds FROM calls").fetchall()
        described = dict(conn.execute("SELECT identity, description FROM identities"))
    assert len(rows) == TEXTS + PROMPTS
    assert all(identity in described and seconds is not None for identity, seconds in rows)
    assert all(0 <= seconds < 5 for _, seconds in rows)
    embed = json.loads(described[rows[0][0]])
    assert embed["server"] == server.base_url and embed["model"] == EMBED_MODEL
