"""The Lab on the shipped reference run answers from the vectors shipped with it: no
embedding computed, the recorded run's retrieval figures reproduced, and (slow) the
shipped vectors ranking every question exactly as the installed model's own vectors do."""

from __future__ import annotations

import gzip
import json
import re
import time
from types import SimpleNamespace

import numpy as np
import pytest
from helpers.ui_fixtures import APP

from ragaudit.corpus.build import build_corpus
from ragaudit.corpus.files import load_planted_corpus, manifest_sha256, write_corpus
from ragaudit.results.reference import REFERENCE_FILE
from ragaudit.stack.chunking import Chunking, chunk_corpus
from ragaudit.ui.lab_vectors import LAB_VECTORS_FILE, read_shipped


def _reference() -> dict:
    return json.loads(gzip.decompress(REFERENCE_FILE.read_bytes()))


def _shipped_chunkings_by_hand(reference: dict) -> set[str]:
    """The Lab's default (recursive, 1000, overlap 0) and each reference config's cut, named
    as docs/configs.md names them."""
    names = {"recursive-1000-0"}
    for config in reference["configs"]:
        name = f"{config['splitter']}-{config['chunk_size']}-{config['overlap']}"
        if config["splitter"] == "recursive" and config["overlap"]:
            name += f"-{config['overlap_rule']}"
        names.add(name)
    return names


@pytest.fixture(scope="module")
def reference_corpus(tmp_path_factory):
    """The folder of the corpus the reference run was made on, regenerated from its seed, n
    and probes (a probe added since is not in it: the reference cannot be re-run for it),
    and proved to be that corpus by its manifest's sha256."""
    recorded = _reference()["corpus"]
    probes = [probe["name"] for probe in recorded["probes"]]
    built = build_corpus(recorded["seed"], recorded["n"], probes)
    folder = write_corpus(built, tmp_path_factory.mktemp("reference") / "corpus")
    assert manifest_sha256(folder) == recorded["sha256"]  # the reference's corpus
    return folder


@pytest.fixture(scope="module")
def embedder(tmp_path_factory):
    from ragaudit.backends.cache import CallCache
    from ragaudit.backends.specs import load_embedder

    cache = CallCache(tmp_path_factory.mktemp("lab-vectors") / "cache.sqlite")
    return load_embedder("local:minilm", cache)


def test_the_shipped_vectors_are_the_installed_minilm_s_and_cover_what_the_lab_opens_on(
    embedder, reference_corpus
):
    shipped = read_shipped()
    assert shipped is not None, f"{LAB_VECTORS_FILE} is not shipped"
    assert shipped.serves(embedder)
    other = SimpleNamespace(spec="local:minilm", name=embedder.name, digest="0" * 64)
    assert not shipped.serves(other)  # other weights under the same name: not theirs
    reference = _reference()
    assert set(shipped.chunkings) == _shipped_chunkings_by_hand(reference)
    corpus = load_planted_corpus(reference_corpus)
    for name in shipped.chunkings:
        texts = [c.text for c in chunk_corpus(corpus.documents, Chunking.from_name(name))]
        assert len(shipped.vectors(texts)) == len(set(texts)), name
    questions = {i.question for i in corpus.instances}
    asked = sum(probe["n"] for probe in reference["corpus"]["probes"])  # 275: 11 × 25
    assert len(questions) == asked and len(shipped.vectors(questions)) == asked
    lengths = np.linalg.norm(shipped.matrix, axis=1)
    assert np.all(np.abs(lengths - 1) < 1e-5)  # cosines, as the call cache's vectors


def _lab_on_reference(monkeypatch, tmp_path, corpus, **query: str):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))  # an empty call cache
    monkeypatch.setenv("RAGAUDIT_CORPUS", str(corpus))  # the corpus the run was made on
    monkeypatch.setenv("RAGAUDIT_RESULTS", str(REFERENCE_FILE))  # as `ragaudit demo` opens it
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.query_params.update(query)
    at.run()
    started = time.perf_counter()
    at.switch_page("pages/lab.py").run()
    assert not at.exception, at.exception
    return at, time.perf_counter() - started


def _gold(at) -> tuple[int, int]:
    (line,) = [m.value for m in at.markdown if m.value.startswith("**Gold in context")]
    count, n = re.search(r"(\d+)/(\d+)", line).groups()
    return int(count), int(n)


