"""The shipped reference run: a results file of the reference preset (`ragaudit run --preset
reference`) recorded on the project's machine and shipped inside the package,
gzip-compressed (ragaudit/assets/reference/reference.json.gz), so `ragaudit demo` shows a
run at the originating study's scale at once instead of after hours of generation.

It is read by the one loader (results.io, which gunzips `*.gz`) like any results file.
Until the recorded run exists the file is absent and nothing here changes what the demo
does. The inspector says, on every page showing it, that it is a recorded run, with its
date, models and digests; a run started from the inspector while it is shown writes the
local results file, never the package.

The shipped file was recorded when the preset was called `seed`; it was relabelled once
when the preset was renamed (`run.preset` and T4000's description, now the code's words),
every measured value and the recorded argv as they were.

Shipping a run (the lead, once a reference run is complete):
``python -m ragaudit.results.reference data/results/reference.json``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ragaudit import paths
from ragaudit.errors import RagauditError
from ragaudit.fileio import read_text, write_bytes_atomic
from ragaudit.results.compressed import gzip_bytes
from ragaudit.results.format import NOT_MEASURED, fmt_digest
from ragaudit.results.io import load_results

REFERENCE_FILE = (
    Path(__file__).resolve().parent.parent / "assets" / "reference" / "reference.json.gz"
)
"""Where the package carries the reference run (pyproject's package-data ships it)."""


def shipped_reference() -> Path | None:
    """The reference run's file when this ragaudit ships one, else None."""
    return REFERENCE_FILE if REFERENCE_FILE.is_file() else None


def is_reference(path: str | Path | None) -> bool:
    """True when `path` is the shipped reference run's file."""
    if path is None:
        return False
    return Path(path).expanduser().resolve() == REFERENCE_FILE.resolve()


def run_target(path: Path) -> Path:
    """The results file a run started while `path` is shown writes: the local default in
    the data folder when `path` is the reference run (the package is never written)."""
    return paths.default_results_path() if is_reference(path) else path


def _model_line(model: dict) -> str:
    digest = model.get("digest")
    shown = f"sha256 {fmt_digest(digest)}" if digest and digest != "unavailable" else None
    if shown is None:
        reason = model.get("digest_reason")
        shown = f"digest unavailable: {reason}" if reason else f"digest {NOT_MEASURED}"
    if model.get("llm_threads") is not None:  # they can move a greedy reply: say them
        reuse = "on" if model.get("prefix_reuse") else "off"
        shown += f", llama.cpp {model['llm_threads']} threads, prefix reuse {reuse}"
    return f"{model.get('spec')} ({model.get('name') or NOT_MEASURED}, {shown})"


def recorded_label(results: dict) -> str:
    """One paragraph saying the shown file is the recorded reference run: the date it was
    written, its preset and size, every model with its digest, the corpus's digest."""
    run, corpus = results.get("run") or {}, results.get("corpus") or {}
    written = str(results.get("created_at") or "")[:10] or NOT_MEASURED
    models = "; ".join(_model_line(m) for m in results.get("models") or []) or NOT_MEASURED
    return (
        f"Recorded reference run of {written} (preset {run.get('preset') or NOT_MEASURED}, "
        f"n={corpus.get('n') or NOT_MEASURED} per probe), shipped with ragaudit, not run on "
        f"this machine. Models: {models}. Corpus manifest sha256 "
        f"{fmt_digest(corpus.get('sha256'))}."
    )


def ship(source: str | Path, target: Path = REFERENCE_FILE) -> Path:
    """Compress the complete results file `source` into the package as the reference run;
    returns the file written. Refuses a file whose run has not finished."""
    load_results(source, allow_partial=False)
    write_bytes_atomic(target, gzip_bytes(read_text(source, str(source))))
    return target


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m ragaudit.results.reference RESULTS.json")
    try:
        print(f"wrote {ship(sys.argv[1])}")
    except RagauditError as error:
        sys.exit(str(error))
