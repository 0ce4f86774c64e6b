"""The planted-fault corpus: eleven probes' documents and instances, plus filler, on disk.

`build_corpus` runs every registered probe builder for instances 0..n-1 (each from an RNG
seeded by (seed, probe, index), so instance i is the same whatever n is), then adds filler
documents until the corpus reaches its chunk target at recursive 1000/0 (795 chunks at
n=25 with all eleven probes). `write_corpus` writes files a
person can open; `load_corpus` reads them back and refuses files that differ from the
manifest.

Layout of the corpus folder:
    manifest.json        seed, n, probes, filler count, sha256 of every other file
    questions.jsonl      one instance per line (question, gold, spans, grading, meta)
    documents.jsonl      one line per document: doc_id, file, characters, metadata
    documents/<id>.txt   each document's exact text (UTF-8, no added newline)
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import os
import random
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ragaudit import paths
from ragaudit.errors import RagauditError
from ragaudit.probes.base import BuiltInstance, Document, Instance, ProbeBuilder, Span
from ragaudit.registry import Registry, unknown_name_message

DEFAULT_SEED = 20261129
DEFAULT_N = 25
MAX_N = 700
CHUNKS_PER_INSTANCE = 795 / 275
"""Chunk target at recursive 1000/0 per instance: 795 at n=25 over the 11 probes."""
PROBES_IN_ORDER: tuple[str, ...] = (
    "control",
    "boundary",
    "distractor",
    "multihop",
    "superseded",
    "summarisation",
    "table_split",
    "duplicate_crowding",
    "unanswerable",
    "paraphrase",
    "negation",
)
MANIFEST = "manifest.json"
FORMAT_VERSION = 1


def probe_registry() -> Registry[ProbeBuilder]:
    """A fresh registry holding every probe, in PROBES_IN_ORDER (imported here, not at
    `import ragaudit`)."""
    registry: Registry[ProbeBuilder] = Registry("probe")
    for name in PROBES_IN_ORDER:
        importlib.import_module(f"ragaudit.probes.{name}").register(registry)
    return registry


@dataclass(frozen=True)
class Corpus:
    """Documents and instances of one generation, with the seed and n that made them."""

    documents: tuple[Document, ...]
    instances: tuple[Instance, ...]
    seed: int
    n: int
    probes: tuple[str, ...]
    filler_count: int

    def document(self, doc_id: str) -> Document:
        """The document with this id (RagauditError naming it if there is none)."""
        index = self._doc_index()
        if doc_id not in index:
            raise RagauditError(f"no document {doc_id!r} in the corpus")
        return index[doc_id]

    def _doc_index(self) -> dict[str, Document]:
        cached = self.__dict__.get("_index")
        if cached is None:
            cached = {doc.doc_id: doc for doc in self.documents}
            object.__setattr__(self, "_index", cached)
        return cached

    def instances_of(self, probe: str) -> list[Instance]:
        """The instances of one probe, in order."""
        return [i for i in self.instances if i.probe == probe]

    @property
    def filler(self) -> list[Document]:
        """The filler documents (no probe planted anything in them)."""
        return [d for d in self.documents if d.metadata.get("source_type") == "filler"]

    def subset(self, n: int) -> Corpus:
        """The first n instances of each probe, their documents, and a proportional,
        deterministic share of the filler (the first round(filler * n / self.n))."""
        _check_n(n)
        if n >= self.n:
            return self
        keep = {i.instance_id for p in self.probes for i in self.instances_of(p)[:n]}
        filler_count = round(self.filler_count * n / self.n)
        fillers = {d.doc_id for d in self.filler[:filler_count]}
        documents = tuple(
            d
            for d in self.documents
            if d.metadata.get("instance_id") in keep or d.doc_id in fillers
        )
        instances = tuple(i for i in self.instances if i.instance_id in keep)
        return Corpus(documents, instances, self.seed, n, self.probes, filler_count)


def _check_n(n: object) -> None:
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise RagauditError(f"n must be a whole number >= 1, got {n!r}")
    if n > MAX_N:
        # Team numbers (three digits, not multiples of five) run out first.
        raise RagauditError(f"n must be at most {MAX_N} (identifiers stay unique), got {n}")


def resolve_probes(probes: list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    """Validate probe names (an unknown one fails with the valid names and a near miss)."""
    if not probes:
        return PROBES_IN_ORDER
    for name in probes:
        if name not in PROBES_IN_ORDER:
            raise RagauditError(unknown_name_message("probe", name, list(PROBES_IN_ORDER)))
    return tuple(p for p in PROBES_IN_ORDER if p in probes)


def build_corpus(
    seed: int = DEFAULT_SEED, n: int = DEFAULT_N, probes: list[str] | tuple[str, ...] | None = None
) -> Corpus:
    """Generate the corpus: n instances of each chosen probe, then filler to the chunk target."""
    from ragaudit.probes.filler_docs import filler_document
    from ragaudit.stack.chunking import Chunking, chunk_document

    _check_n(n)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise RagauditError(f"seed must be a whole number, got {seed!r}")
    names = resolve_probes(probes)
    registry = probe_registry()
    documents: list[Document] = []
    instances: list[Instance] = []
    for name in names:
        builder = registry.get(name)
        for index in range(n):
            built = builder.build(random.Random(f"{seed}/{name}/{index}"), index, seed)
            _check_built(built, name)
            documents.extend(built.documents)
            instances.append(built.instance)
    # Filler until the chunk target: so the retrieval index is realistically crowded.
    chunking = Chunking("recursive", 1000, 0)
    chunks = sum(len(chunk_document(d, chunking)) for d in documents)
    target = round(CHUNKS_PER_INSTANCE * n * len(names))
    filler_count = 0
    while chunks < target:
        doc = filler_document(seed, filler_count)
        documents.append(doc)
        chunks += len(chunk_document(doc, chunking))
        filler_count += 1
    corpus = Corpus(tuple(documents), tuple(instances), seed, n, names, filler_count)
    _check_corpus(corpus)
    return corpus


def _check_built(built: BuiltInstance, probe: str) -> None:
    instance = built.instance
    if instance.probe != probe:
        raise AssertionError(f"builder {probe} made an instance of {instance.probe}")
    texts = {d.doc_id: d.text for d in built.documents}
    for span in (*instance.gold_spans, *instance.trap_spans, *instance.extra_spans):
        if texts.get(span.doc_id, "")[span.start : span.end] != span.text:
            raise AssertionError(f"{instance.instance_id}: {span.role} span is not at its offsets")


def _check_corpus(corpus: Corpus) -> None:
    """Ids unique; no filler mentions a question's anchor or answer."""
    ids = [d.doc_id for d in corpus.documents]
    if len(ids) != len(set(ids)):
        raise AssertionError("duplicate document ids")
    filler_text = "\n".join(d.text.lower() for d in corpus.filler)
    for instance in corpus.instances:
        needles = [instance.anchor or ""]
        gold = instance.gold_answer
        needles += gold if isinstance(gold, list) else []
        needles += [instance.grading.get("subject", "")]
        needles += [str(instance.meta.get(k, "")) for k in ("subject", "rule", "zone")]
        for needle in filter(None, needles):
            if needle.lower() in filler_text:
                raise AssertionError(f"filler mentions {needle!r} of {instance.instance_id}")


# ---- files -------------------------------------------------------------------------


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


def write_corpus(corpus: Corpus, path: Path | str | None = None) -> Path:
    """Write the corpus folder: into a temp folder first, then moved into place whole."""
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


def _write_files(corpus: Corpus, folder: Path) -> None:
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


def _readme(corpus: Corpus) -> str:
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
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise RagauditError(
            f"{manifest_path}: not valid JSON ({error.msg}, line {error.lineno})"
        ) from None
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


def load_corpus(path: Path | str | None = None) -> Corpus:
    """Read a corpus folder, refusing it if any file differs from its manifest."""
    folder = Path(path) if path is not None else paths.corpus_dir()
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
    return Corpus(
        tuple(documents),
        tuple(instances),
        manifest["seed"],
        manifest["n"],
        tuple(manifest["probes"]),
        manifest["filler_documents"],
    )