def _cell(reference: dict, probe: str, config: str) -> tuple[int, int]:
    (cell,) = [
        c
        for c in reference["cells"]
        if (c["probe"], c["config"], c["embedder"]) == (probe, config, "local:minilm")
    ]
    measure = cell["measures"]["gold_in_context"]
    return measure["count"], measure["n"]


def test_the_lab_on_the_reference_embeds_nothing_and_reproduces_the_recorded_cells(
    monkeypatch, tmp_path, reference_corpus
):
    reference = _reference()
    at, seconds = _lab_on_reference(monkeypatch, tmp_path, reference_corpus, probe="boundary")
    (caption,) = [c.value for c in at.caption if " chunks; index built" in c.value]
    chunks = reference["run"]["chunk_counts"]["recursive-1000-0"]  # 796, as the run cut it
    assert f"{chunks} chunks" in caption and f"{chunks} shipped with the reference run" in caption
    assert "0 embeddings computed" in caption  # no model ran
    # the opening setting is A_prime's (recursive 1000/0, k=3, dense)
    assert _gold(at) == _cell(reference, "boundary", "A_prime")
    # M's: overlap 200 (carry_tail), k=8, hybrid; the shipped chunking of B, C and M
    at.selectbox(key="lab_overlap").set_value(200).run()
    at.slider(key="lab_k").set_value(8).run()
    at.toggle(key="lab_hybrid").set_value(True).run()
    assert "0 embeddings computed" in texts_of(at)
    assert _gold(at) == _cell(reference, "boundary", "M")
    at.selectbox(key="lab_probe").set_value("distractor").run()
    assert _gold(at) == _cell(reference, "distractor", "M")
    assert seconds < 20  # before the shipped vectors: 796 embeddings, 37-74 s here


def texts_of(at) -> str:
    return "\n".join(c.value for c in at.caption)


# embeds about 1,300 texts with the real model (a minute on a quiet machine); no generator
@pytest.mark.slow(model=False)
def test_the_shipped_vectors_rank_every_question_as_the_model_s_float32_vectors_do(
    embedder, reference_corpus
):
    shipped = read_shipped()
    corpus = load_planted_corpus(reference_corpus)
    questions = list(dict.fromkeys(i.question for i in corpus.instances))
    query32 = np.asarray(embedder.embed(questions), dtype=np.float32)
    query_shipped = np.asarray([shipped.vector(q) for q in questions], dtype=np.float32)
    # the Lab's opening chunking, every chunk: the rankings its first response shows
    texts = [c.text for c in chunk_corpus(corpus.documents, Chunking.from_name("recursive-1000-0"))]
    chunks32 = np.asarray(embedder.embed(texts), dtype=np.float32)
    chunks_shipped = np.asarray([shipped.vector(t) for t in texts], dtype=np.float32)
    assert np.max(np.abs(chunks32 - chunks_shipped)) < 1e-6
    assert np.max(np.abs(query32 - query_shipped)) < 1e-6
    # exact cosine rankings to the pool depth (50), ties by chunking order. The two sets of
    # vectors differ by float32 rounding (under 1e-6), which can swap two chunks whose
    # cosines tie to that precision (1 of 275 questions in one run): the shipped ranking
    # must then be a ranking of the model's own scores, position by position, to 1e-5.
    scores32 = query32 @ chunks32.T
    top32 = np.argsort(-scores32, axis=1, kind="stable")[:, :50]
    top_shipped = np.argsort(-(query_shipped @ chunks_shipped.T), axis=1, kind="stable")[:, :50]
    rows = np.arange(len(questions))[:, None]
    gaps = np.abs(scores32[rows, top32] - scores32[rows, top_shipped])
    worse = np.flatnonzero(gaps.max(axis=1) >= 1e-5)
    assert worse.size == 0, [questions[i] for i in worse[:3]]
    swapped = np.flatnonzero((top32 != top_shipped).any(axis=1))
    assert swapped.size <= 3, [questions[i] for i in swapped[:3]]  # near-ties are rare
    # the other shipped chunkings: every 16th chunk's vector is the model's
    for name in shipped.chunkings[1:]:
        sample = [c.text for c in chunk_corpus(corpus.documents, Chunking.from_name(name))][::16]
        got = np.asarray([shipped.vector(t) for t in sample], dtype=np.float32)
        assert np.max(np.abs(np.asarray(embedder.embed(sample)) - got)) < 1e-6, name
