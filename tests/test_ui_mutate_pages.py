"""Every inspector page on a mutation audit's file (issue 39, items 2 and 3).

The file is written by `ragaudit mutate --no-generate` over a copy of examples/mutate's
corpus (three intents: a prose value, a second prose value, a table row) with a settings
file, as the issue's user ran it; its embedder is Ollama's protocol served on 127.0.0.1
by tests/helpers/ollama_fake.py (a hashed bag of words: no model, deterministic). Under it
supersede/password-length survives: the new revision's chunk ranks below the old one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from helpers.ollama_fake import start_fake_ollama
from helpers.ui_fixtures import open_app, texts, write_results
from test_mutate_pipeline import mutate as mutate_pipeline
from test_mutate_pipeline import workspace  # noqa: F401 (a fixture)

from ragaudit.cli.main import main
from ragaudit.ui.docview import highlighted_html
from ragaudit.ui.pages import PAGES_IN_ORDER
from ragaudit.ui.planted_diff import removal_points

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "mutate"
INTENTS = ("mileage-rate", "password-length", "eastfield-manager")
SETTINGS = (
    "name: fake_recursive\nembedder: ollama:mxbai-embed-large\nsplitter: recursive\n"
    "chunk_size: {size}\noverlap: {overlap}\nk: 3\n"
)
SURVIVOR = "supersede/password-length"
MUTANT_DOC = "it/passwords~supersede~password-length"


def _mutate(root: Path, name: str, size: int, overlap: int) -> Path:
    settings = root / f"{name}.yaml"
    settings.write_text(SETTINGS.format(size=size, overlap=overlap), encoding="utf-8")
    out = root / "home" / "results" / f"{name}.json"
    status = main(["mutate", str(root / "corpus"), str(root / "cases.yaml"), "--settings",
                   str(settings), "--no-generate", "--out", str(out)])  # fmt: skip
    assert status in (0, 1), "a survivor exits 1; anything else is a failed run"
    return out


@pytest.fixture(scope="module")
def audits(tmp_path_factory) -> dict[str, Path]:
    """Two mutation audits of the same corpus and cases (recursive 1000/200 and 400/0) and
    a planted-matrix results file, all in one data folder's results/."""
    root = tmp_path_factory.mktemp("mutate-ui")
    shutil.copytree(EXAMPLE / "corpus", root / "corpus")
    cases = yaml.safe_load((EXAMPLE / "cases.yaml").read_text(encoding="utf-8"))
    kept = [i for i in cases["intents"] if i["intent"] in INTENTS]
    (root / "cases.yaml").write_text(yaml.safe_dump({"intents": kept}), encoding="utf-8")
    server = start_fake_ollama("normal", 0)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("RAGAUDIT_HOME", str(root / "home"))
            patch.setenv("OLLAMA_HOST", server.url)
            first = _mutate(root, "mutate", 1000, 200)
            second = _mutate(root, "mutate-400", 400, 0)
    finally:
        server.stop()
    matrix = write_results(root / "home" / "results" / "latest.json", n=5)
    return {"root": root, "mutate": first, "second": second, "matrix": matrix}


@pytest.fixture
def home(audits, monkeypatch) -> Path:
    monkeypatch.setenv("RAGAUDIT_HOME", str(audits["root"] / "home"))
    monkeypatch.delenv("RAGAUDIT_RESULTS", raising=False)
    return audits["root"] / "home"


