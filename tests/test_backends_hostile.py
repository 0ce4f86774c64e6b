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
from helpers.corpus_counts import distinct_passages, distinct_questions
from helpers.hostile_openai_server import DIMENSIONS, EMBED_MODEL, THROTTLED
from helpers.hostile_run import PROMPTS, Servers, listed_digest, run_ragaudit

from ragaudit.stack.configs import MATRIX_CHUNKINGS


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


# The run's texts (hostile_run.RUN: --n 1, --no-extra-configs, so the matrix's chunkings
# only): each distinct chunk text cut from the n=1 share of the shipped corpus, and each
# distinct question of it, read from corpus/; a text is asked once, whichever chunkings or
# questions share it. The two prompts are hostile_run's (--gen-configs A, one probe).
PASSAGES = len(distinct_passages(MATRIX_CHUNKINGS))
QUERIES = len(distinct_questions())
TEXTS = PASSAGES + QUERIES
INDEX_BATCH, REQUEST = 64, 16  # stack.index's batch of passages; the engine's request


def requests_for(texts: int, batch: int) -> int:
    """The requests of `texts` asked `batch` at a time, each sent REQUEST a request."""
    sizes = [batch] * (texts // batch) + ([texts % batch] if texts % batch else [])
    return sum(-(-size // REQUEST) for size in sizes)


# mode -> (exit code, calls replayed, computed, failed), by hand from what the mode breaks:
# a mode that spoils every embedding reply fails every text (no retrieval: no prompt is
# asked); one that only spoils a batch of several is cured when each text is asked alone.
EVERY_TEXT_FAILS = (1, 0, 0, TEXTS)
ALL_COMPUTED = (0, 0, TEXTS + PROMPTS, 0)
FIRST = REQUEST  # the texts of the first request (the engine's batch)
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
    # The first request fixes the dimension; the rest fail. The batch's passages are then
    # asked one by one: the first 16 replay what was just stored, the others fail again.
    "dimension_change": (1, FIRST, FIRST, TEXTS - FIRST),
    "no_models": ALL_COMPUTED,
    "null_content": (1, 0, TEXTS, PROMPTS),
    "throttle429": ALL_COMPUTED,
    "throttle503": ALL_COMPUTED,
    "trickle": EVERY_TEXT_FAILS,
    "huge_reply": EVERY_TEXT_FAILS,
    "huge_chunked": EVERY_TEXT_FAILS,
}
NO_DIGEST = ("no_models", "echo_models")


def reasons_say(*parts):
    def check(run, server, again):
        assert any(all(part in r for part in parts) for r in run.reasons), run.reasons

    return check


def echo_400(run, server, again):
    [reason] = run.reasons  # redacted before it was cut at 300 characters
    assert "HTTP 400: xxxx" in reason and reason.endswith(" header was Bearer ***")


def echo_chat(run, server, again):
    replies = [json.loads(value)["text"] for _, value in run.rows("generate")]
    assert replies and all(reply.endswith("(you sent Bearer ***)") for reply in replies)


def echo_models(run, server, again):
    [embedder] = [m for m in run.results["models"] if m["spec"] == f"openai:{EMBED_MODEL}"]
    assert embedder["digest"] == "unavailable"
    assert embedder["digest_reason"] == "the /models entry echoes the API key; it was not used"


def dimension_change(run, server, again):
    assert len(run.seen["batches"][0]) == FIRST
    assert {len(value) // 4 for _, value in run.rows("embed")} == {DIMENSIONS}
    reasons_say(f"{DIMENSIONS + 8}-dimensional vectors; its first had {DIMENSIONS}")(run, 0, 0)
    server.set_mode("normal")  # fixed: the next run opens the cache and completes
    later = again(server)
    later.assert_key_never_written()
    assert later.status == 0
    assert later.calls == {"replayed": FIRST, "computed": TEXTS - FIRST + PROMPTS, "failed": 0}


def null_content(run, server, again):
    reasons_say("the reply's message content is null, not text")(run, 0, 0)
    assert run.rows("generate") == []
    server.set_mode("normal")  # fixed: the failed prompts are asked, never replayed empty
    later = again(server)
    later.assert_key_never_written()
    assert later.status == 0
    assert later.calls == {"replayed": TEXTS, "computed": PROMPTS, "failed": 0}


def throttled(run, server, again):
    requests = run.seen["requests"]
    # By hand: the passages are asked 64 at a time (stack.index's batch), sent 16 a request
    # (66 passages: 4 + 1 requests); the queries 16 a request (11: 1); the 2 prompts 2;
    # plus the throttled one again.
    embeds = requests_for(PASSAGES, INDEX_BATCH) + requests_for(QUERIES, REQUEST)
    assert requests["/v1/embeddings"] + requests["/v1/chat/completions"] == (
        embeds + PROMPTS + THROTTLED
    )
    assert run.seconds >= THROTTLED * 1.0  # the throttled request waited its second


def hang(run, server, again):
    # RAGAUDIT_TIMEOUT=1, RAGAUDIT_RETRIES=1, breaker after 2: the first batch's two
    # timed-out attempts open it, and no passage, query or chat call is sent after them.
    assert run.seen["requests"].get("/v1/embeddings") == 2
    assert "/v1/chat/completions" not in run.seen["requests"]
    assert run.seconds < 15
    reasons_say("no complete reply within the 1 s deadline")(run, 0, 0)
    stderr = " ".join(run.stderr.split())
    assert "not asked: " in stderr and "timed out 2 times in a row" in stderr


def error500(run, server, again):
    assert sum(e["calls"] for e in run.results["conditions"]["failure_reasons"]) == TEXTS


CHECKS = {
    "error500": error500,
    "echo_400": echo_400,
    "echo_embedding": reasons_say("an embedding is str, not a list of numbers"),
    "echo_chat": echo_chat,
    "echo_models": echo_models,
    "string_index": reasons_say("item indexes must be integers, got str"),
    "underflow": reasons_say("a vector with no direction (zero or too small)"),
    "dimension_change": dimension_change,
    "null_content": null_content,
    "throttle429": throttled,
    "throttle503": throttled,
    "hang": hang,
    "trickle": reasons_say("no complete reply within the 1 s deadline"),
    "huge_reply": reasons_say("the reply is larger than 1 MB (Content-Length 3145728 bytes;"),
    "huge_chunked": reasons_say("the reply is larger than 1 MB (more than 1048576 bytes;"),
}


@pytest.mark.parametrize("mode", sorted(EXPECTED))
def test_every_fault_mode_counts_each_text_once_caches_only_true_vectors_and_writes_no_key(
    mode, hostile, run_against
):
    server = hostile(mode)
    run = run_against(server)
    status, replayed, computed, failed = EXPECTED[mode]
    assert run.status == status, run.stderr[-3000:]
    assert run.calls == {"replayed": replayed, "computed": computed, "failed": failed}
    digest = "unavailable" if mode in NO_DIGEST else listed_digest(EMBED_MODEL)
    stored = run.assert_cache_holds_only_the_servers_answers(digest)
    assert stored == (TEXTS if mode == "null_content" else TEXTS - failed)
    assert "Traceback" not in run.stderr
    run.assert_key_never_written()
    if mode in CHECKS:
        CHECKS[mode](run, server, run_against)
        run.assert_key_never_written()


def test_an_honest_server_is_asked_each_text_once_and_rows_record_identity_and_time(
    hostile, run_against, ragaudit_home
):
    server = hostile()
    run = run_against(server)
    assert run.status == 0
    assert len(run.seen["texts"]) == len(set(run.seen["texts"])) == TEXTS
    assert len(run.seen["batches"][0]) == REQUEST  # the engine's batch
    assert len(run.seen["chats"]) == PROMPTS
    with sqlite3.connect(ragaudit_home / "cache.sqlite") as conn:
        rows = conn.execute("SELECT identity, seconds FROM calls").fetchall()
        described = dict(conn.execute("SELECT identity, description FROM identities"))
    assert len(rows) == TEXTS + PROMPTS
    assert all(identity in described and seconds is not None for identity, seconds in rows)
    assert all(0 <= seconds < 5 for _, seconds in rows)
    embed = json.loads(described[rows[0][0]])
    assert embed["server"] == server.base_url and embed["model"] == EMBED_MODEL
