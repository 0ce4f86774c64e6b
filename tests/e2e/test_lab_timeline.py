"""In a real browser: the Lab's chunk timeline redraws when the overlap changes, read from the
figure the page drew (plotly's graph div) and from the boundary table, not from the code."""

from __future__ import annotations

import pytest
from helpers.ui_fixtures import write_results
from ui_browser_helpers import choose, serve_app, shot, wait_for_rerun

pytestmark = [pytest.mark.e2e, pytest.mark.slow(model=False)]  # a browser; no generator

# Every timeline on the page as drawn: its title, its chunk bars (start, end, label) and the
# x of its boundary lines, read from plotly's own graph divs.
DRAWN = """() => [...document.querySelectorAll('[data-testid=stPlotlyChart] .js-plotly-plot')]
  .map(gd => ({
    title: ((gd.layout.title || {}).text || '').replace(/<[^>]+>/g, ''),  // bolded by the theme
    bars: gd.data.filter(t => t.y && String(t.y[0]).startsWith('chunks ('))
      .map(t => [t.base[0], t.base[0] + t.x[0], t.text[0], t.xaxis || 'x']),
    panels: (gd.layout.annotations || []).map(a => a.text.replace(/<[^>]+>/g, '')),
    lines: (gd.layout.shapes || []).filter(s => s.type === 'line').map(s => s.x0),
    painted: gd.querySelectorAll('.barlayer .point').length,
  }))"""


@pytest.fixture(scope="module")
def lab_url(tmp_path_factory):
    from ragaudit.corpus.build import build_corpus
    from ragaudit.corpus.files import write_corpus

    home = tmp_path_factory.mktemp("e2e-lab-home")
    results = write_results(home / "results" / "latest.json", n=5)
    write_corpus(build_corpus(n=2), home / "corpus")  # small: the Lab embeds it live
    process, base = serve_app(home, results, home / "streamlit.log", corpus=home / "corpus")
    yield base
    process.terminate()
    process.wait(timeout=20)


def _timelines(page, title_part: str, count: int = 1) -> list[dict]:
    """The drawn timelines once `count` of them carry `title_part` and plotly painted them."""
    page.wait_for_function(
        f"() => ({DRAWN})().filter(f => f.title.includes({title_part!r})"
        f" && f.painted > 0).length >= {count}",
        timeout=240_000,
    )
    wait_for_rerun(page, timeout=240_000)
    return [f for f in page.evaluate(DRAWN) if title_part in f["title"]]


def test_the_timeline_boundaries_move_when_the_overlap_changes(page, lab_url):
    page.goto(f"{lab_url}/lab?probe=boundary&instance=boundary-000")
    (plain,) = _timelines(page, "boundary-000 · recursive-1000-0")
    assert plain["painted"] >= len(plain["bars"])  # the bars are in the SVG, not only data
    starts = [bar[0] for bar in plain["bars"]]
    assert sorted(set(plain["lines"])) == sorted({x for b in plain["bars"] for x in b[:2]})
    assert any("rank" in bar[2] for bar in plain["bars"])  # a retrieved chunk, by rank
    page.locator("[data-testid='stPlotlyChart']").first.scroll_into_view_if_needed()
    shot(page, "lab-timeline-1-overlap0")

    choose(page, "Overlap", "200")
    (carried,) = _timelines(page, "boundary-000 · recursive-1000-200-carry_tail")
    shot(page, "lab-timeline-2-overlap200")
    assert carried["bars"] != plain["bars"]
    # carry_tail (the rule's help text): each overlap-0 chunk is prefixed with at most 200
    # characters of the previous one, so the ends stay and every later start moves back.
    assert [b[1] for b in carried["bars"]] == [b[1] for b in plain["bars"]]
    moved = [before - bar[0] for before, bar in zip(starts, carried["bars"], strict=True)]
    assert moved[0] == 0 and all(0 < m <= 200 for m in moved[1:])
    # The boundary table says the same in words: the header travels into the gold's chunk.
    page.get_by_text("Chunk boundaries of boundary-000").first.click()
    table = page.locator("[data-testid='stTable']").first
    table.wait_for()
    rows = [r.inner_text() for r in table.locator("tbody tr").all()]
    assert any("header" in row and "gold" in row for row in rows), rows
    table.scroll_into_view_if_needed()
    shot(page, "lab-timeline-3-boundary-table")


def test_all_instances_are_small_multiples(page, lab_url):
    page.goto(f"{lab_url}/lab?probe=boundary")
    page.wait_for_function(
        f"() => ({DRAWN})().some(f => f.panels.length == 2 && f.painted > 0)", timeout=240_000
    )
    wait_for_rerun(page, timeout=240_000)
    (grid,) = [f for f in page.evaluate(DRAWN) if f["panels"]]
    assert grid["panels"] == ["boundary-000", "boundary-001"]  # the corpus has 2 a probe
    per_panel = [[b for b in grid["bars"] if b[3] == axis] for axis in ("x", "x2")]
    assert all(len(bars) >= 2 for bars in per_panel)  # each its own document's chunks
    assert grid["painted"] >= len(grid["bars"])
    page.locator("[data-testid='stPlotlyChart']").first.scroll_into_view_if_needed()
    shot(page, "lab-timeline-4-small-multiples")
