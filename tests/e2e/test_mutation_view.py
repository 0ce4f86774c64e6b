"""The mutation view in a real browser (issue 39, item 6), on a mutation audit of
examples/mutate: a survivor the file records stands in its operator's cell list; a click
on that cell lists the cell's mutants under their statuses; the survivor's Open link shows
it on the Instance page with its planted text, its diff and its chunk boundaries drawn;
and every page opens on the file with no console error and no exception.

The file is written by `ragaudit mutate --no-generate` over examples/mutate (all 14
intents; recursive 1000/200, k 3) with Ollama's protocol served on 127.0.0.1 by
tests/helpers/ollama_fake.py (a hashed bag of words: no model, about 5 s); the app keeps
that embedder for a page that embeds live. What is expected is read from the file's own
fields (mutants, survivors, chunk_offsets, diffs), never from the view's code."""

from __future__ import annotations

import json
import re

import pytest
from helpers.ollama_fake import start_fake_ollama
from test_every_page_clean import _watch
from test_severity_grid import _click
from ui_browser_helpers import REPO, serve_app, shot, wait_for_rerun

from ragaudit.cli.main import main
from ragaudit.ui.pages import PAGES_IN_ORDER

pytestmark = [pytest.mark.e2e, pytest.mark.slow(model=False)]  # a browser; no generator
EXAMPLE = REPO / "examples" / "mutate"
SETTINGS = (
    "name: recursive\nembedder: ollama:mxbai-embed-large\nsplitter: recursive\n"
    "chunk_size: 1000\noverlap: 200\nk: 3\n"
)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The mutate file in a data folder's results/, and the inspector serving it."""
    home = tmp_path_factory.mktemp("e2e-mutation-home")
    (home / "recursive.yaml").write_text(SETTINGS, encoding="utf-8")
    results = home / "results" / "mutate.json"
    embedder = start_fake_ollama("normal", 0)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("RAGAUDIT_HOME", str(home))
            patch.setenv("OLLAMA_HOST", embedder.url)
            status = main(["mutate", str(EXAMPLE / "corpus"), str(EXAMPLE / "cases.yaml"),
                           "--settings", str(home / "recursive.yaml"), "--no-generate",
                           "--out", str(results)])  # fmt: skip
            assert status in (0, 1), "a survivor exits 1; anything else is a failed run"
            process, base = serve_app(home, results, home / "streamlit.log")
        yield base, json.loads(results.read_text(encoding="utf-8"))
        process.terminate()
        process.wait(timeout=20)
    finally:
        embedder.stop()


def _survivor(results: dict) -> tuple[dict, dict]:
    """The file's first survivor whose mutant document has chunk offsets recorded, and the
    record of its first phrasing that let it through (the one its Open link names)."""
    losing = {s["mutant"]: s["phrasings"][0] for s in results["mutation"]["survivors"]}
    for mutant in results["mutation"]["mutants"]:
        if mutant["status"] != "survived":
            continue
        wanted = (mutant["mutant"], losing[mutant["mutant"]])
        record = next(
            r for r in results["instances"] if (r["meta"].get("mutant"), r["instance_id"]) == wanted
        )
        if mutant["mutant_doc_id"] in results["chunk_offsets"][record["chunking"]]:
            return mutant, record
    raise AssertionError("the fixture's file has no survivor with chunk offsets")


