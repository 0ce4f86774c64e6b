"""docs/extending.md's recipes are true: their code blocks, written into a temporary copy of
the registries, add a probe, a backend, an inspector page and a stage that work end to end
(the toy probe's corpus is written and run through the toy backend beside the toy stage,
and the toy page shows the results), and each recipe stays short: at most five steps,
touching at most two files.

Nothing in the checkout is written: a `# file:` block goes to a temporary folder that its
package's import path is extended with, and an `# edit:` block is applied to the module's
table in memory (monkeypatched, so every other test sees the shipped registries)."""

from __future__ import annotations

import json
import re
import sys
import textwrap
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

import ragaudit.backends
import ragaudit.probes
import ragaudit.runner
import ragaudit.ui
from ragaudit import paths
from ragaudit.backends import catalogue as backend_catalogue
from ragaudit.cli import run as run_command
from ragaudit.runner import stages as stage_composition
from ragaudit.cli.main import main
from ragaudit.probes import catalogue as probe_catalogue
from ragaudit.ui import pages

DOC = paths.REPO_ROOT / "docs" / "extending.md"
RECIPES = ("Add a probe", "Add a backend", "Add an inspector page", "Add a stage")
MAX_STEPS, MAX_FILES = 5, 2
PACKAGES = {"ragaudit/probes": ragaudit.probes, "ragaudit/backends": ragaudit.backends}
PACKAGES |= {"ragaudit/ui": ragaudit.ui, "ragaudit/runner": ragaudit.runner}


@dataclass(frozen=True)
class Block:
    """One code block of a recipe: a new file (`file`) or lines added to one (`edit`)."""

    action: str
    path: str
    code: str


@dataclass(frozen=True)
class Recipe:
    title: str
    steps: int
    blocks: tuple[Block, ...]

    @property
    def places_touched(self) -> list[str]:
        """The files the recipe's blocks write or edit."""
        return sorted({block.path for block in self.blocks})

    def block(self, action: str) -> Block:
        (found,) = [block for block in self.blocks if block.action == action]
        return found


def recipes() -> dict[str, Recipe]:
    """Each `## ` section of docs/extending.md: its numbered steps and its python blocks."""
    found = {}
    for section in re.split(r"^## ", DOC.read_text(encoding="utf-8"), flags=re.M)[1:]:
        title, _, body = section.partition("\n")
        steps = len(re.findall(r"^\d+\. ", body, flags=re.M))
        blocks = []
        for raw in re.findall(r"^( *)```python\n(.*?)^\1```", body, flags=re.M | re.S):
            code = textwrap.dedent(raw[1])
            header, _, rest = code.partition("\n")
            match = re.fullmatch(r"# (file|edit): (\S+).*", header)
            assert match, f"{title}: a block starts with '# file: PATH' or '# edit: PATH'"
            blocks.append(Block(match[1], match[2], rest))
        found[title.strip()] = Recipe(title.strip(), steps, tuple(blocks))
    return found


def test_every_recipe_is_short_and_touches_at_most_two_files():
    found = recipes()
    assert set(RECIPES) <= set(found)
    for title in RECIPES:
        recipe = found[title]
        print(f"{title}: {recipe.steps} steps, places touched {len(recipe.places_touched)}: "
              f"{', '.join(recipe.places_touched)}")  # fmt: skip
        assert 1 <= recipe.steps <= MAX_STEPS, title
        assert 1 <= len(recipe.places_touched) <= MAX_FILES, title
        for block in recipe.blocks:
            if block.action == "edit":  # an edit is to a file that exists
                assert (paths.REPO_ROOT / block.path).is_file(), block.path
            else:  # a new file is new, in a package the registries import from
                assert not (paths.REPO_ROOT / block.path).exists(), block.path
                assert str(Path(block.path).parent) in PACKAGES, block.path


def write_new_file(block: Block, root: Path, monkeypatch) -> None:
    """A `# file:` block written under `root`, importable as the module its path names."""
    folder = Path(block.path).parent
    target = root / folder / Path(block.path).name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(block.code, encoding="utf-8")
    package = PACKAGES[str(folder)]
    monkeypatch.setattr(package, "__path__", [*package.__path__, str(target.parent)])


