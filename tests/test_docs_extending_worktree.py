"""docs/extending.md's six recipes hold on disk: applied as written to a `git worktree` of
HEAD (files really written, tables really edited, the corpus regenerated), the fast loop
passes there, and so does each recipe's own check. The places each recipe touches are
counted from `git diff --stat` in the worktree, as the recipes are applied one by one.

About 5 minutes on two cores: the fast loop runs once, in the worktree, importing the
worktree's ragaudit (PYTHONPATH), not the installed one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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


def test_the_six_recipes_applied_to_a_worktree_pass_the_fast_loop_and_their_checks(
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

    loop = subprocess.run(
        [sys.executable, "-m", "pytest", "-m", "not slow and not e2e", "-q", "-x",
         "-p", "no:cacheprovider"],
        cwd=worktree, env=env, capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert loop.returncode == 0, loop.stdout[-6000:] + loop.stderr[-2000:]
    print(loop.stdout.strip().splitlines()[-1])
    for title in RECIPES:
        for check in found[title].of("check"):
            bash(check.code, worktree, env, timeout=900)
