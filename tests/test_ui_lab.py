"""The Lab over a real small corpus, a real embedder and a real matrix run: live retrieval
that reproduces the recorded cells, and a k / splitter / overlap / hybrid that change it.
Also the other pages over that real results file."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from helpers.ui_fixtures import chart_specs, open_app, texts

pytestmark = pytest.mark.slow(model=False)  # retrieval-only runs and the Lab; no generator


@pytest.fixture(scope="module")
def real_run(tmp_path_factory):
    """A corpus with 2 instances per probe and `ragaudit run --no-generate` over it."""
    from ragaudit.corpus.build import build_corpus
    from ragaudit.corpus.files import write_corpus

    root = tmp_path_factory.mktemp("lab")
    home, corpus_dir = root / "home", root / "corpus"
    write_corpus(build_corpus(n=2), corpus_dir)
    results = home / "results" / "latest.json"
    env_vars = {"RAGAUDIT_HOME": str(home), "RAGAUDIT_CORPUS": str(corpus_dir)}
    import os

    command = [sys.executable, "-m", "ragaudit", "run", "--n", "2", "--no-generate",
               "--embedders", "local:minilm", "--out", str(results)]  # fmt: skip
    done = subprocess.run(command, env=dict(os.environ, **env_vars), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env_vars.items():
            patch.setenv(name, value)
        patch.delenv("RAGAUDIT_RESULTS", raising=False)
        yield json.loads(results.read_text())


def _cell(results: dict, probe: str, config: str) -> dict:
    (cell,) = [
        c
        for c in results["cells"]
        if (c["probe"], c["config"], c["embedder"]) == (probe, config, "local:minilm")
    ]
    return cell["measures"]["gold_in_context"]


def _retrieved_ids(at) -> list[str]:
    (block,) = [m.value for m in at.markdown if m.value.startswith("**Retrieved chunks**")]
    return re.findall(r"^\d+\. `([^`]+)`", block, flags=re.M)


def _gold_line(at) -> str:
    (line,) = [m.value for m in at.markdown if m.value.startswith("**Gold in context")]
    return line


def test_pages_render_a_real_results_file(real_run):
    at = open_app()
    assert not at.exception and not at.error
    overlay = chart_specs(at)[0]["data"][1]
    m = _cell(real_run, "boundary", "A")
    label = dict(zip(zip(overlay["y"], overlay["x"], strict=True), overlay["text"], strict=True))
    rate = (200 * m["count"] + m["n"]) // (2 * m["n"])  # whole percent, halves up (by the spec)
    assert label[("boundary", "A")] == f"{rate}%<br>{m['count']}/{m['n']}"
    for page in ("pages/instance.py", "pages/severity.py", "pages/runs.py"):
        at.switch_page(page).run()
        assert not at.exception and not at.error, page
    at = open_app(page="pages/instance.py", probe="boundary", config="A")
    assert "the gold span is cut by a chunk boundary" in texts(at)  # fixed 1000 cuts the span
    at.selectbox(key="instance_config").select("A_prime").run()
    assert "no gold span is cut" in texts(at)


@pytest.mark.parametrize(
    ("config", "controls"),
    [("B", {"lab_overlap": 200}), ("M", {"lab_overlap": 200, "lab_k": 8, "lab_hybrid": True})],
)
def test_lab_reproduces_the_recorded_cell_at_the_same_setting(real_run, config, controls):
    at = open_app(page="pages/lab.py", probe="multihop")
    assert not at.exception, at.exception
    for key, value in controls.items():
        widget = {"lab_overlap": at.selectbox, "lab_k": at.slider, "lab_hybrid": at.toggle}[key]
        widget(key=key).set_value(value).run()
    m = _cell(real_run, "multihop", config)
    assert f"{m['count']}/{m['n']}" in _gold_line(at)
    assert "`recursive-1000-200-carry_tail`" in _gold_line(at)


def test_toggling_k_changes_the_retrieved_chunks(real_run):
    at = open_app(page="pages/lab.py", probe="boundary", instance="boundary-001")
    three = _retrieved_ids(at)
    assert len(three) == 3
    at.slider(key="lab_k").set_value(5).run()
    five = _retrieved_ids(at)
    assert len(five) == 5 and five[:3] == three  # a wider k is a longer slice of one ranking
    at.radio(key="lab_splitter").set_value("fixed").run()
    assert all(cid.startswith("fixed-1000-0/") for cid in _retrieved_ids(at))
    at.selectbox(key="lab_size").set_value(256).run()
    at.selectbox(key="lab_overlap").set_value(400).run()
    assert "Overlap 400 must be smaller than the chunk size 256" in texts(at)


def test_lab_quotes_the_recorded_figure_when_the_setting_is_a_config(real_run):
    at = open_app(page="pages/lab.py", probe="boundary")
    at.selectbox(key="lab_overlap").set_value(200).run()  # recursive 1000/200, k=3: config B
    m = _cell(real_run, "boundary", "B")
    rate = (200 * m["count"] + m["n"]) // (2 * m["n"])  # whole percent, halves up (by the spec)
    assert f"records {rate}% {m['count']}/{m['n']} for boundary at config B" in texts(at)
    assert "not the one that run used" not in texts(at)  # same corpus: the figures agree


def test_detectability_dots_match_the_recorded_class_sizes(real_run):
    (cell,) = [
        c
        for c in real_run["cells"]
        if (c["probe"], c["config"], c["embedder"]) == ("boundary", "A", "local:minilm")
    ]
    at = open_app(page="pages/severity.py", probe="boundary", config="A")
    (figure,) = [s for s in chart_specs(at) if "recorded retrieval score" in str(s["layout"])]
    names = sorted(trace["name"] for trace in figure["data"])
    detect = cell["detectability"]
    assert names == [f"failing ({detect['failures']})", f"passing ({detect['successes']})"]
    assert detect["failures"] == 2  # the fixed splitter cut both boundary spans


def _gold_chunk_texts(at) -> list[str]:
    """The texts of the retrieved chunks that hold the gold span (the expander's texts are
    in rank order, as the list of retrieved chunks)."""
    (block,) = [m.value for m in at.markdown if m.value.startswith("**Retrieved chunks**")]
    ranked = re.findall(r"^\d+\. `[^`]+`.*$", block, flags=re.M)
    holding = [at.text[i].value for i, line in enumerate(ranked) if "holds gold" in line]
    assert holding, "the gold span was retrieved"
    return holding


def test_flipping_the_overlap_rule_moves_the_header_into_the_answers_chunk(real_run):
    from ragaudit.corpus.build import build_corpus

    (instance,) = [i for i in build_corpus(n=2).instances if i.instance_id == "boundary-000"]
    assert instance.meta["length_class"] == "71-80"  # the class whose header travels whole
    header = next(s.text for s in instance.extra_spans if s.role == "header")
    at = open_app(page="pages/lab.py", probe="boundary", instance="boundary-000")
    at.slider(key="lab_k").set_value(10).run()
    at.selectbox(key="lab_overlap").set_value(200).run()
    assert "`recursive-1000-200-carry_tail`" in _gold_line(at)
    # carry_tail: the header chunk travels whole into the answer's chunk.
    assert any(text.startswith(header + "\n\n") for text in _gold_chunk_texts(at))
    at.radio(key="lab_overlap_rule").set_value("langchain").run()
    assert "`recursive-1000-200-langchain`" in _gold_line(at)
    assert not any(header in text for text in _gold_chunk_texts(at))
    # The fixed splitter's sliding window takes no rule: the selector is disabled.
    at.radio(key="lab_splitter").set_value("fixed").run()
    assert at.radio(key="lab_overlap_rule").disabled
    assert all(cid.startswith("fixed-1000-200/") for cid in _retrieved_ids(at))