@pytest.fixture
def extended(tmp_path, monkeypatch):
    """The shipped registries with every recipe applied, for this test only."""
    found = recipes()
    for title in RECIPES:
        write_new_file(found[title].block("file"), tmp_path / "added", monkeypatch)
    probe_line = found["Add a probe"].block("edit").code
    entries = {**probe_catalogue.PROBES, **eval("{" + probe_line + "}")}  # noqa: S307
    monkeypatch.setattr(probe_catalogue, "PROBES", entries)
    declared = dict(vars(backend_catalogue))
    exec(found["Add a backend"].block("edit").code, declared)  # noqa: S102
    monkeypatch.setattr(backend_catalogue, "BUILT_IN", declared["BUILT_IN"])
    page_line = found["Add an inspector page"].block("edit").code
    added_pages = eval("(" + page_line + ")", dict(vars(pages)))  # noqa: S307
    monkeypatch.setattr(pages, "PAGES_IN_ORDER", (*pages.PAGES_IN_ORDER, *added_pages))
    stage_lines, shipped_stages = (
        found["Add a stage"].block("edit").code,
        stage_composition.stages_for,
    )

    def stages_for(plan):
        stages = shipped_stages(plan)
        exec(stage_lines, {"stages": stages, "plan": plan})  # noqa: S102
        return stages

    monkeypatch.setattr(run_command, "stages_for", stages_for)  # as `ragaudit run` calls it
    probe_catalogue.shipped.cache_clear()  # the shipped probes, read again with the toy
    yield tmp_path
    probe_catalogue.shipped.cache_clear()
    for title in RECIPES:  # the added modules leave with their registries
        path = Path(found[title].block("file").path)
        name = ".".join((*path.parent.parts, path.stem))
        sys.modules.pop(name, None)
        vars(PACKAGES[str(path.parent)]).pop(path.stem, None)


def test_the_toy_probe_runs_through_the_toy_backend_beside_the_toy_stage_onto_the_toy_page(
    extended, ragaudit_home, monkeypatch, capsys
):
    corpus, out = extended / "corpus", ragaudit_home / "results" / "toy.json"
    monkeypatch.setenv("RAGAUDIT_CORPUS", str(corpus))
    assert main(["corpus", "--n", "2", "--probes", "control,toy"]) == 0
    assert {d.name for d in (corpus / "documents").iterdir()} >= {"toy-000.txt", "toy-001.txt"}
    flags = ["--n", "2", "--no-generate", "--no-extra-configs", "--secondary-probes", "all"]
    flags += ["--out", str(out)]
    assert main(["run", "--embedders", "toy:words", *flags]) == 0
    results = json.loads(out.read_text())
    toy = [r for r in results["instances"] if r["probe"] == "toy"]
    assert len(toy) == 2 * len(results["configs"])
    assert all(isinstance(r["gold_first"], bool) and r["gold_in_context"] for r in toy)
    control = [r for r in results["instances"] if r["probe"] == "control"]
    assert control and all(r["gold_first"] is None for r in control)  # another probe's field
    lexical = [r for r in results["instances"] if r["config"] == "LEX"]
    assert [r["instance_id"] for r in lexical] == [
        "control-000",
        "control-001",
        "toy-000",
        "toy-001",
    ]
    assert all(r["retrieved"] and r["gold_in_context"] is not None for r in lexical)
    assert all(h["chunk_id"] in results["chunks"] for r in lexical for h in r["retrieved"])
    assert results["configs"][-1]["name"] == "LEX"
    (model,) = results["models"]  # the toy embedder: the lexical stage loads none
    assert (model["spec"], model["backend"], model["digest"]) == (
        "toy:words", "toy", "wordhash-256",
    )  # fmt: skip

    capsys.readouterr()
    assert main(["run", "--embedders", "toy:broken", *flags]) == 2  # its preflight, one line
    assert capsys.readouterr().err == (
        "ragaudit run: toy:broken: the toy backend has no model 'broken'\n"
    )

    from streamlit.testing.v1 import AppTest

    shown = tuple(replace(p, default=p.key == "toy") for p in pages.PAGES_IN_ORDER)
    monkeypatch.setattr(pages, "PAGES_IN_ORDER", shown)  # open the toy page first
    app = AppTest.from_file(str(paths.REPO_ROOT / "app.py"), default_timeout=60)
    app.query_params["results"] = str(out)
    app.run()
    assert not app.exception
    assert [t.value for t in app.title] == ["Records per probe"]
    (table,) = app.dataframe
    assert dict(zip(table.value["probe"], table.value["records"], strict=True)) == {
        "control": 2 * len(results["configs"]),
        "toy": 2 * len(results["configs"]),
    }


def test_the_shipped_page_files_draw_the_render_function_the_list_names():
    for page in pages.PAGES_IN_ORDER:
        module, _, function = page.render.partition(":")
        thin = (paths.REPO_ROOT / page.file).read_text(encoding="utf-8")
        assert f"from {module} import {function}" in thin, page.key
