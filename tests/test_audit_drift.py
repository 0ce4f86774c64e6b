"""`ragaudit drift`: every differing retrieval constant listed, the looser side named, and
the settings file validated strictly (errors name the file, line and field)."""

from __future__ import annotations

import pytest

from ragaudit.auditing.settings import load_settings
from ragaudit.cli.main import main
from ragaudit.errors import RagauditError

PROD = """\
embedder: local:minilm
splitter: document
k: 6
candidate_pool: 48
per_source_cap: 2
floor: {source_type: statute, slots: 2, min_score: 0.4}
backfill_range: 12
min_score: 0.3
"""

# The audit study's test script: backfills from the whole pool; plus every other kind of drift.
EVAL = """\
embedder: local:e5-small
splitter: recursive
chunk_size: 800
k: 8
candidate_pool: 48
floor: {source_type: statute, slots: 1}
backfill_range: 48
min_score: 0.2
hybrid: true
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_drift_names_every_differing_constant_and_the_looser_side(tmp_path, capsys):
    prod, test = write(tmp_path, "prod.yaml", PROD), write(tmp_path, "eval.yaml", EVAL)
    assert main(["drift", str(prod), str(test)]) == 1
    lines = capsys.readouterr().out.splitlines()
    by_constant = {line.split(":")[0].strip(): line for line in lines if line.startswith("  ")}
    assert set(by_constant) == {
        "embedder", "splitter", "chunk_size", "k", "hybrid", "per_source_cap",
        "floor.slots", "floor.min_score", "backfill_range", "min_score",
    }  # fmt: skip
    assert lines[0] == "drift: prod.yaml vs eval.yaml: 10 of 20 retrieval constants differ"
    assert "prod.yaml 12, eval.yaml 48 -> eval.yaml is looser" in by_constant["backfill_range"]
    assert "prod.yaml 6, eval.yaml 8 -> eval.yaml is looser" in by_constant["k"]
    # no cap at all is looser than a cap of 2; the default is said to be one
    assert (
        "prod.yaml 2, eval.yaml none (default) -> eval.yaml is looser"
        in (by_constant["per_source_cap"])
    )
    # a lower threshold lets more through
    assert "prod.yaml 0.3, eval.yaml 0.2 -> eval.yaml is looser" in by_constant["min_score"]
    # fewer reserved slots for the floor's type: production is the looser one here
    assert "prod.yaml 2, eval.yaml 1 -> prod.yaml is looser" in by_constant["floor.slots"]
    for constant in ("embedder", "splitter", "chunk_size", "hybrid"):
        assert "differs, neither side looser" in by_constant[constant]
    # the floor's relevance gate dropped in the test script
    assert (
        "prod.yaml 0.4, eval.yaml none (default) -> eval.yaml is looser"
        in (by_constant["floor.min_score"])
    )
    assert "[fail] eval.yaml is looser than prod.yaml on 5 constant(s)" in "\n".join(lines)
    assert "[fail] prod.yaml is looser than eval.yaml on 1 constant(s)" in "\n".join(lines)


def test_a_constant_left_to_its_default_still_counts(tmp_path, capsys):
    prod = write(tmp_path, "prod.yaml", "k: 6\ncandidate_pool: 48\nbackfill_range: 12\n")
    test = write(tmp_path, "eval.yaml", "k: 6\ncandidate_pool: 48\n")
    assert main(["drift", str(prod), str(test)]) == 1
    out = capsys.readouterr().out
    # null backfill_range means the whole pool: the study's exact trap
    assert "backfill_range: prod.yaml 12, eval.yaml 48 (default) -> eval.yaml is looser" in out


def test_identical_settings_pass(tmp_path, capsys):
    prod = write(tmp_path, "prod.yaml", PROD)
    same = write(tmp_path, "copy.yaml", "# same constants, other order\n" + PROD[::-1][::-1])
    assert main(["drift", str(prod), str(same)]) == 0
    assert "agree on all 20 retrieval constants" in capsys.readouterr().out


def test_examples_drift_as_documented(capsys):
    from ragaudit.paths import REPO_ROOT

    example = REPO_ROOT / "examples" / "audit"
    assert main(["drift", str(example / "prod.yaml"), str(example / "eval.yaml")]) == 1
    out = capsys.readouterr().out
    assert "backfill_range: prod.yaml 12, eval.yaml 48 -> eval.yaml is looser" in out
    assert "per_source_cap: prod.yaml 2, eval.yaml none -> eval.yaml is looser" in out


@pytest.mark.parametrize(
    "text, expected",
    [
        ("k: 6\ncandidate_pol: 48\n", "line 2: field candidate_pol: unknown field"),
        ("k: 0\n", "line 1: field k: Input should be greater than or equal to 1 (got 0)"),
        ("chunk_size: 500\noverlap: 500\n", "line 2: field overlap: 500 must be smaller"),
        ("k: 6\ncandidate_pool: 4\n", "line 2: field candidate_pool: 4 is smaller than k 6"),
        (
            "candidate_pool: 20\nbackfill_range: 48\n",
            "line 2: field backfill_range: 48 reaches past candidate_pool 20",
        ),
        ("k: 3\nfloor:\n  source_type: s\n  slots: 4\n", "line 4: field floor.slots: 4 is more"),
        ("floor:\n  source_type: s\n  slot: 1\n", "line 3: field floor.slot: unknown field"),
        ("subsection_marker: '^\\d+'\n", "line 1: field subsection_marker: needs a capture group"),
        ("splitter: semantic\n", "line 1: field splitter: Input should be"),
        ("k: [6\n", "invalid YAML"),
        (
            "embedder: local:minlm\n",
            "line 1: field embedder: unknown embedder spec 'local:minlm'; did you mean "
            "'local:minilm'?",
        ),
        ("k: 0x_\n", "line 1: invalid YAML ('0x_': invalid literal for int() with base 16: '')"),
        ("min_score: .nan\n", "line 1: field min_score: Input should be"),
        pytest.param("k: " + "[" * 10_000, "invalid YAML (nested too deeply", id="deep"),
    ],
)
def test_bad_settings_name_file_line_and_field(tmp_path, text, expected):
    path = write(tmp_path, "prod.yaml", text)
    with pytest.raises(RagauditError) as error:
        load_settings(path)
    assert str(error.value).startswith(f"settings file {path}: ")
    assert expected in str(error.value)


def test_drift_on_a_bad_file_exits_2_with_one_line(tmp_path, capsys):
    prod = write(tmp_path, "prod.yaml", PROD)
    bad = write(tmp_path, "eval.yaml", "k: 6\ntop_k: 8\n")
    assert main(["drift", str(prod), str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert "eval.yaml: line 2: field top_k: unknown field" in err
