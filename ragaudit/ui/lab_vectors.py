"""The vectors shipped with the reference run for the Lab, so that opening the Lab on it
embeds nothing: MiniLM's vectors of every chunk text of the Lab's default chunking and of
the reference's configs' chunkings, and of every question
(ragaudit/assets/reference/lab-vectors-minilm.npz).

They are stored in the smallest precision whose rankings are the model's: writing the
file tries float16, then float32, and keeps the first under which, for every question
and every shipped chunking, the dense ranking to the pool depth (the depth the Lab shows
gold and trap ranks to, and fuses for hybrid) equals the one under the model's float32
vectors. On the corpus of the reference run float16 does not: MiniLM scores some chunks
within 4e-6 of each other (0.45971036 against 0.4597069 at ranks 8 and 9 for a
section-8057-P question under recursive-1000-0), while float16 moves a cosine by up to
8e-5; the top-10 changed for 1 or 2 of the 275 questions per chunking and the top-50 for
39 to 54. So the file holds float32, the call cache's own values
(tests/test_ui_lab_vectors.py checks it against the installed model). float16 rows
would be rescaled to length 1 when read, so a dot product stays a cosine.

They are used only by the Lab, only for a model whose name and weights' digest are the
file's, and never written into the call cache: a run computes or replays its own float32
vectors. A text the file lacks (another corpus, another chunking) is embedded as before.

Writing the file (the lead, after the reference run or the corpus changes):
``python -m ragaudit.ui.lab_vectors``.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

LAB_VECTORS_FILE = (
    Path(__file__).resolve().parent.parent / "assets" / "reference" / "lab-vectors-minilm.npz"
)
"""Where the package carries them (pyproject's package-data ships assets/reference/)."""
SHIPPED_EMBEDDER = "local:minilm"
LAB_DEFAULT_CHUNKING = "recursive-1000-0"
"""The Lab's controls as they open: recursive, size 1000, overlap 0 (lab_page)."""
PRECISIONS = ("float16", "float32")
"""Tried in this order when writing the file; the first whose rankings are float32's wins."""


def text_key(text: str) -> bytes:
    """A text's row key: the sha256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).digest()


@dataclass(frozen=True)
class ShippedVectors:
    """The shipped file read: unit float32 rows by text key, and whose model they are."""

    spec: str
    name: str
    digest: str
    chunkings: tuple[str, ...]
    rows: dict[bytes, int]
    matrix: np.ndarray

    def serves(self, embedder: Any) -> bool:
        """True for the model that made them: same spec, model name and weights' digest."""
        return (embedder.spec, embedder.name, embedder.digest) == (
            self.spec,
            self.name,
            self.digest,
        )

    def vector(self, text: str) -> list[float] | None:
        """The text's vector, or None when the file has none for it."""
        row = self.rows.get(text_key(text))
        return None if row is None else self.matrix[row].tolist()

    def vectors(self, texts: Iterable[str]) -> dict[str, list[float]]:
        """text -> vector for those of `texts` the file holds."""
        found = {}
        for text in texts:
            vector = self.vector(text)
            if vector is not None:
                found[text] = vector
        return found


def read_shipped(path: Path = LAB_VECTORS_FILE) -> ShippedVectors | None:
    """The file at `path`, or None when this ragaudit ships none."""
    if not path.is_file():
        return None
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
        keys = data["keys"]
        matrix = as_read(data["vectors"])
    return ShippedVectors(
        spec=meta["spec"],
        name=meta["name"],
        digest=meta["digest"],
        chunkings=tuple(meta["chunkings"]),
        rows={bytes(key): row for row, key in enumerate(keys)},
        matrix=matrix,
    )


@functools.cache
def read_shipped_once() -> ShippedVectors | None:
    """The shipped file, read once per process (None: none ships)."""
    return read_shipped()


def shipped_for(embedder: Any) -> ShippedVectors | None:
    """The shipped vectors when they are `embedder`'s model's (read once per process)."""
    shipped = read_shipped_once()
    return shipped if shipped is not None and shipped.serves(embedder) else None


def shipped_chunkings(reference: dict) -> list[str]:
    """The chunkings the file covers: the Lab's default, then each built-in config's of
    the reference run (a stack config is cut by the user's splitter: the Lab never is)."""
    from ragaudit.results.view import chunking_of, is_stack

    names = [LAB_DEFAULT_CHUNKING]
    names += [chunking_of(c) for c in reference["configs"] if not is_stack(c)]
    return list(dict.fromkeys(names))


def top_k_differs(
    chunks: np.ndarray,
    stored_chunks: np.ndarray,
    queries: np.ndarray,
    stored_queries: np.ndarray,
    k: int,
) -> list[int]:
    """Rows of the queries whose top `k` chunks (in order) under the stored vectors are not
    those under the model's float32 ones (exact cosine ranking; equal cosines, as of duplicate
    texts, keep row order under both)."""

    def top(chunks: np.ndarray, queries: np.ndarray) -> np.ndarray:
        return np.argsort(-(queries @ chunks.T), axis=1, kind="stable")[:, :k]

    return [
        int(i)
        for i in np.flatnonzero(
            (top(chunks, queries) != top(stored_chunks, stored_queries)).any(axis=1)
        )
    ]


def as_read(stored: np.ndarray) -> np.ndarray:
    """Stored rows as the Lab ranks with them: float32 as they are (the model's values);
    float16 widened and rescaled to length 1."""
    if stored.dtype == np.float32:
        return stored
    wide = stored.astype(np.float32)
    return wide / np.linalg.norm(wide, axis=1, keepdims=True)


def write_shipped(path: Path = LAB_VECTORS_FILE) -> str:
    """Embed (through the call cache) every text the Lab needs on the reference run, keep
    the first precision whose rankings are float32's, and write the file; returns a
    summary line (which precisions were refused and why)."""
    from ragaudit.backends.cache import CallCache
    from ragaudit.backends.specs import load_embedder
    from ragaudit.corpus.files import load_planted_corpus
    from ragaudit.fileio import write_bytes_atomic
    from ragaudit.results.io import load_results
    from ragaudit.results.reference import REFERENCE_FILE
    from ragaudit.stack.chunking import Chunking, chunk_corpus

    corpus = load_planted_corpus()
    embedder = load_embedder(SHIPPED_EMBEDDER, CallCache())
    chunkings = shipped_chunkings(load_results(REFERENCE_FILE))
    questions = list(dict.fromkeys(i.question for i in corpus.instances))
    per_chunking = {
        name: [c.text for c in chunk_corpus(corpus.documents, Chunking.from_name(name))]
        for name in chunkings
    }
    texts = list(dict.fromkeys([*questions, *(t for ts in per_chunking.values() for t in ts)]))
    full = np.asarray(embedder.embed(texts), dtype=np.float32)
    row = {text: i for i, text in enumerate(texts)}
    asked = [row[q] for q in questions]
    precision, stored, refused = _first_faithful_precision(full, row, asked, per_chunking)
    meta = {
        "spec": embedder.spec,
        "name": embedder.name,
        "digest": embedder.digest,
        "chunkings": chunkings,
        "questions": len(questions),
        "dtype": precision,
        "refused": refused,
    }
    keys = np.frombuffer(b"".join(text_key(t) for t in texts), dtype=np.uint8).reshape(-1, 32)
    out = io.BytesIO()
    np.savez_compressed(out, meta=np.array(json.dumps(meta)), keys=keys, vectors=stored)
    write_bytes_atomic(path, out.getvalue())
    why = f" ({'; '.join(refused)})" if refused else ""
    return (
        f"wrote {path} ({path.stat().st_size:,} bytes, {precision}{why}): {len(texts)} texts "
        f"({len(questions)} questions, chunkings {', '.join(chunkings)})"
    )


def _first_faithful_precision(
    full: np.ndarray, row: dict[str, int], asked: list[int], per_chunking: dict[str, list[str]]
) -> tuple[str, np.ndarray, list[str]]:
    """The first of PRECISIONS whose top-k rankings equal float32's under every chunking,
    its stored vectors, and why each earlier one was refused."""
    from ragaudit.stack.settings import POOL_DEPTH

    refused = []
    for precision in PRECISIONS:
        stored = full.astype(precision)
        read = as_read(stored)
        differs = {
            name: top_k_differs(
                full[[row[t] for t in chunk_texts]],
                read[[row[t] for t in chunk_texts]],
                full[asked],
                read[asked],
                POOL_DEPTH,
            )
            for name, chunk_texts in per_chunking.items()
        }
        if not any(differs.values()):
            break
        counts = ", ".join(f"{len(d)} under {name}" for name, d in differs.items())
        refused.append(f"{precision} changes the top-{POOL_DEPTH} of {counts}")
    return precision, stored, refused


def _main(argv: Sequence[str]) -> int:
    if argv:
        print("usage: python -m ragaudit.ui.lab_vectors", file=sys.stderr)
        return 2
    print(write_shipped())
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
