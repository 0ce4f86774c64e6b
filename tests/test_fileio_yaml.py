"""YAML that is too clever (issue 25, item 13): a key given twice and aliases that expand
beyond a small bound are refused in one line naming the file, the line and the key, in
every YAML input (the one reader, fileio.parse_yaml), while anchors used for shared
defaults still read."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

import ragaudit
from ragaudit.cli.main import main
from ragaudit.errors import RagauditError
from ragaudit.fileio import parse_yaml

ROOT = Path(__file__).resolve().parents[1]
AUDIT = ROOT / "examples" / "audit"


def laughs(levels: int = 7) -> str:
    """`levels` nested aliases, 9 wide: the last stands for 9**levels strings."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    names = "abcdefghij"
    for level in range(1, levels):
        before, name = names[level - 1], names[level]
        lines.append(f"{name}: &{name} [" + ",".join([f"*{before}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def refusal(text: str) -> str:
    with pytest.raises(RagauditError) as caught:
        parse_yaml(text, "settings file prod.yaml")
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_key_given_twice_is_refused_naming_both_lines_and_keys_of_two_types_are_two():
    assert refusal("k: 3\nk: 4\n") == (
        "settings file prod.yaml: line 2: key 'k': given twice (first at line 1); keep one"
    )
    nested = "floor:\n  slots: 1\n  source_type: law\n  slots: 2\n"
    assert refusal(nested).startswith("settings file prod.yaml: line 4: key 'slots': given twice")
    data, _ = parse_yaml("1: one\n'1': the string\n", "x")
    assert data == {1: "one", "1": "the string"}


def test_the_billion_laughs_is_refused_and_anchors_for_shared_defaults_still_read():
    # by hand: b repeats 9 × 10 values (90), c 9 × 91 (819), d 9 × 820 (7,380): 8,289 in
    # all; e's first *d repeats 7,381 more and passes 10,000, at line 5
    message = refusal(laughs())
    assert message.startswith("settings file prod.yaml: line 5: key 'e': aliases repeat more")
    assert "10,000 values" in message
    text = (
        "base: &base {chunk_size: 400, overlap: 40}\n"
        "prod: {<<: *base, k: 4}\neval: {<<: *base, k: 6, overlap: 0}\nsame: *base\n"
    )
    data, _ = parse_yaml(text, "x")
    assert data["prod"] == {"chunk_size": 400, "overlap": 40, "k": 4}
    assert data["eval"] == {"chunk_size": 400, "overlap": 0, "k": 6}
    assert data["same"] == {"chunk_size": 400, "overlap": 40}
    # four levels (9**4 = 6,561 strings, 820 + 9 × 91 + 90 = 1,729 repeated) are allowed
    assert len(parse_yaml(laughs(4), "x")[0]["d"]) == 9


def test_an_alias_inside_its_own_anchor_is_refused():
    assert "line 1: key 'a': an alias sits inside its own anchor" in refusal("a: &a [1, *a]\n")


def test_the_one_yaml_reader_refuses_them_and_no_other_reader_is_left():
    assert "given twice" in refusal("name: a\nname: b\n")
    package = Path(ragaudit.__file__).parent
    readers = re.compile(r"yaml\.(safe_load|load|full_load|unsafe_load|load_all|safe_load_all)\b")
    found = [
        f"{path.relative_to(package)}:{number}"
        for path in package.rglob("*.py")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if readers.search(line)
    ]
    assert found == []


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("bad", ["duplicate", "laughs"])
@pytest.mark.parametrize("command", ["audit settings", "audit cases", "drift", "run --configs"])
def test_every_yaml_input_refuses_them_in_one_line(ragaudit_home, tmp_path, capsys, command, bad):
    if bad == "duplicate":
        text, where = "name: production\nk: 3\nk: 4\n", "line 3: key 'k': given twice"
    else:
        text, where = "name: production\n" + laughs(), "line 6: key 'e': aliases repeat"
    path = tmp_path / "input.yaml"
    path.write_text(text, encoding="utf-8")
    argv = {
        "audit settings": [
            "audit", str(AUDIT / "corpus"), str(AUDIT / "cases.yaml"), "--settings", str(path),
        ],
        "audit cases": ["audit", str(AUDIT / "corpus"), str(path)],
        "drift": ["drift", str(path), str(AUDIT / "prod.yaml")],
        "run --configs": ["run", "--configs", str(path), "--no-generate"],
    }[command]  # fmt: skip
    before = sha(path)
    assert main(argv) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert str(path) in line and where in line, line
    assert sha(path) == before
