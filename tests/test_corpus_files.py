"""Corpus files: determinism, the committed corpus equals a fresh generation, the manifest
catches drift, subsets are proportional, and bad input fails in one line, leaving nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_corpus_instrument import anchor_chunks

from ragaudit import paths
from ragaudit.cli.main import main
from ragaudit.corpus.build import REFERENCE_CHUNKING, build_corpus
from ragaudit.corpus.files import check_corpus, load_planted_corpus, manifest_sha256, write_corpus
from ragaudit.errors import RagauditError
from ragaudit.probes.catalogue import shipped
from ragaudit.stack.chunking import chunk_corpus


@pytest.fixture(scope="module")
def fresh():
    return build_corpus()


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def test_committed_corpus_equals_a_fresh_generation(fresh, tmp_path):
    written = write_corpus(fresh, tmp_path / "corpus")
    committed, generated = _files(paths.corpus_dir()), _files(written)
    assert sorted(committed) == sorted(generated), "files added or missing: rerun `ragaudit corpus`"
    drifted = [name for name in committed if committed[name] != generated[name]]
    assert not drifted, f"committed corpus drifted from the generator: {drifted[:5]}"


def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path):
    a = write_corpus(build_corpus(seed=7, n=2), tmp_path / "a")
    b = write_corpus(build_corpus(seed=7, n=2), tmp_path / "b")
    c = write_corpus(build_corpus(seed=8, n=2), tmp_path / "c")
    assert _files(a) == _files(b)
    assert manifest_sha256(a) == manifest_sha256(b) != manifest_sha256(c)


def test_load_round_trips_the_build(fresh):
    loaded = load_planted_corpus()
    assert loaded.documents == fresh.documents
    assert loaded.instances == fresh.instances
    assert (loaded.seed, loaded.n, loaded.probes, loaded.filler_count) == (
        fresh.seed,
        fresh.n,
        fresh.probes,
        fresh.filler_count,
    )


def test_manifest_lists_every_file_with_its_sha256():
    manifest = json.loads((paths.corpus_dir() / "manifest.json").read_text())
    assert manifest["seed"] == 20261129 and manifest["n"] == 25
    assert check_corpus() == []
    assert len(manifest["files"]) == manifest["documents"] + 3
    assert "README.md" in manifest["files"]


def test_check_reports_changed_missing_and_unlisted_files(tmp_path):
    folder = write_corpus(build_corpus(n=1, probes=["control", "negation"]), tmp_path / "c")
    assert check_corpus(folder) == []
    (folder / "documents" / "control-000.txt").write_text("tampered")
    (folder / "documents" / "negation-000-a.txt").unlink()
    (folder / "documents" / "stray.txt").write_text("x")
    assert check_corpus(folder) == [
        "changed: documents/control-000.txt",
        "missing: documents/negation-000-a.txt",
        "unlisted: documents/stray.txt",
    ]
    with pytest.raises(
        RagauditError, match="differs from its manifest: changed: documents/control-000.txt"
    ):
        load_planted_corpus(folder)
    assert main(["corpus", "--check", "--out", str(folder)]) == 1


def test_subset_takes_the_first_instances_and_a_proportional_share_of_filler(fresh):
    small = fresh.subset(5)
    assert small.n == 5 and len(small.instances) == 5 * len(shipped())
    for probe in fresh.probes:
        assert small.instances_of(probe) == fresh.instances_of(probe)[:5]
    assert small.filler_count == round(fresh.filler_count * 5 / 25)
    assert small.filler == fresh.filler[: small.filler_count]
    wanted = {d for i in small.instances for d in i.answer_doc_ids}
    assert wanted <= {d.doc_id for d in small.documents}
    # subset(n) of the full corpus is the build at n, instances and their documents alike
    built = build_corpus(n=5)
    assert built.instances == small.instances
    assert [d for d in built.documents if d.metadata.get("probe")] == [
        d for d in small.documents if d.metadata.get("probe")
    ]


@pytest.mark.parametrize("n", [0, -3, 701])
def test_n_out_of_range_is_refused(n, tmp_path, capsys):
    with pytest.raises(RagauditError, match="n must be"):
        build_corpus(n=n)
    assert main(["corpus", "--n", str(n), "--out", str(tmp_path / "c")]) == 2
    assert "n must be" in capsys.readouterr().err
    assert not (tmp_path / "c").exists()


def test_unknown_probe_names_the_valid_ones(tmp_path, capsys):
    assert main(["corpus", "--probes", "control,boundry", "--out", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "unknown probe 'boundry'; did you mean 'boundary'?" in err and "negation" in err
    assert list(tmp_path.iterdir()) == []


def test_unwritable_output_folder_leaves_nothing_behind(tmp_path, capsys):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where a folder should be")
    assert main(["corpus", "--n", "1", "--out", str(blocker / "corpus")]) == 2
    assert "cannot write the corpus to" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not-a-folder"]


def test_failed_write_keeps_the_previous_corpus(tmp_path, monkeypatch):
    folder = write_corpus(build_corpus(n=1, probes=["control"]), tmp_path / "c")
    before = _files(folder)

    def explode(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("ragaudit.corpus.files._write_text", explode)
    with pytest.raises(RagauditError, match="No space left on device"):
        write_corpus(build_corpus(n=2, probes=["control"]), folder)
    assert _files(folder) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c"], "no temp folder left behind"


def test_cli_writes_then_prints_stats(tmp_path, capsys):
    folder = tmp_path / "corpus"
    assert main(["corpus", "--n", "2", "--out", str(folder)]) == 0
    probes = len(shipped())  # n=2 instances of each
    assert f"wrote {2 * probes} instances over {probes} probes" in capsys.readouterr().out
    assert main(["corpus", "--stats", "--out", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "fixed-1000-0" + " " * 19 + "cut 2/2, whole 0/2" in out  # names padded to 30
    assert "recursive-1000-0" + " " * 15 + "cut 0/2, whole 2/2" in out
    assert "recursive-4000-0 2/2" in out
    # Two instances of each probe; the probes planting their anchor in one chunk (six of
    # the eleven shipped: test_corpus_instrument.ANCHOR_CHUNKS) give over half the counts
    # 1 (12 of 22), so the median is 1; the most is the crowding's 7.
    written = load_planted_corpus(folder)
    texts = [chunk.text for chunk in chunk_corpus(written.documents, REFERENCE_CHUNKING)]
    planted = anchor_chunks(written, texts)
    single = sorted(probe for probe, chunks in planted.items() if chunks == 1)
    assert (
        f"chunks holding each question's anchor: min 1, median 1.0, max {max(planted.values())}"
        f"; {2 * len(single)}/{2 * probes} questions narrow to a single chunk "
        f"({len(single)} probes: {', '.join(single)})"
    ) in out
    assert main(["corpus", "--stats", "--json", "--out", str(folder)]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["n"] == 2 and stats["instances"] == 2 * probes
    assert main(["corpus", "--check", "--out", str(folder)]) == 0


def test_refuses_to_replace_a_folder_that_is_not_a_corpus(tmp_path, capsys):
    precious = tmp_path / "notes"
    precious.mkdir()
    (precious / "keep.txt").write_text("mine")
    assert main(["corpus", "--n", "1", "--out", str(precious)]) == 2
    assert "not a corpus folder" in capsys.readouterr().err
    assert [p.name for p in precious.iterdir()] == ["keep.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes"]
