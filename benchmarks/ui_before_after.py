"""`python -m benchmarks.ui_before_after --before DIR`: the inspector's first-minutes
figures on two checkouts, measured the same way in the same session: an older one (DIR, e.g.
a `git worktree` at the commit before the change) and this one.

1. The Lab's first response on the shipped reference run, as `ragaudit demo` opens it: the
   Matrix page rendered, then the Lab switched to, with a cold call cache (AppTest, in a
   child process whose imports are the checkout's own); beside the same Lab's unchanged
   rerun.
2. `ragaudit demo` to the Matrix page on screen in a real browser (Debian Chromium through
   Playwright), from a fresh data folder: seconds to the server's first health answer, to
   the heatmap drawn, and to the "what failed" summary's first entry (a checkout without
   the summary says so); then the Lab, clicked at once in the sidebar, to its first figure.
   The demo starts the quick run in the background (the generator loads): run the whole
   script under `flock /tmp/ragaudit-model.lock`.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.ui_demo import (
    CHROMIUM,
    CHROMIUM_ARGS,
    ENTRY_LINK,
    NONE_FAILED,
    _free_port,
    _healthy,
)

HERE = Path(__file__).resolve().parents[1]
LAB_FIRST = r"""
import json, logging, sys, time
from streamlit.testing.v1 import AppTest
for name in ("streamlit", "streamlit.runtime"):
    logging.getLogger(name).setLevel(logging.ERROR)
at = AppTest.from_file(sys.argv[1], default_timeout=1800)
at.run()
started = time.perf_counter()
at.switch_page("pages/lab.py").run()
first = time.perf_counter() - started
if at.exception:
    raise SystemExit(f"the Lab did not render: {at.exception[0].value}")
started = time.perf_counter()
at.run()
rerun = time.perf_counter() - started
counts = at.session_state["lab_index_counts"] if "lab_index_counts" in at.session_state else None
print(json.dumps({"first_s": first, "rerun_s": rerun, "counts": counts}))
"""


def _env(root: Path, home: Path) -> dict[str, str]:
    """The checkout's own imports and a fresh data folder (an empty call cache)."""
    env = dict(os.environ, PYTHONPATH=str(root), RAGAUDIT_HOME=str(home))
    env.pop("RAGAUDIT_RESULTS", None)
    return env


def lab_first(root: Path) -> dict:
    """The Lab's first response on `root`'s shipped reference, cold call cache."""
    with tempfile.TemporaryDirectory(prefix="ragaudit-bench-lab-") as tmp:
        env = _env(root, Path(tmp))
        env["RAGAUDIT_RESULTS"] = str(
            root / "ragaudit" / "assets" / "reference" / "reference.json.gz"
        )
        done = subprocess.run(
            [sys.executable, "-c", LAB_FIRST, str(root / "app.py")],
            cwd=root, env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
    if done.returncode:
        raise RuntimeError(f"the Lab bench failed in {root}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def demo_to_screen(root: Path, timeout: float = 600) -> dict:
    """`ragaudit demo` from `root` over a fresh data folder, watched in a real browser."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="ragaudit-bench-demo-") as tmp:
        home = Path(tmp)
        port = _free_port()
        base = f"http://127.0.0.1:{port}"
        log = (home / "demo.log").open("w")
        started = time.perf_counter()
        demo = subprocess.Popen(
            [sys.executable, "-m", "ragaudit", "demo", "--port", str(port)],
            cwd=root, env=_env(root, home), stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                _healthy(base, time.time() + timeout)
                healthy = time.perf_counter() - started
                page = browser.new_page(viewport={"width": 1500, "height": 1000})
                page.goto(base)
                heatmap = page.locator("[data-testid='stPlotlyChart'] .nsewdrag").first
                heatmap.wait_for(timeout=timeout * 1000)
                drawn = time.perf_counter() - started
                summary = None
                first = page.locator(ENTRY_LINK).first.or_(page.get_by_text(NONE_FAILED))
                if first.count():
                    summary = drawn  # drawn above the heatmap, so on screen before it
                elif page.locator(".st-key-matrix_failed").count():
                    first.wait_for(timeout=timeout * 1000)
                    summary = time.perf_counter() - started
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
    return {"healthy_s": healthy, "heatmap_s": drawn, "summary_s": summary, "lab_s": lab}


def _print_lab(name: str, m: dict) -> None:
    counts = m["counts"]
    counted = f", {counts[0]} chunks, {counts[1]} embeddings computed" if counts else ""
    print(
        f"lab first response on the shipped reference, {name} (cold call cache{counted}): "
        f"{m['first_s']:.2f} s; baseline unchanged rerun {m['rerun_s'] * 1000:.0f} ms "
        f"(x{m['first_s'] / m['rerun_s']:.1f})"
    )


def _print_demo(name: str, m: dict) -> None:
    summary = (
        "no 'what failed' summary on this checkout"
        if m["summary_s"] is None
        else f"'what failed' summary {m['summary_s']:.1f} s"
    )
    print(
        f"ragaudit demo on the shipped reference, {name}: server's first health answer "
        f"{m['healthy_s']:.1f} s; heatmap drawn {m['heatmap_s']:.1f} s; {summary}; then the "
        f"Lab clicked at once to its first figure {m['lab_s']:.2f} s"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ui_before_after")
    parser.add_argument("--before", required=True, help="the older checkout (a git worktree)")
    parser.add_argument("--skip-demo", action="store_true", help="only the Lab figures")
    args = parser.parse_args(argv)
    checkouts = [(f"before ({args.before})", Path(args.before).resolve()), ("after", HERE)]
    for name, root in checkouts:
        _print_lab(name, lab_first(root))
    if not args.skip_demo:
        for name, root in checkouts:
            _print_demo(name, demo_to_screen(root))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
