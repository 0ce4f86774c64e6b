"""docs/extending.md's six recipes hold on disk: applied as written to a `git worktree` of
HEAD (files really written, tables really edited, the corpus regenerated), the fast loop's
tests they can affect pass there, and so does each recipe's own check. The places each
recipe touches are counted from `git diff --stat` in the worktree, as the recipes are
applied one by one.

The tests they can affect are computed from that diff: the test files that name a changed
file (its path; its module, imported or dotted anywhere, as a lazy `module:attribute`
entry is; the `ragaudit.paths` name of a folder it lies in, `corpus_dir` or `PACKAGE_DIR`,
the package's folder also as `ragaudit.__file__`, which the layer contract walks), then
those importing a module of tests/ so affected, to the fixed point (helpers.fixture reads
the probe catalogue, so the UI tests built on it run; an affected conftest.py would bring
every test beside it). The rest of the fast loop runs on the checkout, where the recipes'
files do not exist and their tables are as they were. The files chosen are printed.

About 3 minutes on two cores: the chosen tests run once, in the worktree, importing the
worktree's ragaudit (PYTHONPATH), not the installed one."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
from pathlib import Path, PurePosixPath

import pytest
from test_docs_extending import RECIPES, apply, recipes

from ragaudit import paths

# no generator: its fast loop (two workers of its own), MiniLM and a browser in the checks
pytestmark = pytest.mark.slow(model=False)

CHECKOUT = paths.REPO_ROOT
GENERATED = "corpus/"
"""What a recipe regenerates rather than writes by hand (the probe recipe's corpus)."""


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout  # fmt: skip


@pytest.fixture
def worktree(tmp_path):
    """A detached worktree of HEAD, removed afterwards whatever happened."""
    root = tmp_path / "worktree"
    git("worktree", "add", "--detach", str(root), "HEAD", cwd=CHECKOUT)
    yield root
    git("worktree", "remove", "--force", str(root), cwd=CHECKOUT)


def worktree_env(root: Path, home: Path) -> dict[str, str]:
    """This environment, importing the worktree's ragaudit, with no RAGAUDIT_ setting."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAGAUDIT_", "PYTEST_"))}
    return env | {"PYTHONPATH": str(root), "RAGAUDIT_HOME": str(home)}


def bash(script: str, root: Path, env: dict[str, str], timeout: int) -> None:
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=root, env=env,
                          capture_output=True, text=True, timeout=timeout)  # fmt: skip
    assert done.returncode == 0, f"{script}\n--- stdout\n{done.stdout[-4000:]}\n--- stderr\n" \
                                 f"{done.stderr[-4000:]}"  # fmt: skip


def changed_files(root: Path) -> set[str]:
    """Every file `git diff --stat` names in the worktree (new files too: added with intent
    to add), read from its machine form, --numstat."""
    git("add", "--intent-to-add", "--all", ".", cwd=root)
    return {line.split("\t")[2] for line in git("diff", "--numstat", cwd=root).splitlines()}


def folders_by_name() -> dict[str, PurePosixPath]:
    """The checkout's folders and files as `ragaudit.paths` names them (`corpus_dir`,
    `PACKAGE_DIR`): its path constants and argument-free functions under the top folder."""
    named = {}
    for name, value in vars(paths).items():
        if name.startswith("_") or (callable(value) and inspect.signature(value).parameters):
            continue
        where = value() if callable(value) else value
        if isinstance(where, Path) and where.resolve().is_relative_to(CHECKOUT):
            named[name] = PurePosixPath(where.resolve().relative_to(CHECKOUT).as_posix())
    return {name: where for name, where in named.items() if where.parts}  # not the top


def imports_of(module: PurePosixPath) -> list[str]:
    """Patterns of an import of the module at `module` (a .py path from an import root):
    `import a.b`, `from a.b import x`, `from a import (x, b)`, or `from .b import x`."""
    parts = module.with_suffix("").parts
    parts = parts[:-1] if parts[-1] == "__init__" else parts
    dotted, package, name = ".".join(parts), ".".join(parts[:-1]), re.escape(parts[-1])
    found = [rf"import {re.escape(dotted)}\b", rf"from {re.escape(dotted)} import ",
             rf"from \.{name} import "]  # fmt: skip
    if package:
        found.append(rf"from {re.escape(package)} import (?:\([^)]*|[^\n]*)\b{name}\b")
    return found


def naming(changed: str, folders: dict[str, PurePosixPath]) -> list[str]:
    """Patterns of a source that names the changed file `changed`: its path, its module
    (imported, or dotted anywhere: a lazy `module:attribute` entry, a `python -c` line) or
    the `ragaudit.paths` name of where it lies (the package's folder is also
    `ragaudit.__file__`'s, which the layer contract walks)."""
    path = PurePosixPath(changed)
    names = [re.escape(changed)]
    if path.suffix == ".py" and path.name != "__init__.py":
        names += [rf"{re.escape('.'.join(path.with_suffix('').parts))}\b", *imports_of(path)]
    for name, where in folders.items():
        if where == path or where in path.parents:
            names.append(rf"{name}\b")
            if name == "PACKAGE_DIR":
                names.append(r"ragaudit\.__file__")
    return names


def affected_tests(root: Path, changed: set[str]) -> list[str]:
    """The test files under `root`/tests that the changed files can affect: those changed,
    those naming a changed file, and those importing a module of tests/ that is affected in
    turn (to the fixed point); an affected conftest.py affects every test beside it."""
    tests = root / "tests"
    sources = {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
               for p in tests.rglob("*.py")}  # fmt: skip
    folders = folders_by_name()
    patterns = [re.compile(name) for file in changed for name in naming(file, folders)]
    found = {file for file in sources if file in changed}
    while new := {file for file, text in sources.items()
                  if file not in found and any(p.search(text) for p in patterns)}:  # fmt: skip
        found |= new
        for file in new:
            patterns += map(re.compile, imports_of(PurePosixPath(file).relative_to("tests")))
    for conftest in [PurePosixPath(f) for f in found if f.endswith("/conftest.py")]:
        found |= {f for f in sources if conftest.parent in PurePosixPath(f).parents}
    return sorted(f for f in found if PurePosixPath(f).name.startswith("test_"))


def test_the_six_recipes_applied_to_a_worktree_pass_the_tests_they_affect_and_their_checks(
    worktree, tmp_path
):
    env = worktree_env(worktree, tmp_path / "home")
    imported = subprocess.run(
        [sys.executable, "-c", "import ragaudit; print(ragaudit.__file__)"],
        cwd=worktree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert imported.stdout.strip() == str(worktree / "ragaudit" / "__init__.py")

    found, touched, seen = recipes(), {}, set()
    for title in RECIPES:
        for block in found[title].blocks:
            if block.action in ("file", "edit"):
                apply(block, worktree)
            elif block.action == "run":
                bash(block.code, worktree, env, timeout=600)
        now = changed_files(worktree)
        touched[title], seen = sorted(now - seen), now
    for title, files in touched.items():
        by_hand = [f for f in files if not f.startswith(GENERATED)]
        print(f"{title}: {len(by_hand)} places touched ({', '.join(by_hand)})"
              f" + {len(files) - len(by_hand)} regenerated under {GENERATED}")  # fmt: skip
        assert 2 <= len(by_hand) <= 3, (title, by_hand)

    chosen = affected_tests(worktree, changed_files(worktree))
    print(f"{len(chosen)} test files name what the recipes changed: {' '.join(chosen)}")
    # the rule still reaches the tests that guard the tables: the corpus against the
    # catalogue, the layer contract over every module
    assert "tests/test_corpus_files.py" in chosen and "tests/test_layers.py" in chosen, chosen
    loop = subprocess.run(
        [sys.executable, "-m", "pytest", "-m", "not slow and not e2e", "-q", "-x",
         "-p", "no:cacheprovider", *chosen],
        cwd=worktree, env=env, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert loop.returncode == 0, loop.stdout[-6000:] + loop.stderr[-2000:]
    print(loop.stdout.strip().splitlines()[-1])
    for title in RECIPES:
        for check in found[title].of("check"):
            bash(check.code, worktree, env, timeout=900)
