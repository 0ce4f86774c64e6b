"""Hostile stack files (issue 25, items 12 and 13): every one is refused with exit 2 and one
line naming the file, the line and the field or component, and leaves the data folder as
it was, byte for byte: a good run has filled it first (chroma.sqlite3, cache.sqlite,
latest.json…), and each file's sha256 is compared before and after (a file written anew,
such as the latest.sessions.json ledger a started run writes, is a change too).
The user's components are a real module written beside the stack files."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from ragaudit.cli.main import main

SPLITTER = "langchain_text_splitters.RecursiveCharacterTextSplitter"
GOOD = f"""\
name: good
splitter: {{class: {SPLITTER}, args: {{chunk_size: 1000, chunk_overlap: 0}}}}
embedder: local:minilm
k: 3
"""


def openai(url: str) -> str:
    """GOOD with an openai: embedder at `url` (its base_url on line 5)."""
    model = f"embedder:\n  spec: openai:nomic-embed-text\n  base_url: {url}\n"
    return GOOD.replace("embedder: local:minilm\n", model)


PARTS = '''\
"""Hostile user components (written by tests/test_stack_hostile.py)."""
import time


def raising_factory(chunks):
    raise ConnectionError("vector store at 10.0.0.9:6333 refused the connection")


def none_factory(chunks):
    return None


def sleeping_factory(chunks):
    time.sleep(30)
    return lambda question: []


def any_args_factory(chunks, **kwargs):
    return lambda question: [(chunks[0].node_id, 1.0)]


class EmptyChunkSplitter:
    def split_text(self, text):
        return [text[:20], ""]


class NoneSplitter:
    def split_text(self, text):
        return None


class CopyingSplitter:
    """5,000 copies of each document (the issue's hang)."""

    def split_text(self, text):
        return [text] * 5000


class SlowSplitter:
    def split_text(self, text):
        time.sleep(30)
        return [text]
'''


def own(factory: str, extra: str = "") -> str:
    return (
        f"name: theirs\nsplitter: {{class: {SPLITTER}}}\n"
        f"retriever: {{factory: 'hostile_parts:{factory}'}}\nk: 3\n{extra}"
    )


def splitting(cls: str, extra: str = "") -> str:
    return (
        GOOD.replace(
            f"{{class: {SPLITTER}, args: {{chunk_size: 1000, chunk_overlap: 0}}}}",
            f"{{class: hostile_parts.{cls}}}",
        )
        + extra
    )


def billion_laughs() -> str:
    """The issue's 563-byte stack file: seven nested aliases standing for 9**7 strings in
    the args its factory is given."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for before, name in zip("abcdef", "bcdefg", strict=True):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{before}"] * 9) + "]")
    anchors = "".join(f"    {line}\n" for line in lines)
    text = (
        f"name: laughs\nsplitter: {{class: {SPLITTER}}}\nretriever:\n"
        f"  factory: 'hostile_parts:any_args_factory'\n  args:\n{anchors}k: 3\n"
    )
    return text + "#" * (563 - len(text) - 1) + "\n"


# (stack file text, the line and field or key it names, what it says)
HOSTILE = {
    "port 99999": (
        openai("http://127.0.0.1:99999/v1"),
        "line 5: field embedder.base_url",
        "the port is not a number from 1 to 65535",
    ),
    "file scheme": (
        openai("file:///etc/passwd"),
        "line 5: field embedder.base_url",
        "file: is not http or https",
    ),
    "no host": (
        openai("http:///v1"),
        "line 5: field embedder.base_url",
        "names no host",
    ),
    "factory raises": (
        own("raising_factory"),
        "line 3: field retriever.factory",
        "raised ConnectionError: vector store at 10.0.0.9:6333 refused",
    ),
    "factory returns None": (
        own("none_factory"),
        "line 3: field retriever.factory",
        "returned None",
    ),
    "factory past its time": (
        own("sleeping_factory", "limits: {build_seconds: 0.5}\n"),
        "line 3: field retriever.factory",
        "no answer within 0.5 s",
    ),
    "splitter returns ''": (
        splitting("EmptyChunkSplitter"),
        "line 2: field splitter.class",
        "returned an empty chunk ('')",
    ),
    "splitter returns None": (
        splitting("NoneSplitter"),
        "line 2: field splitter.class",
        "returned NoneType, not a list of chunks",
    ),
    "splitter copies each document 5,000 times": (
        splitting("CopyingSplitter"),
        "line 2: field splitter.class",
        "(limits.max_chunk_text_ratio)",
    ),
    "splitter past its time": (
        splitting("SlowSplitter", "limits: {split_seconds: 0.5}\n"),
        "line 2: field splitter.class",
        "no answer within 0.5 s",
    ),
    "duplicate key": (
        GOOD.replace("k: 3\n", "k: 3\nk: 4\n"),
        "line 5: key 'k'",
        "given twice (first at line 4)",
    ),
    "billion laughs": (
        billion_laughs(),
        "line 10: key 'e'",
        "aliases repeat more than 10,000 values",
    ),
}


def tree(folder: Path) -> dict[str, str]:
    """Every file under `folder` by its relative path, with its sha256."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.fixture(scope="module")
def filled_home(tmp_path_factory):
    """A data folder a good stack run has filled (results, ledger, cache, Chroma), and the
    folder of stack files with the user's module beside them."""
    folder = tmp_path_factory.mktemp("hostile")
    (folder / "hostile_parts.py").write_text(PARTS, encoding="utf-8")
    (folder / "good.yaml").write_text(GOOD, encoding="utf-8")
    home = folder / "template-home"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAGAUDIT_HOME", str(home))
        flags = ["--stack-only", "--n", "1", "--no-generate"]
        assert main(["run", "--stack", str(folder / "good.yaml"), *flags]) == 0
    return folder, home


@pytest.fixture
def home(filled_home, tmp_path, monkeypatch):
    folder, template = filled_home
    copy = tmp_path / "home"
    shutil.copytree(template, copy)
    monkeypatch.setenv("RAGAUDIT_HOME", str(copy))
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return folder, copy


def refused(home, capsys, *texts: str) -> str:
    """Run the stack files `texts` (as --stack, in order); the run must exit 2 with one
    line on stderr and leave every file of the data folder as it was. Returns the line."""
    folder, data = home
    names = []
    for number, text in enumerate(texts):
        path = folder / f"case-{number}.yaml"
        path.write_text(text, encoding="utf-8")
        names += ["--stack", str(path)]
    capsys.readouterr()
    before = tree(data)
    # a finished run leaves no ledger: the refused run must not write one either
    assert {"chroma/chroma.sqlite3", "cache.sqlite", "results/latest.json"} <= set(before)
    status = main(["run", *names, "--stack-only", "--n", "1", "--no-generate"])
    err = capsys.readouterr().err
    assert status == 2, err[-2000:]
    assert err.count("\n") == 1 and "Traceback" not in err, err[-2000:]
    after = tree(data)
    changed = sorted(name for name in {*before, *after} if before.get(name) != after.get(name))
    assert changed == [], f"the refused run changed {changed}"
    return err.strip()


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_stack_file_exits_2_naming_file_line_and_field_and_changes_no_file(
    home, capsys, case
):
    text, where, says = HOSTILE[case]
    if case == "billion laughs":
        assert len(text.encode()) == 563  # the file
    line = refused(home, capsys, text)
    path = home[0] / "case-0.yaml"
    assert line.startswith(f"ragaudit run: stack file {path}: {where}"), line
    assert says in line, line


def test_two_stacks_are_both_checked_before_the_first_embeds(home, capsys):
    """The second stack's error is found before the first one's embedder makes a call:
    the cache (and every other file) is unchanged."""
    bad = splitting("EmptyChunkSplitter").replace("name: good", "name: second")
    line = refused(home, capsys, GOOD, bad)
    assert f"stack file {home[0] / 'case-1.yaml'}: line 2: field splitter.class" in line
    bad_url = openai("http://127.0.0.1:99999/v1").replace("name: good", "name: b")
    line = refused(home, capsys, GOOD, bad_url)
    assert f"{home[0] / 'case-1.yaml'}: line 5: field embedder.base_url" in line


def test_openai_base_url_in_the_environment_is_checked_for_a_stack(home, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "ftp://models.internal/v1")
    text = GOOD.replace("embedder: local:minilm", "embedder: openai:nomic-embed-text")
    line = refused(home, capsys, text)
    assert "line 3: field embedder: OPENAI_BASE_URL='ftp://models.internal/v1': ftp:" in line


@pytest.mark.parametrize("case", ["factory raises", "splitter returns ''", "duplicate key"])
def test_the_audit_refuses_a_hostile_stack_before_it_opens_a_file(home, capsys, case):
    folder, data = home
    audit = Path(__file__).resolve().parents[1] / "examples" / "audit"
    path = folder / "audit-case.yaml"
    path.write_text(HOSTILE[case][0], encoding="utf-8")
    capsys.readouterr()
    before = tree(data)
    cases, settings, out = audit / "cases.yaml", audit / "prod.yaml", data / "audit.json"
    argv = ["audit", str(audit / "corpus"), str(cases), "--settings", str(settings),
            "--stack", str(path), "--out", str(out)]  # fmt: skip
    assert main(argv) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert f"stack file {path}: {HOSTILE[case][1]}" in line and HOSTILE[case][2] in line
    assert tree(data) == before
