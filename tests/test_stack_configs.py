"""The configuration matrix as data, its comparisons, and strict YAML user configs."""

from __future__ import annotations

import pytest

from ragaudit.errors import RagauditError
from ragaudit.stack.configs import (
    COMPARISONS,
    MATRIX,
    MATRIX_CHUNKINGS,
    TABLE_SPLIT_WIDE,
    config_by_name,
    load_user_configs,
    merge_configs,
)
from ragaudit.stack.settings import POOL_DEPTH


def test_matrix_is_the_studys_seven_configs():
    got = {c.name: (c.splitter, c.chunk_size, c.overlap, c.k, c.hybrid) for c in MATRIX}
    assert got == {
        "A": ("fixed", 1000, 0, 3, False),
        "A_prime": ("recursive", 1000, 0, 3, False),
        "B": ("recursive", 1000, 200, 3, False),
        "C": ("recursive", 1000, 200, 8, False),
        "C_prime": ("recursive", 1000, 0, 8, False),
        "D": ("recursive", 512, 128, 8, False),
        "M": ("recursive", 1000, 200, 8, True),
    }
    assert [c.name for c in MATRIX] == ["A", "A_prime", "B", "C", "C_prime", "D", "M"]
    assert "reciprocal-rank fusion" in config_by_name(MATRIX, "M").description
    # The study's overlap carries the previous chunk's tail; the descriptions say so.
    rules = {c.name: c.overlap_rule for c in MATRIX if c.overlap}
    assert rules == dict.fromkeys(("B", "C", "D", "M"), "carry_tail")
    assert config_by_name(MATRIX, "B").description == "recursive 1000/200 carry-tail, k=3"
    assert all("carry-tail" in config_by_name(MATRIX, n).description for n in rules)
    assert config_by_name(MATRIX, "B").to_json()["overlap_rule"] == "carry_tail"


def test_configs_sharing_a_chunking_share_its_name_and_chunking():
    c, m, b = (config_by_name(MATRIX, n) for n in ("C", "M", "B"))
    name = "recursive-1000-200-carry_tail"
    assert c.chunking_name == m.chunking_name == b.chunking_name == name
    assert c.chunking == b.chunking and c.chunking.name == name
    # Overlap 0 names no rule: A_prime and C_prime keep their id (and their caches).
    assert config_by_name(MATRIX, "A_prime").chunking_name == "recursive-1000-0"
    assert config_by_name(MATRIX, "A").chunking.name == "fixed-1000-0"


def test_the_matrix_cuts_four_chunkings_and_table_split_is_also_measured_at_4000():
    # From the study's table: A fixed 1000/0; A', C' recursive 1000/0; B, C, M 1000/200; D 512/128.
    assert [c.name for c in MATRIX_CHUNKINGS] == [
        "fixed-1000-0",
        "recursive-1000-0",
        "recursive-1000-200-carry_tail",
        "recursive-512-128-carry_tail",
    ]
    assert {cfg.chunking for cfg in MATRIX} == set(MATRIX_CHUNKINGS)
    assert TABLE_SPLIT_WIDE.name == "recursive-4000-0"
    assert TABLE_SPLIT_WIDE not in MATRIX_CHUNKINGS


def test_each_comparison_changes_exactly_the_variable_it_names():
    fields = {
        "splitter": {"splitter"},
        "overlap": {"overlap"},
        "k": {"k"},
        "overlap at k=8": {"overlap"},
        "hybrid": {"hybrid"},
        "size+overlap": {"chunk_size", "overlap"},
    }
    assert [c.name for c in COMPARISONS] == [
        "A->A_prime",
        "A_prime->B",
        "A_prime->C_prime",
        "C_prime->C",
        "C->M",
        "C->D",
    ]
    for comparison in COMPARISONS:
        before = config_by_name(MATRIX, comparison.from_config).to_json()
        after = config_by_name(MATRIX, comparison.to_config).to_json()
        changed = {k for k in before if k not in ("name", "description") and before[k] != after[k]}
        assert changed == fields[comparison.variable], comparison.name