def _css_name(mutant_id: str) -> str:
    """A mutant id as its row's class names it (the view's documented rule)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", mutant_id)


def _clean(page, seen: list[str], where: str) -> None:
    page.wait_for_timeout(1000)  # late plotly and component loads
    assert (seen, page.get_by_test_id("stException").count()) == ([], 0), where


def test_a_survivor_is_listed_in_its_cell_and_opens_with_its_planted_diff(page, served):
    base, results = served
    seen = _watch(page)
    mutant, record = _survivor(results)
    operator, column = mutant["operator"], record["config"]
    operators = [s["operator"] for s in results["mutation"]["scores"]]
    elsewhere = next(op for op in operators if op != operator)
    # The list opens on another operator first, so the click is what brings the survivor.
    page.goto(f"{base}/?probe={elsewhere}")
    wait_for_rerun(page)
    chart = page.get_by_test_id("stPlotlyChart").first
    chart.locator(".nsewdrag").first.wait_for(timeout=60_000)
    listing = page.locator(".st-key-mutation_list")
    row = listing.locator(f".st-key-mutation_mutant_{_css_name(mutant['mutant'])}")
    assert listing.inner_text().startswith(f"{elsewhere} × {column}")
    assert row.count() == 0
    page.wait_for_timeout(1000)  # plotly's resize after the first paint
    cells = chart.locator(".scatterlayer .point")
    assert cells.count() == len(operators)  # one column: a cell per operator, row by row
    cell = cells.nth(operators.index(operator)).bounding_box()
    _click(page, cell["x"] + cell["width"] / 2, cell["y"] + cell["height"] / 2)
    page.wait_for_url(re.compile(rf"[?&]probe={operator}(&|$)"), timeout=60_000)
    wait_for_rerun(page)
    assert listing.inner_text().startswith(f"{operator} × {column}")
    # every mutant of the operator under its status's group, and nothing else
    mine = [m for m in results["mutation"]["mutants"] if m["operator"] == operator]
    for each in mine:
        group = listing.locator(f".st-key-mutation_status_{each['status']}")
        assert group.locator(f".st-key-mutation_mutant_{_css_name(each['mutant'])}").count() == 1
    assert listing.locator("[class*='st-key-mutation_mutant_']").count() == len(mine)
    survived = [m for m in mine if m["status"] == "survived"]
    group = listing.locator(".st-key-mutation_status_survived")
    assert group.inner_text().startswith(f"survived ({len(survived)})")
    assert row.inner_text().startswith(mutant["mutant"])
    shot(page, "mutation-01-clicked-cell")
    _clean(page, seen, "matrix")

    row.get_by_role("link", name="Open").click()
    page.wait_for_url(re.compile(r"/instance\?"), timeout=60_000)
    wait_for_rerun(page)
    doc, chunking = mutant["mutant_doc_id"], record["chunking"]
    page.get_by_text(f"Mutant {mutant['mutant']}: status survived").wait_for()
    assert page.get_by_text(f"Planted by {operator} ({mutant['mutant']})").count() == 1
    boundaries = page.get_by_text(f"Chunks of {doc} under {chunking} (characters)")
    line = boundaries.inner_text()
    offsets = results["chunk_offsets"][chunking][doc]
    for index, (start, end) in enumerate(offsets):
        assert f"#{index} {start}–{end}" in line, (index, line)
    # the mutant document drawn (the page draws the retrieved documents below it too): an
    # edge mark per chunk, the planted text highlighted
    planted = next(s["text"] for s in mutant["planted"] if s["doc_id"] == doc and s["text"])
    first_line = planted.strip().splitlines()[0]
    drawn = page.locator(".ra-doc").filter(has_text=first_line)
    assert drawn.count() == 1
    assert drawn.locator(".ra-start").count() == len(offsets)
    marked = drawn.locator("span[style*='background']").filter(has_text=first_line)
    assert marked.count() >= 1, first_line
    # and the diff against the original, opened as a person opens it
    page.get_by_text("Diff against the original").click()
    added = next(x for x in mutant["diff"].splitlines() if x.startswith("+") and x[1:].strip()
                 and not x.startswith("+++"))  # fmt: skip
    page.get_by_test_id("stCode").filter(has_text=added[1:].strip()).wait_for()
    shot(page, "mutation-02-survivor-instance")
    _clean(page, seen, "instance")


def test_every_page_opens_on_the_mutate_file_without_an_error(page, served):
    base, results = served
    seen = _watch(page)
    for each in PAGES_IN_ORDER:
        path = "/" if each.default else f"/{each.key}"  # the default page lives at the root
        page.goto(f"{base}{path}")
        wait_for_rerun(page, timeout=180_000)
        _clean(page, seen, each.key)
        assert page.title().startswith(f"{each.title} · "), (each.key, page.title())
        if each.key == "matrix":  # the mutation view, not the planted-fault matrix
            page.get_by_text(f"Mutation audit: {results['configs'][0]['name']}").wait_for()
        shot(page, f"mutation-page-{each.key}")