def _results(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _survivor_page(path: Path):
    results = _results(path)
    (survivor,) = [s for s in results["mutation"]["survivors"] if s["mutant"] == SURVIVOR]
    config = results["configs"][0]["name"]
    at = open_app(
        path,
        page="pages/instance.py",
        probe="supersede",
        config=config,
        embedder="ollama:mxbai-embed-large",
        instance=survivor["phrasings"][0],
    )
    assert not at.exception
    return at, results


@pytest.mark.parametrize("page", [p.file for p in PAGES_IN_ORDER])
def test_every_page_renders_a_mutate_file_without_an_exception(home, audits, page):
    at = open_app(audits["mutate"], page=page)
    assert not at.exception, [e.message for e in at.exception]


def test_the_survivor_opens_with_its_planted_diff_over_its_recorded_chunks(home, audits):
    at, results = _survivor_page(audits["mutate"])
    page = texts(at)
    chunking = results["configs"][0]["chunking"]
    offsets = results["chunk_offsets"][chunking][MUTANT_DOC]
    assert len(offsets) >= 2, "the mutant document spans chunks, so a boundary is drawn"
    # the boundary line names the mutant document and each recorded chunk's offsets
    assert f"Chunks of `{MUTANT_DOC}` under `{chunking}` (characters): " in page
    for index, (start, end) in enumerate(offsets):
        assert f"#{index} {start}–{end}" in page
    # the chunk edge markers of the drawn text, the diff, and the planted value
    assert "⟨1" in page and "⟩0" in page
    mutant = next(m for m in results["mutation"]["mutants"] if m["mutant"] == SURVIVOR)
    assert mutant["diff"].rstrip("\n") in [c.value for c in at.code]  # st.code trims the end
    assert f"**Mutant `{SURVIVOR}`**: status **survived**" in page
    # the trap is in the original document, drawn from the corpus the run recorded
    (trap,) = {s["text"] for s in mutant_records(results, SURVIVOR)[0]["trap_spans"]}
    assert "Document `it/passwords` under" in page and trap in page
    assert "is not in the results file" not in page


def mutant_records(results: dict, mutant: str) -> list[dict]:
    return [r for r in results["instances"] if r["meta"]["mutant"] == mutant]


def test_every_phrasing_of_the_mutant_is_listed_with_its_ranks_and_margin(home, audits):
    at, results = _survivor_page(audits["mutate"])
    table = next(df.value for df in at.dataframe if "top score drop" in df.value.columns)
    records = {r["instance_id"]: r for r in mutant_records(results, SURVIVOR)}
    assert sorted(c.removesuffix(" (this)") for c in table["phrasing"]) == sorted(records)
    for _, row in table.iterrows():
        record = records[row["phrasing"].removesuffix(" (this)")]
        assert row["gold rank"] == str(record["gold_rank"] or "not retrieved")
        assert row["margin"] == ("—" if record["margin"] is None else f"{record['margin']:.3f}")
        handled = record["mutation"]["handled"]
        assert row["handled"] == {True: "handled", False: "not handled"}[handled]
    across = next(df.value for df in at.dataframe if "operator" in df.value.columns)
    assert across["operator"].iloc[0] == "control"  # the control row first


def test_the_original_documents_text_comes_from_the_recorded_corpus_path(home, audits, tmp_path):
    # a large corpus's file holds only some chunks: here none of the original document's
    results = _results(audits["mutate"])
    chunks = results["chunks"]
    results["chunks"] = {k: c for k, c in chunks.items() if c["doc_id"] != "it/passwords"}
    thin = home / "results" / "thin.json"
    thin.write_text(json.dumps(results), encoding="utf-8")
    at, _ = _survivor_page(thin)
    page = texts(at)
    trap = mutant_records(results, SURVIVOR)[0]["trap_spans"][0]["text"]
    assert trap in page and "is not in the results file" not in page
    # the corpus moved away: now, and only now, the page says the text is gone, and where
    results["corpus"]["path"] = str(tmp_path / "moved")
    thin.write_text(json.dumps(results), encoding="utf-8")
    page = texts(_survivor_page(thin)[0])
    assert "The text of it/passwords is not in the results file, and " in page
    assert f"{tmp_path / 'moved'} is not there" in page
    assert "Chunks of `it/passwords~supersede~password-length`" in page  # the mutant's own


def test_the_runs_page_offers_no_run_over_an_open_mutate_file(home, audits):
    at = open_app(audits["mutate"], page="pages/runs.py")
    assert not at.exception
    assert not [b for b in at.button if b.label == "Start run"]
    assert "which would write over it, so none is offered here" in texts(at)
    assert "Run the audit again from a terminal: `ragaudit mutate" in texts(at)
    on_matrix = open_app(audits["matrix"], page="pages/runs.py")  # the form, elsewhere
    assert [b for b in on_matrix.button if b.label == "Start run"]


def test_the_lab_says_why_it_has_nothing_live_for_a_mutate_file(home, audits):
    at = open_app(audits["mutate"], page="pages/lab.py")
    page = texts(at)
    corpus = str(audits["root"] / "corpus")
    assert f"This file is a mutation audit of your corpus (`{corpus}`" in page
    assert "--settings COPY" in page and not at.get("plotly_chart")
    assert "lab_k" not in at.session_state  # no live controls


def test_severity_says_its_classes_do_not_apply(home, audits):
    at = open_app(audits["mutate"], page="pages/severity.py")
    assert "the classes do not apply to this file" in texts(at)
    assert not at.get("plotly_chart") and not at.dataframe


def _compare(audits, a: Path, b: Path):
    at = open_app(audits["mutate"], page="pages/compare.py")
    at.selectbox(key="compare_file_a").select(str(a)).run()
    return at.selectbox(key="compare_file_b").select(str(b)).run()


def test_compare_pairs_two_mutate_files_by_mutant_id(home, audits):
    at = _compare(audits, audits["second"], audits["mutate"])
    assert not at.exception
    a, b = _results(audits["second"]), _results(audits["mutate"])
    assert "Paired by mutant id: the same corpus" in at.success[0].value
    statuses = {
        side: {m["mutant"]: m["status"] for m in r["mutation"]["mutants"]}
        for side, r in (("A", a), ("B", b))
    }
    changed = sorted(m for m, s in statuses["A"].items() if statuses["B"].get(m, s) != s)
    shown = next(df.value for df in at.dataframe if "same planted text" in df.value.columns)
    assert sorted(shown["mutant"]) == changed
    rows = next(df.value for df in at.dataframe if "killed by A only" in df.value.columns)
    assert list(rows["operator"]) == a["run"]["operators"]


def test_compare_says_why_a_mutate_file_and_a_matrix_run_do_not_pair(home, audits):
    at = _compare(audits, audits["matrix"], audits["mutate"])
    assert "Run B is a mutation audit (`ragaudit mutate`) and the other a planted-" in texts(at)
    assert not at.dataframe


def test_a_removed_fact_is_struck_through_where_it_stood():
    # by hand: 'A. B.' with 'X. ' removed at offset 3, one chunk over the whole text
    mutant = {
        "mutant_doc_id": "d~remove_answer~x", "doc_id": "d",
        "planted": [{"doc_id": "d~remove_answer~x", "start": 3, "end": 3, "text": "",
                     "role": "removed_fact"}],
        "removed_facts": [{"doc_id": "d", "start": 3, "end": 6, "text": "X. ", "kind": "sentence"}],
    }  # fmt: skip
    assert removal_points(mutant) == {3: ["X. "]}
    body = highlighted_html("A. B.", [], [], removal_points(mutant)).split('"ra-doc">', 1)[1]
    assert body == 'A. <del class="ra-removed">X. </del>B.</div>'


def test_a_pipelines_mutant_shows_its_reply_verdict_and_attribution(workspace):  # noqa: F811
    # a pipeline answers with its own model (here a paragraph picker, no model): the plain
    # one answers from the original's tied passage, so supersede survives on its old value
    plain = mutate_pipeline(workspace, "plain")
    path = workspace / "home" / "results" / "plain.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(plain), encoding="utf-8")
    (record,) = [r for r in plain["instances"] if r["meta"]["mutant"] == "supersede/overtime-rate"]
    at = open_app(path, page="pages/instance.py", probe="supersede", config="plain",
                  embedder="pipeline:plain", instance=record["instance_id"])  # fmt: skip
    assert not at.exception
    page = texts(at)
    assert record["generation"]["reply"] in [c.value for c in at.code]
    assert f"**Verdict** `{record['grade']['verdict']}`" in page
    assert "**Attribution**: a generation failure" in page  # its attribution, in words
    table = next(df.value for df in at.dataframe if "top score drop" in df.value.columns)
    mutant = next(
        m for m in plain["mutation"]["mutants"] if m["mutant"] == record["meta"]["mutant"]
    )
    scored = mutant["phrasings"][record["instance_id"]]  # what the score reads
    assert list(table["verdict"]) == [scored["verdict"]] == [record["grade"]["verdict"]]
    assert list(table["attribution"]) == [scored["attribution"]] == [record["attribution"]]
    assert list(table["reply"]) == [record["generation"]["reply"]]


def test_a_corpus_path_naming_a_far_larger_folder_is_not_read(home, audits, tmp_path):
    results = _results(audits["mutate"])
    chunks = results["chunks"]
    results["chunks"] = {k: c for k, c in chunks.items() if c["doc_id"] != "it/passwords"}
    big = tmp_path / "big"
    (big / "it").mkdir(parents=True)
    shutil.copy(audits["root"] / "corpus" / "it" / "passwords.md", big / "it" / "passwords.md")
    # 13 documents recorded: up to 20 files a document and 100 more (360) could be it
    for i in range(361):
        (big / f"note-{i}.txt").write_text("a note", encoding="utf-8")
    results["corpus"]["path"] = str(big)
    assert results["corpus"]["documents"] == 13
    thin = home / "results" / "big.json"
    thin.write_text(json.dumps(results), encoding="utf-8")
    page = texts(_survivor_page(thin)[0])
    assert f"{big} holds far more files than the run's 13 documents" in page
