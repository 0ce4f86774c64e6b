"""The corpus folder on disk: written whole or not at all, read back only if every file
matches its manifest.

Layout of the corpus folder:
    manifest.json        seed, n, probes, filler count, sha256 of every other file
    questions.jsonl      one instance per line (question, gold, spans, grading, meta)
    documents.jsonl      one line per document: doc_id, file, characters, metadata
    documents/<id>.txt   each document's exact text (UTF-8, no added newline)
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from ragaudit import paths
from ragaudit.corpus.build import PlantedCorpus
from ragaudit.documents import Document
from ragaudit.errors import RagauditError
from ragaudit.fileio import parse_json, read_text
from ragaudit.probes.base import Instance, Span

MANIFEST = "manifest.json"
FORMAT_VERSION = 1


def _json_line(record: dict) -> str:
    return json.dumps(record, ensure_ascii=False, allow_nan=False, sort_keys=False)


def instance_record(instance: Instance) -> dict:
    """An instance as a JSON-ready dict (spans as dicts)."""
    return dataclasses.asdict(instance)


def instance_from_record(record: dict) -> Instance:
    """The inverse of `instance_record`."""
    fields = dict(record)
    for key in ("gold_spans", "trap_spans", "extra_spans"):
        fields[key] = tuple(Span(**span) for span in fields.get(key, []))
    fields["answer_doc_ids"] = tuple(fields.get("answer_doc_ids", []))
    return Instance(**fields)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _write_text(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(text)


def write_corpus(corpus: PlantedCorpus, path: Path | str | None = None) -> Path:
    """Write the corpus folder: into a temp folder first, then moved into place whole."""
    if path is None and "RAGAUDIT_CORPUS" not in os.environ and paths.checkout_root() is None:
        # An installed package's corpus is a shipped copy inside site-packages: never rewrite it.
        raise RagauditError(
            f"{paths.corpus_dir()}: the installed package's corpus is read-only; set "
            "RAGAUDIT_CORPUS to a folder to write a corpus there"
        )
    target = Path(path) if path is not None else paths.corpus_dir()
    parent = target.parent
    # Replacing a folder wholesale is only safe when it is a corpus we wrote (or empty).
    if target.exists() and not target.is_dir():
        raise RagauditError(f"cannot write the corpus to {target}: it is a file")
    if target.is_dir() and any(target.iterdir()) and not (target / MANIFEST).is_file():
        raise RagauditError(
            f"cannot write the corpus to {target}: the folder is not empty and holds no "
            f"{MANIFEST}, so it is not a corpus folder (choose a new or empty folder)"
        )
    try:
        parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=parent))
    except OSError as error:
        raise RagauditError(f"cannot write the corpus to {target}: {error.strerror}") from None
    try:
        _write_files(corpus, staging)
        if target.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old.", dir=parent))
            os.replace(target, old / "corpus")
            os.replace(staging, target)
            shutil.rmtree(old)
        else:
            os.replace(staging, target)
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        raise RagauditError(f"cannot write the corpus to {target}: {error.strerror}") from None
    return target


def _write_files(corpus: PlantedCorpus, folder: Path) -> None:
    (folder / "documents").mkdir()
    doc_lines = []
    for doc in corpus.documents:
        file = f"documents/{doc.doc_id}.txt"
        _write_text(folder / file, doc.text)
        doc_lines.append(
            _json_line(
                {
                    "doc_id": doc.doc_id,
                    "file": file,
                    "chars": len(doc.text),
                    "metadata": doc.metadata,
                }
            )
        )
    _write_text(folder / "documents.jsonl", "\n".join(doc_lines) + "\n")
    lines = [_json_line(instance_record(i)) for i in corpus.instances]
    _write_text(folder / "questions.jsonl", "\n".join(lines) + "\n")
    _write_text(folder / "README.md", _readme(corpus))
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    manifest = {
        "format_version": FORMAT_VERSION,
        "generator": "ragaudit corpus",
        "seed": corpus.seed,
        "n": corpus.n,
        "probes": list(corpus.probes),
        "filler_documents": corpus.filler_count,
        "documents": len(corpus.documents),
        "instances": len(corpus.instances),
        "files": {name: _sha256(folder / name) for name in files},
    }
    _write_text(folder / MANIFEST, json.dumps(manifest, indent=1, allow_nan=False) + "\n")


def _readme(corpus: PlantedCorpus) -> str:
    probes = "\n".join(
        f"- {name}: {len(corpus.instances_of(name))} instances" for name in corpus.probes
    )
    return f"""# The planted-fault corpus (generated: do not edit by hand)

