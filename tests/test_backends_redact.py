"""The redacting formatter (backends/redact.py) and reading Retry-After (backends/retry.py),
by hand: every run of 8 characters of the key is masked wherever it starts, also escaped,
and before a message is cut."""

from __future__ import annotations

import email.utils
import time

import httpx

from ragaudit.backends.redact import Redactor, one_line
from ragaudit.backends.retry import retry_after

KEY = "sk-proj-4fT9qLmZ2xW8vB1nR7cK0dY3"  # 32 characters


def test_the_whole_key_and_any_run_of_8_of_its_characters_are_masked():
    redact = Redactor(KEY)
    assert redact(f"Bearer {KEY} refused") == "Bearer *** refused"
    assert redact(f"cut: {KEY[:8]}") == "cut: ***"  # a prefix left by a cut
    assert redact(f"tail {KEY[-8:]}.") == "tail ***."  # a run from the middle or end
    assert redact(f"{KEY[5:14]}!") == "***!"
    assert redact(f"short {KEY[:7]} ok") == f"short {KEY[:7]} ok"  # 7 is not a run
    assert redact("nothing here") == "nothing here"


def test_escaped_forms_of_a_key_with_a_newline_are_masked():
    key = "sk-secret-123\n"
    redact = Redactor(key)
    assert redact(repr(f"Bearer {key}".encode())) == "b'Bearer ***'"  # httpx's header error
    assert redact('{"k": "sk-secret-123\\n"}') == '{"k": "***"}'  # JSON


def test_a_message_is_redacted_before_it_is_cut():
    redact = Redactor(KEY)
    message = "x" * 250 + f" header was Bearer {KEY}"
    assert one_line(message, redact) == "x" * 250 + " header was Bearer ***"
    unredacted_cut = message[:300]
    assert KEY[:8] in unredacted_cut  # what cutting first would have written


def test_a_short_key_is_matched_whole_and_no_key_changes_nothing():
    assert Redactor("abc123")("x abc123 y") == "x *** y"
    assert Redactor("")("Bearer anything") == "Bearer anything"


def status_error(status: int, **headers) -> httpx.HTTPStatusError:
    request = httpx.Request("POST", "http://127.0.0.1:1/v1/embeddings")
    response = httpx.Response(status, headers=headers, request=request)
    return httpx.HTTPStatusError("refused", request=request, response=response)


def test_retry_after_is_read_in_seconds_or_as_a_date_on_429_and_503_only():
    assert retry_after(status_error(429, **{"Retry-After": "1"})) == 1.0
    assert retry_after(status_error(503, **{"Retry-After": "2.5"})) == 2.5
    assert retry_after(status_error(500, **{"Retry-After": "1"})) is None
    assert retry_after(status_error(429)) is None
    assert retry_after(status_error(429, **{"Retry-After": "soon"})) is None
    when = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 < retry_after(status_error(429, **{"Retry-After": when})) <= 30
