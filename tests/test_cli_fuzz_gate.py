"""Fuzz `ragaudit gate` (issue 28), in the style of test_cli_fuzz_inputs: the baseline and
the new results file each mutated every way that file gets there (random bytes,
truncations, wrong types per field, NaN/Infinity, deep nesting, a 10 MB line, a BOM, each
record's required fields removed or of another type), then the fields only the gate reads
(chunk_offsets, indexed_documents, flaky, grade, generation, gold_rank, k, layer) given
hostile values, and every flag given hostile text. Every case ends in 0, 1 or 2 with at
most one line on stderr and no traceback, and leaves both inputs byte for byte as they were.
"""

from __future__ import annotations

import json
import random

from helpers.fuzz import SEED, WRONG, Fuzz, as_json, document_mutations, record_mutations
from helpers.gate_fixtures import gate_run

GATE_FIELDS = ("flaky", "grade", "generation", "gold_rank", "k", "layer", "gold_in_context")
FLAGS = ("--alpha", "--max-drop", "--cells", "--pair")
HOSTILE_TEXT = ["", "-", "nan", "inf", "-inf", "1e400", "0x10", "5%", ":", "a:b:c", "=", "B=",
                "=B", "@", "C@", "C@nope=C", "\x00", "é" * 300, "boundary:" + "x" * 5000,
                "1_0"]  # fmt: skip


def _pair() -> tuple[dict, dict]:
    """A valid pair with losses on both measures, so a case can also exit 1."""
    cells = {("boundary", "C"): [True] * 5, ("control", "C"): [True] * 5}
    after = {("boundary", "C"): [False] * 5, ("control", "C"): [True, False, True, True, True]}
    before_answers = gate_run({("superseded", "C"): [True] * 5}, measure="correct")
    after_answers = gate_run({("superseded", "C"): [False] * 5}, measure="correct")
    before, new = gate_run(cells), gate_run(after)
    for mine, theirs in ((before, before_answers), (new, after_answers)):
        mine["instances"] += theirs["instances"]
        mine["cells"] += theirs["cells"]
        mine["corpus"]["probes"] += theirs["corpus"]["probes"]
    return before, new


def gate_field_mutations(rng: random.Random, results: dict) -> list[tuple[str, bytes]]:
    """The fields the gate reads beyond the loader's checks, given wrong values."""
    cases = []
    for value in WRONG + [float("nan"), "asserted by the user", {"asserted_by": "user"}]:
        for field in ("chunk_offsets", "indexed_documents"):
            copy = json.loads(json.dumps(results))
            copy[field] = value
            cases.append((f"{field}={value!r:.20}", as_json(copy)))
        copy = json.loads(json.dumps(results))
        copy["chunk_offsets"] = {"recursive-1000-0": value}
        cases.append((f"chunk_offsets.chunking={value!r:.20}", as_json(copy)))
    for field in GATE_FIELDS:
        for value in rng.sample(WRONG, 6):
            copy = json.loads(json.dumps(results))
            for record in copy["instances"]:
                record[field] = value
            cases.append((f"instances[*].{field}={value!r:.20}", as_json(copy)))
    return cases


def test_gate_inputs_end_in_a_documented_status_in_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    rng = random.Random(SEED + 28)
    fuzz = Fuzz(capsys, tmp_path / "cases")
    before, new = _pair()
    base_file, new_file = tmp_path / "base.json", tmp_path / "new.json"
    base_file.write_bytes(as_json(before))
    new_file.write_bytes(as_json(new))
    junit = tmp_path / "out" / "gate.xml"
    allowed = {0, 1, 2}
    for side, valid in (("baseline", before), ("results", new)):
        cases = document_mutations(rng, valid, as_json, depth=3, per_field=2, limit=40)
        cases += record_mutations(valid) + gate_field_mutations(rng, valid)
        for number, (name, data) in enumerate(cases):
            file = tmp_path / "cases" / side / f"{number:03d}.json"
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_bytes(data)
            pair = (file, new_file) if side == "baseline" else (base_file, file)
            argv = ["gate", "--baseline", str(pair[0]), "--results", str(pair[1])]
            fuzz.case(side, name, [*argv, "--junit", str(junit)], allowed, file)
        assert fuzz.status[side, "valid"] == fuzz.status[side, "bom-then-valid"] == 1, side
        assert fuzz.status[side, "instances[0].probe-absent"] == 2, side
    for flag in FLAGS:
        for text in HOSTILE_TEXT:
            # `--flag=TEXT`: a TEXT starting with '-' is otherwise argparse's own usage error
            argv = [
                "gate",
                "--baseline",
                str(base_file),
                "--results",
                str(new_file),
                f"{flag}={text}",
            ]
            fuzz.case(f"flag{flag}", repr(text)[:30], argv, allowed, base_file)
    assert fuzz.problems == [], "\n".join(fuzz.problems)
    total = sum(fuzz.ran.values())
    with capsys.disabled():
        print(f"\nfuzz gate (seed {SEED + 28}): {total} cases, {fuzz.ran}")