Written by `ragaudit corpus` with seed {corpus.seed} and n {corpus.n}; `ragaudit corpus --check`
lists any file that differs from `manifest.json`, and a test regenerates the corpus and
compares it byte for byte.

- `documents/<doc_id>.txt`: each document's exact text ({len(corpus.documents)} documents,
  {corpus.filler_count} of them filler)
- `documents.jsonl`: one line per document: id, file, length, metadata (dates, supersedes)
- `questions.jsonl`: one line per instance: question, gold answer, gold/trap/extra spans
  (document id, character offsets, text, role), answer-bearing documents, anchor, grading
  spec, probe facts (docs/grading-spec.md describes every field)
- `manifest.json`: seed, n, probes and the sha256 of every other file

{probes}
"""


def _read_manifest(folder: Path) -> dict:
    manifest_path = folder / MANIFEST
    if not manifest_path.is_file():
        raise RagauditError(f"no corpus at {folder}: {MANIFEST} is missing (run `ragaudit corpus`)")
    manifest = parse_json(read_text(manifest_path, str(manifest_path)), manifest_path)
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        raise RagauditError(f"{manifest_path}: expected an object with a 'files' object")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise RagauditError(
            f"{manifest_path}: format_version {manifest.get('format_version')!r} "
            f"is not {FORMAT_VERSION}"
        )
    return manifest


def check_corpus(path: Path | str | None = None) -> list[str]:
    """Files that differ from the manifest: 'changed: x', 'missing: x', 'unlisted: x'."""
    folder = Path(path) if path is not None else paths.corpus_dir()
    manifest = _read_manifest(folder)
    listed = manifest.get("files", {})
    problems = []
    for name, digest in sorted(listed.items()):
        file = folder / name
        if not file.is_file():
            problems.append(f"missing: {name}")
        elif _sha256(file) != digest:
            problems.append(f"changed: {name}")
    present = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    problems += [f"unlisted: {name}" for name in sorted(present - set(listed) - {MANIFEST})]
    return problems


def manifest_sha256(path: Path | str | None = None) -> str:
    """The sha256 of the manifest: one digest that pins every corpus file."""
    folder = Path(path) if path is not None else paths.corpus_dir()
    return _sha256(folder / MANIFEST)


def load_planted_corpus(path: Path | str | None = None) -> PlantedCorpus:
    """Read a planted corpus folder (the shipped one by default), refusing it if any file
    differs from its manifest. A user's own corpus is `auditing.corpus_io.read_user_corpus`.
    Read once per process while no file of the folder changes (its files' sizes and times
    key the copy kept), since a run's stages and estimates each ask for it."""
    folder = Path(path) if path is not None else paths.corpus_dir()
    try:
        stamp = tuple(
            (f.name, f.stat().st_mtime_ns, f.stat().st_size) for f in sorted(folder.rglob("*"))
        )
    except OSError:  # a folder that cannot be listed: read it and say why
        return _read_planted_corpus(folder)
    return _cached_planted_corpus(folder.resolve(), stamp)


@functools.lru_cache(maxsize=4)
def _cached_planted_corpus(folder: Path, stamp: tuple) -> PlantedCorpus:
    return _read_planted_corpus(folder)


def _read_planted_corpus(folder: Path) -> PlantedCorpus:
    manifest = _read_manifest(folder)
    problems = check_corpus(folder)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise RagauditError(f"corpus at {folder} differs from its manifest: {problems[0]}{more}")
    documents = []
    for line in (folder / "documents.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        with open(folder / record["file"], encoding="utf-8", newline="") as handle:
            text = handle.read()
        documents.append(Document(record["doc_id"], text, record["metadata"]))
    instances = [
        instance_from_record(json.loads(line))
        for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    return PlantedCorpus(
        tuple(documents),
        tuple(instances),
        manifest["seed"],
        manifest["n"],
        tuple(manifest["probes"]),
        manifest["filler_documents"],
    )
