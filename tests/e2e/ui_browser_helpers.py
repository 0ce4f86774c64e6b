"""Helpers for the real-browser suite: serve the app on loopback, wait for reruns, screenshots.

Kept out of conftest.py so a test can import them by a name no other conftest shares.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve_app(
    home: Path, results: Path, log: Path, corpus: Path | None = None, cwd: Path = REPO
) -> tuple[subprocess.Popen, str]:
    """Start the inspector's server as `ragaudit app` does (its Streamlit command line) on
    a free loopback port, from `cwd` (the checkout unless given); return it and its base
    URL."""
    port = _free_port()
    env = dict(os.environ, RAGAUDIT_HOME=str(home), RAGAUDIT_RESULTS=str(results))
    if corpus is not None:
        env["RAGAUDIT_CORPUS"] = str(corpus)
    from ragaudit.cli.app import streamlit_command

    command = streamlit_command(port)  # served as `ragaudit app` serves it
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited early; see {log}")
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as reply:
                if reply.read().decode().strip() == "ok":
                    return process, base
        except OSError:
            time.sleep(0.3)
    process.terminate()
    raise RuntimeError(f"streamlit did not answer on {base} within 60 s; see {log}")


def wait_for_rerun(page, timeout: float = 60_000) -> None:
    """Wait the way Streamlit's own e2e suite does: script not running, no skeletons."""
    page.wait_for_timeout(250)
    page.wait_for_selector(
        "[data-testid='stApp'][data-test-script-state='notRunning']", timeout=timeout
    )
    page.wait_for_selector("[data-testid='stSkeleton']", state="detached", timeout=timeout)


def choose(page, label: str, option: str, *, exact: bool = False, attempts: int = 3) -> None:
    """Pick `option` in the selectbox labelled `label` as a person does: open its list,
    click the option, wait for the rerun. The list is opened again when it did not open: a
    click landing while the page still lays out its charts (plotly resizes them after the
    first paint, moving what is below) can miss the box."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    box = page.get_by_test_id("stSelectbox").filter(has_text=label).first
    wanted = (
        page.get_by_role("option", name=option, exact=True)
        if exact
        else page.get_by_role("option").filter(has_text=option)
    ).first
    for attempt in range(attempts):
        box.scroll_into_view_if_needed()
        box.locator("input").click()
        try:
            wanted.wait_for(timeout=10_000)
            break
        except PlaywrightTimeout:
            if attempt == attempts - 1:
                raise
            page.keyboard.press("Escape")
    wanted.click()
    wait_for_rerun(page)


def shot(page, name: str) -> Path:
    """Save a full-page screenshot under tests/e2e/artifacts/."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
