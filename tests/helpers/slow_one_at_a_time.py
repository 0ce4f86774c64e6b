"""A pytest plugin: under pytest-xdist, `slow` tests that load a generator (llama.cpp: a
local model answering, judging or serving) run one at a time across the workers, while
every other test shares both cores.

Two generators loaded at once on this 2-core machine each get half a core's worth of
llama.cpp threads, which wait for each other at every step, and a generator test's
timeouts were set for one. An exclusive lock on a file both workers name (the xdist run's
id keys it, so two separate pytest runs on one machine do not wait for each other)
serialises them; without xdist the lock is never contended.

`@pytest.mark.slow(model=False)` marks a test that is slow for another reason (hundreds of
CLI runs, an embedder over a corpus, a browser, whole retrieval-only runs): it leaves the
fast loop but loads no generator, so it needs no lock, and a worker never sits waiting
for one while the other runs it. helpers.slow_guard fails such a test if it starts one."""

from __future__ import annotations

import fcntl
import os
import tempfile
from pathlib import Path

import pytest


def lock_path() -> Path:
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID", f"pid-{os.getpid()}")
    return Path(tempfile.gettempdir()) / f"ragaudit-tests-slow-{run}.lock"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    slow = item.get_closest_marker("slow")
    if slow is None or slow.kwargs.get("model") is False:  # slow, but loads no model
        yield
        return
    with open(lock_path(), "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
