"""docs/extending.md's recipes can be applied: every code block says what it is (a new file,
an edit next to one line of an existing file, commands to run, the recipe's check), every
edit's line is in its file exactly once today, and every recipe ends with its own check.
So a change that moves a table line, or a doc edit that breaks a block, fails the fast loop.

Whether the applied recipes work is tests/test_docs_extending_worktree.py (slow): it writes
them into a git worktree and runs there the fast loop's tests they can affect, and each
check. This module also holds the parser and the applier that test uses.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

from ragaudit import paths
from ragaudit.ui.pages import PAGES_IN_ORDER

DOC = paths.REPO_ROOT / "docs" / "extending.md"
RECIPES = (
    "Add a probe",
    "Add a mutation operator",
    "Add a backend",
    "Add an inspector page",
    "Add a stage",
    "Add them from a package of your own",
)
EDIT = re.compile(
    r"# edit: (?P<path>\S+), (?P<where>after|before|replacing) the line containing: (?P<line>.+)"
)
FENCE = re.compile(r"^( *)```(\w+)\n(.*?)^\1```", flags=re.M | re.S)


@dataclass(frozen=True)
class Block:
    """One code block of a recipe: `file` (a new file), `edit` (lines next to, or instead
    of, the one line of `path` containing `anchor`), `run` or `check` (bash)."""

    action: str
    code: str
    path: str = ""
    where: str = ""
    anchor: str = ""


@dataclass(frozen=True)
class Recipe:
    title: str
    blocks: tuple[Block, ...]

    def of(self, action: str) -> list[Block]:
        return [block for block in self.blocks if block.action == action]


def parse_block(code: str) -> Block:
    """A fenced block's text (dedented) as a Block, from its first line."""
    header, _, rest = code.partition("\n")
    if header.startswith("# file: "):
        return Block("file", rest, path=header.removeprefix("# file: ").strip())
    if match := EDIT.fullmatch(header.strip()):
        return Block("edit", rest, match["path"], match["where"], match["line"])
    if header.strip() in ("# run:", "# check:"):
        return Block(header.strip()[2:-1], rest)
    raise AssertionError(f"a block starts with '# file:', '# edit:', '# run:' or '# check:': "
                         f"{header!r}")  # fmt: skip


def recipes(text: str | None = None) -> dict[str, Recipe]:
    """Each `## ` section of docs/extending.md and its blocks, in order."""
    text = DOC.read_text(encoding="utf-8") if text is None else text
    found = {}
    for section in re.split(r"^## ", text, flags=re.M)[1:]:
        title, _, body = section.partition("\n")
        blocks = [parse_block(textwrap.dedent(raw)) for _, _, raw in FENCE.findall(body)]
        found[title.strip()] = Recipe(title.strip(), tuple(blocks))
    return found


def anchored_line(text: str, block: Block) -> int:
    """The index of the one line of `text` containing the block's anchor."""
    lines = text.splitlines()
    at = [i for i, line in enumerate(lines) if block.anchor in line]
    assert len(at) == 1, f"{block.path}: {len(at)} lines contain {block.anchor!r}, not one"
    return at[0]


def applied(block: Block, root: Path) -> bool:
    """Whether `block` is already in its file under `root` (so the recipes' worktree, where
    tests/test_docs_extending_worktree.py runs the tests the recipes can affect, passes this
    module too)."""
    target = root / block.path
    return target.is_file() and block.code in target.read_text(encoding="utf-8")


def apply(block: Block, root: Path) -> None:
    """Write a `file` block, or make an `edit` block's change, under `root`."""
    target = root / block.path
    if block.action == "file":
        assert not target.exists(), f"{block.path} exists already"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(block.code, encoding="utf-8")
        return
    lines = target.read_text(encoding="utf-8").splitlines(keepends=True)
    at = anchored_line("".join(lines), block)
    new = block.code.splitlines(keepends=True)
    start, end = {"after": (at + 1, at + 1), "before": (at, at), "replacing": (at, at + 1)}[
        block.where
    ]
    target.write_text("".join([*lines[:start], *new, *lines[end:]]), encoding="utf-8")


def test_the_six_recipes_name_their_files_and_end_with_their_check():
    found = recipes()
    assert list(found) == list(RECIPES)
    for recipe in found.values():
        assert recipe.blocks[-1].action == "check", recipe.title
        assert recipe.of("file"), recipe.title
        for block in recipe.of("file"):  # a new file is new (or the recipe is applied)
            if not applied(block, paths.REPO_ROOT):
                assert not (paths.REPO_ROOT / block.path).exists(), block.path


def test_every_edit_names_one_line_of_its_file_as_it_is_today():
    edits = [block for recipe in recipes().values() for block in recipe.of("edit")]
    assert edits
    for block in edits:
        if not applied(block, paths.REPO_ROOT):
            anchored_line((paths.REPO_ROOT / block.path).read_text(encoding="utf-8"), block)


def test_an_edit_goes_next_to_its_line_or_instead_of_it(tmp_path):
    (tmp_path / "t.py").write_text("a\nb\nc\n")
    for where, expected in [("after", "a\nb\nX\nc\n"), ("before", "a\nX\nb\nc\n"),
                            ("replacing", "a\nX\nc\n")]:  # fmt: skip
        (tmp_path / "t.py").write_text("a\nb\nc\n")
        block = parse_block(f"# edit: t.py, {where} the line containing: b\nX\n")
        apply(block, tmp_path)
        assert (tmp_path / "t.py").read_text() == expected


def test_every_page_has_its_page_files_drawing_its_render_function():
    # the page recipe's thin file is required: a deep link reaches a page by it (pages.py)
    for page in PAGES_IN_ORDER:
        module, _, function = page.render.partition(":")
        thin = (paths.REPO_ROOT / page.file).read_text(encoding="utf-8")
        assert f"from {module} import {function}" in thin, page.key
        assert "run_page(" in thin, page.key
