"""The Matrix page on a mutation audit's file (issue 39, items 1 and 4): the operator ×
column heatmap of mutation scores, a cell's mutants by status, the control and closed-book
rows, files side by side (paired by mutant id or not, saying why), and the report and the
view writing a score in the same words.

The files are written by `ragaudit mutate --no-generate` over a copy of examples/mutate's
corpus with three of its intents, under two settings files (recursive 1000/200 and 400/0),
and once more with two intents only (other cases: not paired); the embedder is Ollama's
protocol served on 127.0.0.1 by tests/helpers/ollama_fake.py (a hashed bag of words: no
model, deterministic). Expected texts are worked out here from the file's counts (the
Wilson interval by its formula, percentages rounded half up), never by the code shown."""

from __future__ import annotations

import json
import math
import re
import shutil
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest
import yaml
from helpers.ollama_fake import start_fake_ollama
from helpers.ui_fixtures import chart_specs, click_chart, open_app, texts, write_results

from ragaudit.cli.main import main
from ragaudit.report.mutation import mutation_lines

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "mutate"
INTENTS = ("mileage-rate", "password-length", "eastfield-manager")
SETTINGS = (
    "name: {name}\nembedder: ollama:mxbai-embed-large\nsplitter: recursive\n"
    "chunk_size: {size}\noverlap: {overlap}\nk: 3\n"
)
CHART = "mutation_heatmap"


def _mutate(root: Path, name: str, cases: str, size: int, overlap: int) -> Path:
    settings = root / f"{name}.yaml"
    settings.write_text(SETTINGS.format(name=name, size=size, overlap=overlap), encoding="utf-8")
    out = root / "home" / "results" / f"{name}.json"
    status = main(["mutate", str(root / "corpus"), str(root / cases), "--settings",
                   str(settings), "--no-generate", "--out", str(out)])  # fmt: skip
    assert status in (0, 1), "a survivor exits 1; anything else is a failed run"
    return out


@pytest.fixture(scope="module")
def audits(tmp_path_factory) -> dict[str, Path]:
    """Three mutation audits and a planted-matrix results file in one results folder."""
    root = tmp_path_factory.mktemp("mutation-view")
    shutil.copytree(EXAMPLE / "corpus", root / "corpus")
    intents = yaml.safe_load((EXAMPLE / "cases.yaml").read_text(encoding="utf-8"))["intents"]
    kept = [i for i in intents if i["intent"] in INTENTS]
    (root / "cases.yaml").write_text(yaml.safe_dump({"intents": kept}), encoding="utf-8")
    (root / "two.yaml").write_text(yaml.safe_dump({"intents": kept[:2]}), encoding="utf-8")
    server = start_fake_ollama("normal", 0)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("RAGAUDIT_HOME", str(root / "home"))
            patch.setenv("OLLAMA_HOST", server.url)
            files = {
                "wide": _mutate(root, "wide", "cases.yaml", 1000, 200),
                "narrow": _mutate(root, "narrow", "cases.yaml", 400, 0),
                "other": _mutate(root, "other", "two.yaml", 1000, 200),
            }
    finally:
        server.stop()
    write_results(root / "home" / "results" / "latest.json", n=5)  # not a mutate file
    return {"root": root, **files}