def test_a_valid_yaml_config_loads_and_merges(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(
        "configs:\n  - {name: E, splitter: recursive, chunk_size: 2000, overlap: 0, k: 4}\n"
    )
    (config,) = load_user_configs(path)
    assert (config.name, config.chunk_size, config.k, config.hybrid) == ("E", 2000, 4, False)
    assert [c.name for c in merge_configs(MATRIX, [config])][-1] == "E"


def test_a_user_config_picks_its_overlap_rule(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(
        "- {name: L, splitter: recursive, chunk_size: 1000, overlap: 200, k: 3,"
        " overlap_rule: langchain}\n"
        "- {name: T, splitter: recursive, chunk_size: 1000, overlap: 200, k: 3}\n"
    )
    langchain, default = load_user_configs(path)
    assert langchain.chunking_name == "recursive-1000-200-langchain"
    assert default.overlap_rule == "carry_tail"
    assert default.chunking_name == "recursive-1000-200-carry_tail"
    path.write_text(
        "- {name: L, splitter: recursive, chunk_size: 1000, overlap: 200, k: 3,"
        " overlap_rule: tail}\n"
    )
    with pytest.raises(RagauditError) as caught:
        load_user_configs(path)
    assert str(caught.value) == (
        f"configs file {path}: line 1: field overlap_rule: Input should be 'carry_tail' or "
        "'langchain' (got 'tail')"
    )


@pytest.mark.parametrize(
    ("entry", "field", "words"),
    [
        (
            "{name: E, splitter: recursive, chunk_size: 800, overlap: 0, k: 3, topk: 5}",
            "topk",
            "unknown field",
        ),
        (
            "{name: E, splitter: recursive, chunk_size: 800, overlap: 0, k: 0}",
            "k",
            "greater than or equal to 1",
        ),
        (
            "{name: E, splitter: recursive, chunk_size: 800, overlap: 800, k: 3}",
            "overlap",
            "800 must be smaller than chunk_size 800",
        ),
        ("{name: E, splitter: semantic, chunk_size: 800, overlap: 0, k: 3}", "splitter", "fixed"),
        (
            "{name: E, splitter: recursive, chunk_size: '800', overlap: 0, k: 3}",
            "chunk_size",
            "integer",
        ),
        (
            "{name: E, splitter: recursive, chunk_size: 800, overlap: 80, k: 3,"
            " overlap_rule: carry-tail}",
            "overlap_rule",
            "Input should be 'carry_tail' or 'langchain'",
        ),
        (
            "{name: E, splitter: fixed, chunk_size: 800, overlap: 80, k: 3,"
            " overlap_rule: langchain}",
            "overlap_rule",
            "the 'langchain' rule applies to the recursive splitter only",
        ),
    ],
)
def test_bad_yaml_configs_are_refused_naming_file_and_field(tmp_path, entry, field, words):
    path = tmp_path / "bad.yaml"
    path.write_text(f"- {entry}\n")
    with pytest.raises(RagauditError) as caught:
        load_user_configs(path)
    message = str(caught.value)
    assert message.startswith(f"configs file {path}: line 1: field {field}: ")
    assert words in message and "\n" not in message


def test_k_may_reach_the_pool_depth_and_no_further(tmp_path):
    path = tmp_path / "deep.yaml"
    entry = "{name: E, splitter: recursive, chunk_size: 800, overlap: 0, k: %d}"
    path.write_text(f"- {entry % 50}\n")
    assert POOL_DEPTH == 50 and load_user_configs(path)[0].k == 50
    path.write_text(f"- {entry % 51}\n")
    with pytest.raises(RagauditError) as caught:
        load_user_configs(path)
    assert str(caught.value) == (
        f"configs file {path}: line 1: field k: 51 is more than 50, the retrieval pool depth "
        "(stack.settings.POOL_DEPTH): deeper ranks are not kept (got 51)"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "- {name: E, k: [3\n",
            "line 2: invalid YAML (expected ',' or ']', but got '<stream end>')",
        ),
        ("- {name: E, k: 0x_}\n", "line 1: invalid YAML ('0x_': invalid literal for int() "),
        pytest.param("[" * 10_000, "invalid YAML (nested too deeply to read)", id="deep"),
    ],
)
def test_a_configs_file_yaml_cannot_read_is_one_line(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(RagauditError) as caught:
        load_user_configs(path)
    assert str(caught.value).startswith(f"configs file {path}: {message}")
    assert "\n" not in str(caught.value)


BLOCKS = """\
configs:
  - name: E
    splitter: recursive
    chunk_size: 800
    overlap: 0
    k: 3
  - name: F
    splitter: fixed
    chunk_size: 500
    overlap: 0
    k: 4
"""


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        # the second config's k: line 11, the field named within its config
        (
            BLOCKS.replace("k: 4", "k: 0"),
            "line 11: field k: Input should be greater than or equal to 1 (got 0)",
        ),
        # a check across two fields names the line of the field it refuses (line 5)
        (
            BLOCKS.replace("overlap: 0\n    k: 3", "overlap: 800\n    k: 3"),
            "line 5: field overlap: 800 must be smaller than chunk_size 800",
        ),
        # a key misspelt in the first config: its own line (7), not the entry's (2)
        (BLOCKS.replace("k: 3", "k: 3\n    hybird: true"), "line 7: field hybird: unknown field"),
        # a required field left out: the line of its config
        (BLOCKS.replace("    k: 4\n", ""), "line 7: field k: Field required"),
        (
            BLOCKS.replace("name: F", "name: E"),
            "line 7: field name: 'E' is defined twice (first at line 2)",
        ),
        (
            BLOCKS.replace("  - name: F", "  - 3\n  - name: F"),
            "line 7: field configs[1]: expected a mapping",
        ),
    ],
    ids=["k", "across-fields", "unknown-key", "required", "twice", "not-a-mapping"],
)
def test_a_configs_file_error_names_the_file_line_and_field_as_every_input_does(
    tmp_path, edit, message
):
    path = tmp_path / "mine.yaml"
    path.write_text(BLOCKS)
    assert [(c.name, c.splitter, c.k) for c in load_user_configs(path)] == [
        ("E", "recursive", 3),
        ("F", "fixed", 4),
    ]
    path.write_text(edit)
    with pytest.raises(RagauditError) as caught:
        load_user_configs(path)
    assert str(caught.value) == f"configs file {path}: {message}"


def test_a_user_config_may_not_shadow_a_matrix_name(tmp_path):
    path = tmp_path / "dup.yaml"
    path.write_text("- {name: B, splitter: fixed, chunk_size: 500, overlap: 0, k: 3}\n")
    with pytest.raises(RagauditError, match="'name'"):
        merge_configs(MATRIX, load_user_configs(path))
