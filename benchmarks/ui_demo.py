"""`python -m benchmarks.ui --demo`: the seconds from typing `ragaudit demo` to the
Matrix page's "what failed" summary on screen, in a real browser (Debian Chromium through
Playwright), beside the seconds to the server's first health answer in the same run; then
the Lab's first response as a person meets it: the sidebar's Lab clicked at once, to the
page's "Gold in context" figure.

Two cases, each from a fresh data folder:
- the shipped reference run: no local run yet, so the demo opens the reference at once and
  starts the quick run in the background (it loads the generator: run this case under
  `flock /tmp/ragaudit-model.lock`); the summary is timed while that run computes, as a
  person meets it, then the demo is stopped with Ctrl-C as a person stops it;
- a finished quick run (`--finished FILE`, a complete results file of the quick preset,
  copied into the folder as results/latest.json): the demo opens it, running nothing.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
SUMMARY = ".st-key-matrix_failed"
"""The "what failed" container (ui/failures_first.KEY)."""
ENTRY_LINK = f"{SUMMARY} [data-testid='stPageLink']"
"""Each entry's "Open cell" link, drawn beside its words."""
NONE_FAILED = "No cell has failures outside severity class none."


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _healthy(base: str, deadline: float) -> None:
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as reply:
                if reply.read().decode().strip() == "ok":
                    return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"no inspector answered on {base}")


def time_demo(home: Path, timeout: float = 300) -> dict:
    """Start `ragaudit demo` over `home`; seconds to the server's health answer, to the
    summary's first entry drawn in the browser, and what the demo said it opened."""
    from playwright.sync_api import sync_playwright

    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = dict(os.environ, RAGAUDIT_HOME=str(home))
    env.pop("RAGAUDIT_RESULTS", None)
    log = (home / "demo.log").open("w")
    started = time.perf_counter()
    demo = subprocess.Popen(
        [sys.executable, "-m", "ragaudit", "demo", "--port", str(port)],
        env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            _healthy(base, time.time() + timeout)
            healthy = time.perf_counter() - started
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            page.goto(base)
            first = page.locator(ENTRY_LINK).first.or_(page.get_by_text(NONE_FAILED))
            first.wait_for(timeout=timeout * 1000)
            shown = time.perf_counter() - started
            entries = page.locator(ENTRY_LINK).count()
            # then the Lab, from the sidebar at once, as a person clicks it
            clicked = time.perf_counter()
            page.get_by_test_id("stSidebarNav").get_by_role("link", name="Lab").click()
            page.get_by_text("Gold in context:").first.wait_for(timeout=timeout * 1000)
            lab = time.perf_counter() - clicked
            browser.close()
    finally:
        os.killpg(demo.pid, signal.SIGINT)  # Ctrl-C, as a person stops the demo
        try:
            demo.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(demo.pid, signal.SIGKILL)
            demo.wait()
        log.close()
    said = (home / "demo.log").read_text()
    return {
        "healthy_s": healthy,
        "summary_s": shown,
        "entries": entries,
        "lab_s": lab,
        "said": said,
    }


def report_demo(finished: str | None) -> None:
    """Measure and print both cases (the finished run's only when a file is given)."""
    cases = [("the shipped reference run", None)]
    if finished:
        cases.append((f"a finished quick run ({finished})", Path(finished)))
    for name, source in cases:
        with tempfile.TemporaryDirectory(prefix="ragaudit-bench-demo-") as tmp:
            home = Path(tmp)
            if source is not None:
                (home / "results").mkdir()
                shutil.copyfile(source, home / "results" / "latest.json")
            m = time_demo(home)
        background = "computing in the background" in m["said"]
        print(
            f"ragaudit demo to the 'what failed' summary on screen, {name}: "
            f"{m['summary_s']:.1f} s ({m['entries']} entries"
            + (", with the quick run computing in the background" if background else "")
            + f"); baseline the server's first health answer {m['healthy_s']:.1f} s "
            f"(x{m['summary_s'] / m['healthy_s']:.1f}); then the Lab, clicked at once in the "
            f"sidebar, to its first figure: {m['lab_s']:.2f} s (target <= 2 s: "
            f"{'met' if m['lab_s'] <= 2 else 'MISSED'})"
        )