@pytest.fixture
def home(audits, monkeypatch) -> Path:
    monkeypatch.setenv("RAGAUDIT_HOME", str(audits["root"] / "home"))
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    return audits["root"] / "home"


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _percent(rate: float) -> int:
    return int(Decimal(repr(rate)).scaleb(2).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def _expected_score(killed: int, n: int) -> str:
    """`46% 6/13 [23–71%]`: the rate, then the 95% Wilson score interval (z = 1.96)."""
    z2, p = 1.96**2, killed / n
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = 1.96 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    low, high = max(0.0, centre - half), min(1.0, centre + half)
    return f"{_percent(p)}% {killed}/{n} [{_percent(low)}–{_percent(high)}%]"


def _expected_counts(score: dict) -> list[str]:
    counts = [(score["robust"], "robust"), (score["not_measured"], "not measured"),
              (score["excluded"] + score["closed_book"], "control row excluded"),
              (score["not_applicable"], "not applicable")]  # fmt: skip
    return [f"{n} {words}" for n, words in counts if n]


def _cells(at) -> dict[tuple[str, str], str]:
    """(operator, column) -> the cell's label, as drawn on the heatmap's overlay."""
    (spec,) = [s for s in chart_specs(at) if len(s["data"]) == 2]
    overlay = spec["data"][1]
    return {tuple(c): t for c, t in zip(overlay["customdata"], overlay["text"], strict=True)}


def _click(at, operator: str, column: str):
    return click_chart(at, CHART, {"x": column, "y": operator, "customdata": [operator, column]})


def _list_texts(at) -> list[str]:
    """The page's markdown in order, as read (Markdown's escapes taken out: the page
    escapes `table_split` so that it is not emphasis)."""
    return [re.sub(r"\\(.)", r"\1", m.value) for m in at.markdown]


def _heading_above(shown: list[str], row: str) -> str:
    """The status heading (`**survived** (2)`) nearest above `row`, without its count."""
    above = shown[: shown.index(row)]
    return next(t for t in reversed(above) if t.startswith("**") and t.endswith(")")).split(" (")[0]


def test_the_page_draws_one_row_per_operator_with_its_score_in_the_reports_words(home, audits):
    results = _load(audits["wide"])
    at = open_app(audits["wide"])
    assert not at.exception, [e.message for e in at.exception]
    page = texts(at)
    assert "Uncertified" not in page and "undetermined" not in page
    assert "Mutation audit: wide (retrieval-side measures)" in page
    cells = _cells(at)
    scores = results["mutation"]["scores"]
    assert [op for op, _ in cells] == [s["operator"] for s in scores]  # one column, in order
    report = "\n".join(mutation_lines(results))
    for score in scores:
        lines = cells[score["operator"], "wide"].split("<br>")
        if score["applicable"]:
            shown = _expected_score(score["killed"], score["applicable"])
            assert lines[0] == shown
            assert f"| {score['operator']} | {shown} |" in report  # item 4: the same text
        else:
            assert lines[0] == "— no score"
        # robust credits and the unscored counts beside the score, on lines of their own
        assert " · ".join(lines[1:]) == " · ".join(_expected_counts(score))
    # the file has a score, a robust credit and a not applicable mutant to show
    assert any(s["applicable"] for s in scores)
    assert any(s["robust"] for s in scores) and any(s["not_applicable"] for s in scores)


def test_a_click_on_a_cell_lists_its_operators_mutants_with_their_statuses(home, audits):
    results = _load(audits["wide"])
    mutants = [m for m in results["mutation"]["mutants"] if m["status"] != "control"]
    at = open_app(audits["wide"])
    for operator in ("boundary", "supersede", "remove_answer"):
        _click(at, operator, "wide")
        assert not at.exception
        assert at.selectbox(key="mutation_operator").value == operator
        shown = _list_texts(at)
        assert shown[0].startswith(f"**{operator} × wide**: killed / applicable ")
        mine = [m for m in mutants if m["operator"] == operator]
        assert mine, operator
        for mutant in mine:
            (row,) = [t for t in shown if t.startswith(f"`{mutant['mutant']}` · ")]
            # the row stands under its status's heading
            assert _heading_above(shown, row) == f"**{mutant['status'].replace('_', ' ')}**"
            if mutant["status"] == "survived":
                (survivor,) = [s for s in results["mutation"]["survivors"]
                               if s["mutant"] == mutant["mutant"]]  # fmt: skip
                assert f"let through by {', '.join(survivor['phrasings'])}" in row
            elif mutant["status"] != "killed":
                assert mutant["reason"] in row  # why it is outside the score
        others = [t for t in shown if t.startswith("`") and not t.startswith(f"`{operator}/")]
        assert not others, "only the clicked operator's mutants are listed"
    statuses = {m["status"] for m in mutants if m["operator"] in ("boundary", "supersede")}
    assert {"robust", "not_applicable"} <= statuses  # the statuses the clicks went through


def test_a_mutant_links_to_its_phrasing_on_the_instance_page(home, audits):
    results = _load(audits["wide"])
    (survivor, *_) = results["mutation"]["survivors"]
    at = _click(open_app(audits["wide"]), survivor["operator"], "wide")
    (link,) = [p for p in at.get("page_link") if p.proto.help.startswith(f"{survivor['mutant']},")]
    assert link.proto.page == "instance"
    record = next(r for r in results["instances"] if r["meta"]["mutant"] == survivor["mutant"])
    query = dict(pair.split("=", 1) for pair in link.proto.query_string.split("&"))
    assert query["probe"] == survivor["operator"] and query["config"] == "wide"
    assert query["instance"] == survivor["phrasings"][0].replace("/", "%2F")
    assert query["embedder"] == record["embedder"].replace(":", "%3A")


def test_the_control_row_lists_each_phrasing_under_both_measures(home, audits):
    results = _load(audits["wide"])
    at = open_app(audits["wide"])
    control = results["mutation"]["control"]
    page = texts(at)
    assert (
        f"{control['span_in_context']} of {control['cases']} have the answer span in the "
        f"context (mutate's measure); {control['source_in_top_k']} of {control['cases']} "
        "have an expected source in the top k" in page
    )
    (table,) = [d.value for d in at.dataframe if "answer span in context" in d.value.columns]
    words = {True: "yes", False: "no"}
    records = [r for r in results["instances"] if r["probe"] == "control"]
    assert list(table["phrasing"]) == [r["instance_id"] for r in records]
    assert list(table["answer span in context"]) == [words[r["gold_in_context"]] for r in records]
    assert list(table["expected source in top k"]) == [
        words[r["mutation"]["source_in_top_k"]] for r in records
    ]
    # --no-generate asks nothing closed book: the row says why
    assert f"Closed-book row: {results['mutation']['closed_book_reason']}." in page


def test_two_files_of_the_same_corpus_and_cases_pair_by_mutant_id(home, audits):
    wide, narrow = _load(audits["wide"]), _load(audits["narrow"])
    at = open_app(audits["wide"])
    offered = at.multiselect(key="mutation_files").options
    assert sorted(offered) == ["narrow.json", "other.json"]  # not the matrix file, not itself
    at.multiselect(key="mutation_files").set_value([str(audits["narrow"])]).run()
    assert not at.exception
    (paired,) = [s.value for s in at.success]
    assert paired.startswith("narrow is paired by mutant id with wide: the same corpus")
    cells = _cells(at)
    assert {column for _, column in cells} == {"wide", "narrow"}
    for score in narrow["mutation"]["scores"]:
        if score["applicable"]:
            first = cells[score["operator"], "narrow"].split("<br>")[0]
            assert first == _expected_score(score["killed"], score["applicable"])
    # a cell of the narrow column lists its mutants, each with its status in the wide file
    at = _click(at, "supersede", "narrow")
    assert at.selectbox(key="mutation_column").value == "narrow"
    status = {m["mutant"]: m["status"] for m in wide["mutation"]["mutants"]}
    shown = _list_texts(at)
    listed = [m for m in narrow["mutation"]["mutants"] if m["operator"] == "supersede"]
    for mutant in listed:
        (row,) = [t for t in shown if t.startswith(f"`{mutant['mutant']}` · ")]
        assert row.endswith(f"in wide: **{status[mutant['mutant']].replace('_', ' ')}**")
    assert [t.label for t in at.tabs] == ["wide", "narrow"]  # each file's control row


def test_a_file_of_other_cases_stands_beside_unpaired_saying_why(home, audits):
    at = open_app(audits["wide"])
    at.multiselect(key="mutation_files").set_value([str(audits["other"])]).run()
    assert not at.exception and not at.success
    (warning,) = [w.value for w in at.warning]
    # wide asks 6 phrasings (3 intents), other 4 of them (2 intents)
    assert warning.startswith("other stands beside wide unpaired: other cases (2 phrasings in ")
    at = _click(at, "supersede", "wide")
    assert not [t for t in _list_texts(at) if "in other: **" in t]  # no pairing claimed
    assert {column for _, column in _cells(at)} == {"wide", "other"}


def test_the_closed_book_row_is_listed_with_each_phrasing_asked_without_context(home, audits):
    # a generation run's closed-book fields (docs/results-schema.md), set on a copy of the
    # retrieval-side file: the row's sentence and one line per phrasing asked
    results = _load(audits["wide"])
    cases = [r["instance_id"] for r in results["instances"] if r["probe"] == "control"]
    results["closed_book"] = {
        case: {"question": f"question {case}", "reply": f"reply to {case}",
               "verdict": "correct" if case == cases[0] else "wrong",
               "correct": case == cases[0], "known_without_context": case == cases[0],
               "status": "ok", "error": None, "replayed": False, "prompt_sha256": "0" * 64}
        for case in cases
    }  # fmt: skip
    results["mutation"]["closed_book"] = {
        "summary": f"known 1 of {len(cases)} phrasings; 0 of 3 intents wholly",
        "wholly_known": [],
    }
    path = home / "results" / "closed.json"
    path.write_text(json.dumps(results), encoding="utf-8")
    try:
        at = open_app(path)
        assert not at.exception
        assert (
            "Closed-book row (each phrasing asked with no context by the run's generator): "
            f"known 1 of {len(cases)} phrasings; 0 of 3 intents wholly. An intent known wholly "
            "leaves every mutant's denominator: none." in texts(at)
        )
        (table,) = [d.value for d in at.dataframe if "known without context" in d.value.columns]
        assert list(table["phrasing"]) == cases
        assert list(table["reply"]) == [f"reply to {c}" for c in cases]
        assert list(table["known without context"]) == ["yes"] + ["no"] * (len(cases) - 1)
    finally:
        path.unlink()


def test_after_a_click_the_selectors_choose_another_cell(home, audits):
    at = _click(open_app(audits["wide"]), "boundary", "wide")
    assert _list_texts(at)[0].startswith("**boundary × wide**")
    # the chart keeps its selection across reruns; the operator chosen since then stays
    at.selectbox(key="mutation_operator").select("dilute").run()
    assert at.selectbox(key="mutation_operator").value == "dilute"
    assert _list_texts(at)[0].startswith("**dilute × wide**")
    assert at.query_params["probe"] == "dilute"  # the URL names the chosen operator
