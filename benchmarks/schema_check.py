"""`python -m benchmarks.schema_check`: what checking a results file against the schema
costs beside parsing it, on the shipped 12.5 MB reference run (issue 42, item 1: check time
at most parse time, since the inspector loads a file on every page).

Each figure is the median of 5 timings, in one process, after one warm-up (the validator is
built once per process, timed apart). Measured:
- parse: `json.loads` of the gunzipped bytes (what the loader does before any check);
- pydantic-core `validate_python(strict=True)` on the parsed document (what the loader
  runs, results.schema_file.check_against_schema);
- pydantic-core `validate_json(strict=True)` on the bytes: parse and check at once (its
  output drops fields the types do not name, so it could not replace the parse);
- the `jsonschema` library against the shipped schema.json, when installed (one timing:
  it is slow).
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable

from ragaudit.results.compressed import read_gzip_text
from ragaudit.results.documents import ResultsFile
from ragaudit.results.reference import REFERENCE_FILE
from ragaudit.results.schema_file import SCHEMA_FILE

REPEATS = 5


def median_seconds(work: Callable[[], object], repeats: int = REPEATS) -> float:
    """The median wall time of `repeats` calls of `work`, after one warm-up call."""
    work()
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> int:
    from pydantic import TypeAdapter

    raw = read_gzip_text(REFERENCE_FILE).encode("utf-8")
    print(f"reference: {REFERENCE_FILE.name}, {len(raw) / 1e6:.1f} MB gunzipped")
    started = time.perf_counter()
    adapter = TypeAdapter(ResultsFile)
    print(f"validator built once per process: {time.perf_counter() - started:.3f} s")
    document = json.loads(raw)
    parse = median_seconds(lambda: json.loads(raw))
    rows = [
        ("pydantic-core validate_python (the loader's)",
         median_seconds(lambda: adapter.validate_python(document, strict=True))),
        ("pydantic-core validate_json (parse + check)",
         median_seconds(lambda: adapter.validate_json(raw, strict=True)) - parse),
    ]  # fmt: skip
    try:
        import jsonschema
    except ImportError:
        print("jsonschema: not installed, not measured")
    else:
        schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
        validator = jsonschema.Draft202012Validator(schema)
        rows.append(
            ("jsonschema (1 timing)", median_seconds(lambda: validator.validate(document), 1))
        )
    print(f"parse (json.loads): {parse:.3f} s")
    for name, seconds in rows:
        print(f"check, {name}: {seconds:.3f} s, {seconds / parse:.2f} x parse")
    print("(validate_json's check is its time minus the parse time above)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
