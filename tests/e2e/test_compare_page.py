"""In a real browser: two real results files (the built-in matrix, and the LangChain stack
of examples/stack alone) on the Compare page, config B against the stack; clicking a
flipped instance draws it under both runs side by side."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from ui_browser_helpers import REPO, choose, serve_app, shot, wait_for_rerun

pytestmark = [pytest.mark.e2e, pytest.mark.slow(model=False)]  # a browser; no generator

RUN = ["--n", "2", "--no-generate", "--embedders", "local:minilm"]
STACK = REPO / "examples" / "stack" / "langchain_recursive.yaml"


def _ragaudit(home, *args: str) -> None:
    env = dict(os.environ, RAGAUDIT_HOME=str(home))
    subprocess.run(
        [sys.executable, "-m", "ragaudit", *args], cwd=REPO, env=env, check=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=900,
    )  # fmt: skip


def _gold(path, config: str) -> dict[str, bool]:
    records = json.loads(path.read_text())["instances"]
    return {r["instance_id"]: r["gold_in_context"] for r in records if r["config"] == config}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    home = tmp_path_factory.mktemp("e2e-compare")
    a, b = home / "results" / "a.json", home / "results" / "b.json"
    _ragaudit(home, "run", *RUN, "--out", str(a))
    _ragaudit(home, "run", *RUN, "--stack", str(STACK), "--stack-only", "--out", str(b))
    process, base = serve_app(home, a, home / "streamlit.log")
    yield base, a, b
    process.terminate()
    process.wait(timeout=20)


def test_flipped_instance_under_both_runs(page, served):
    base, a, b = served
    # The flips, read from the two files as the runs wrote them (not from the page's code).
    before, after = _gold(a, "B"), _gold(b, "langchain_recursive")
    flipped = sorted(i for i in before if i in after and None not in (before[i], after[i]))
    flipped = [i for i in flipped if before[i] != after[i]]
    assert flipped, "the two real runs flip no instance between B and the stack"
    page.set_default_timeout(60_000)
    page.goto(f"{base}/compare")
    wait_for_rerun(page)
    page.get_by_role("heading", name="Compare two runs").wait_for()
    choose(page, "Run A", "a.json")
    choose(page, "Run B", "b.json")
    choose(page, "Column of A", "B@local:minilm")
    page.get_by_text(f"Flipped instances ({len(flipped)})").wait_for()
    shot(page, "20-compare-cells")

    grid = page.get_by_test_id("stDataFrame").nth(1)
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    page.mouse.click(box["x"] + 16, box["y"] + 35 + 17)  # the first row's selection marker
    wait_for_rerun(page)
    heading = page.get_by_role("heading", name="under both runs")
    heading.wait_for()
    first = heading.inner_text().split()[0]
    assert first in flipped
    page.get_by_text("Run A").last.wait_for()
    charts = page.locator("[data-testid='stPlotlyChart']")
    charts.last.locator(".nsewdrag").first.wait_for()
    titles = charts.locator(".gtitle").all_text_contents()
    assert any(t.startswith(f"A: {first.split('-')[0]}") for t in titles), titles
    assert any(t.startswith(f"B: {first.split('-')[0]}") for t in titles), titles
    expected = f"gold in context {before[first]}", f"gold in context {after[first]}"
    for text in expected:
        assert page.get_by_text(text).count() >= 1, text
    charts.last.scroll_into_view_if_needed()  # the page scrolls inside its own container
    shot(page, "21-compare-both-sides")
