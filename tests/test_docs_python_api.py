"""docs/python-api.md holds: every public name of `ragaudit` has its section, and its code
blocks run as written, in order, in one namespace (as a reader pastes them into a notebook),
from a fresh folder beside the checkout's examples/ with a fresh data folder. A block that
needs a generator or a network starts with `# not run: REASON`; it is compiled, not run.

The runnable blocks are retrieval-only over three short documents (MiniLM, seconds) or read
the reference run the package ships; their own asserts say what each must show."""

from __future__ import annotations

import re
import textwrap

import pytest

import ragaudit
from ragaudit import paths

DOC = paths.REPO_ROOT / "docs" / "python-api.md"
FENCE = re.compile(r"^```python\n(.*?)^```", flags=re.M | re.S)
NOT_RUN = "# not run:"


def python_blocks() -> list[str]:
    return [textwrap.dedent(block) for block in FENCE.findall(DOC.read_text(encoding="utf-8"))]


def test_every_public_name_has_its_section():
    text = DOC.read_text(encoding="utf-8")
    headings = re.findall(r"^#+ (.+)$", text, flags=re.M)
    for name in ragaudit.__all__:
        if name == "__version__":
            assert "ragaudit.__version__" in text
            continue
        assert any(f"`ragaudit.{name}`" in heading for heading in headings), name


def test_a_block_left_unrun_says_why_and_compiles():
    blocks = python_blocks()
    assert len(blocks) >= 8
    unrun = [block for block in blocks if block.startswith(NOT_RUN)]
    assert unrun, "the page shows at least one call that needs a generator"
    for block in unrun:
        reason = block.splitlines()[0].removeprefix(NOT_RUN).strip()
        assert len(reason) > 10, block.splitlines()[0]
    for block in blocks:
        compile(block, str(DOC), "exec")


def test_the_blocks_run_in_order(tmp_path, monkeypatch, capsys):
    (tmp_path / "examples").symlink_to(paths.REPO_ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    namespace: dict = {"__name__": "__docs__"}
    ran = 0
    for index, block in enumerate(python_blocks()):
        if block.startswith(NOT_RUN):
            continue
        exec(compile(block, f"{DOC.name} block {index}", "exec"), namespace)  # noqa: S102
        ran += 1
    printed = capsys.readouterr()
    assert ran >= 8
    # what the page says a reader sees
    assert "unknown operator" in printed.out or "no_such_operator" in printed.out
    assert "has no source file" not in printed.err  # Components replay: no such line
    assert (tmp_path / "supersede.json").is_file()
    written = {p.name for p in tmp_path.iterdir()}
    assert written == {"examples", "home", "ragaudit-data", "supersede.json"}, written


@pytest.mark.parametrize("name", sorted(set(ragaudit.__all__) - {"__version__"}))
def test_each_name_resolves(name):
    assert getattr(ragaudit, name) is not None


@pytest.mark.slow(model=False)  # MiniLM over examples/mutate's 14 cases x every mutant: about 30 s
def test_the_readme_example_runs(tmp_path, monkeypatch):
    """The README's first Python block, as written, from a folder beside examples/."""
    readme = (paths.REPO_ROOT / "README.md").read_text(encoding="utf-8")
    block = FENCE.search(readme)[1]
    (tmp_path / "examples").symlink_to(paths.REPO_ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    namespace: dict = {"__name__": "__readme__"}
    exec(compile(block, "README.md", "exec"), namespace)  # noqa: S102
    scores = namespace["results"].mutation_scores()
    assert list(scores["operator"]) == [
        "remove_answer", "supersede", "near_duplicate", "boundary", "dilute", "table_split"
    ]  # fmt: skip
    assert scores["applicable"].sum() > 0
