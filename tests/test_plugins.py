"""A third-party package extends ragaudit without editing it (issue 42, item 2): the toy
plugin distribution in tests/data/ragaudit_toy_plugin, pip-installed into a temporary site
folder, adds a probe, a backend, a page, a stage, a mutation operator and a judge metric
through ragaudit's entry-point groups. Every command that sees them runs in a subprocess
with that folder on PYTHONPATH, so nothing is installed into the environment the suite runs
in, and this process never sees the plugin."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from ragaudit.backends.catalogue import backend_registry
from ragaudit.judges.metrics import metric_registry
from ragaudit.mutation.operators import operator_registry
from ragaudit.probes.catalogue import probe_registry
from ragaudit.registry import GROUPS
from ragaudit.runner.stages import stage_registry
from ragaudit.ui.pages import pages_in_order

SOURCE = Path(__file__).parent / "data" / "ragaudit_toy_plugin"
APP = Path(__file__).resolve().parents[1] / "app.py"

# What the plugin's pyproject.toml declares, one name per group, by hand.
PLUGIN_NAMES = {
    "probe": "pallet_check",
    "backend": "toyhash",
    "page": "toy_plugin",
    "stage": "toy_stage",
    "operator": "toy_untouched",
    "metric": "toy:always_half",
}

LIST_NAMES = """
import json
from ragaudit.backends.catalogue import backend_registry
from ragaudit.judges.metrics import metric_registry
from ragaudit.mutation.operators import operator_registry
from ragaudit.probes.catalogue import probe_registry, shipped
from ragaudit.runner.stages import stage_registry
from ragaudit.ui.pages import pages_in_order
print(json.dumps({
    "probe": probe_registry().names(),
    "backend": backend_registry().names(),
    "page": [page.key for page in pages_in_order()],
    "stage": stage_registry().names(),
    "operator": operator_registry().names(),
    "metric": metric_registry().names(),
    "planted": [probe.name for probe in shipped()],
}))
"""

# The inspector, opened on the results file, then on the plugin's page. A page without a
# file in pages/ has no path AppTest.switch_page takes, so the page is chosen by the hash
# Streamlit registered for its url_path (AppTest's own fields; Streamlit is pinned to 1.67).
OPEN_PLUGIN_PAGE = """
import json, sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1], default_timeout=60)
at.query_params["results"] = sys.argv[2]
at.run()
first = [str(error.value) for error in at.exception]
registered = list(at._registered_pages.values())
(at._page_hash,) = [i["page_script_hash"] for i in registered if i["url_pathname"] == "toy_plugin"]
at.run()
print(json.dumps({
    "navigation": [(i["url_pathname"], i["page_name"]) for i in registered],
    "exceptions": first + [str(error.value) for error in at.exception],
    "titles": [title.value for title in at.title],
    "markdown": [text.value for text in at.markdown],
    "errors": [str(error.value) for error in at.error],
}))
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """A site folder holding the toy plugin, pip-installed from a copy of its source (a
    build writes its egg-info beside the source)."""
    root = tmp_path_factory.mktemp("plugin")
    source = shutil.copytree(SOURCE, root / "source")
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
         "--no-build-isolation", "--target", str(root / "site"), str(source)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    return root / "site"


def env_with(*folders: Path, **variables: str) -> dict[str, str]:
    """This process's environment with `folders` on PYTHONPATH and `variables` set."""
    env = {k: v for k, v in os.environ.items() if k != "RAGAUDIT_RESULTS"}
    env["PYTHONPATH"] = os.pathsep.join(str(folder) for folder in folders)
    return env | variables


def python(code_or_args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *code_or_args], capture_output=True, text=True,
                          env=env, timeout=300)  # fmt: skip


def shipped_names() -> dict[str, list[str]]:
    """Every registry's names in this process, where no plugin is installed."""
    return {
        "probe": probe_registry().names(),
        "backend": backend_registry().names(),
        "page": [page.key for page in pages_in_order()],
        "stage": stage_registry().names(),
        "operator": operator_registry().names(),
        "metric": metric_registry().names(),
    }


def test_the_plugin_is_not_installed_where_the_suite_runs(site):
    for group in GROUPS.values():
        assert [p.name for p in entry_points(group=group) if "toy" in p.value] == []
    assert set(shipped_names()["probe"]).isdisjoint({PLUGIN_NAMES["probe"]})


def test_every_registry_lists_the_plugins_entry_after_the_shipped_ones(site):
    listed = python(["-c", LIST_NAMES], env_with(site))
    assert listed.returncode == 0, listed.stderr
    names = json.loads(listed.stdout)
    for kind, shipped in shipped_names().items():
        assert names[kind] == [*shipped, PLUGIN_NAMES[kind]], kind
    assert names["planted"] == names["probe"]  # the plugin's probe builds the corpus too


def clashing_distribution(root: Path) -> Path:
    """A site folder with a second plugin distribution, metadata only: its probe takes a
    shipped probe's name and its backend the toy plugin's prefix."""
    info = root / "ragaudit_toy_plugin_clash-0.1.0.dist-info"
    info.mkdir(parents=True)
    metadata = "Metadata-Version: 2.1\nName: ragaudit-toy-plugin-clash\nVersion: 0.1.0\n"
    (info / "METADATA").write_text(metadata)
    (info / "entry_points.txt").write_text(
        "[ragaudit.probes]\ncontrol = ragaudit_toy_plugin.probe:PROBE\n\n"
        "[ragaudit.backends]\ntoyhash = ragaudit_toy_plugin.backend:BACKEND\n"
    )
    return root


def test_a_plugin_name_already_held_is_refused_in_one_line_naming_both(site, tmp_path):
    env = env_with(site, clashing_distribution(tmp_path / "clash"))
    corpus = python(["-m", "ragaudit", "corpus", "--out", str(tmp_path / "c"), "--n", "1"], env)
    assert (corpus.returncode, corpus.stdout) == (2, "")
    assert corpus.stderr == (
        "ragaudit corpus: plugin ragaudit-toy-plugin-clash: probe 'control' is already "
        "registered by ragaudit (entry point group ragaudit.probes)\n"
    )
    names = "from ragaudit.backends.catalogue import backend_registry as r; r().names()"
    backends = python(["-c", names], env)
    # distributions are read in name order: the toy plugin's toyhash is the one held
    assert backends.stderr.splitlines()[-1] == (
        "ragaudit.errors.RagauditError: plugin ragaudit-toy-plugin-clash: backend 'toyhash' "
        "is already registered by ragaudit-toy-plugin (entry point group ragaudit.backends)"
    )
    assert not (tmp_path / "c").exists()


def test_a_clashing_backend_plugin_is_one_line_on_the_command_line(site, tmp_path):
    env = env_with(site, clashing_distribution(tmp_path / "clash"))
    run = python(["-m", "ragaudit", "run", "--n", "1", "--no-generate", "--dry-run"], env)
    assert run.returncode == 2 and len(run.stderr.splitlines()) == 1, run.stderr


def test_the_plugins_probe_and_backend_run_and_its_page_shows_the_results(site, tmp_path):
    home, corpus = tmp_path / "home", tmp_path / "corpus"
    out = home / "results" / "plugin.json"  # under the results folder: the app opens it
    env = env_with(site, RAGAUDIT_HOME=str(home), RAGAUDIT_CORPUS=str(corpus))
    written = python(["-m", "ragaudit", "corpus", "--out", str(corpus), "--n", "2"], env)
    assert written.returncode == 0, written.stderr
    assert {"pallet_check-000.txt", "pallet_check-001.txt"} <= {
        path.name for path in (corpus / "documents").iterdir()
    }
    questions = (corpus / "questions.jsonl").read_text().splitlines()
    assert sum('"pallet_check"' in line for line in questions) == 2  # n=2

    flags = ["--n", "2", "--no-generate", "--no-extra-configs", "--embedders", "toyhash:words"]
    run = python(["-m", "ragaudit", "run", *flags, "--out", str(out)], env)
    assert run.returncode == 0, run.stderr
    results = json.loads(out.read_text())
    configs = [config["name"] for config in results["configs"]]
    toy = [r for r in results["instances"] if r["probe"] == "pallet_check"]
    # the two instances at n=2, each retrieved under every config by the toy embedder
    assert sorted((r["config"], r["instance_id"]) for r in toy) == sorted(
        (config, f"pallet_check-00{i}") for config in configs for i in (0, 1)
    )
    assert {(r["embedder"], r["gold_in_context"] is not None) for r in toy} == {
        ("toyhash:words", True)
    }
    (model,) = results["models"]
    assert (model["spec"], model["backend"], model["digest"]) == (
        "toyhash:words", "toyhash", "toyhash-64",
    )  # fmt: skip

    opened = python(["-c", OPEN_PLUGIN_PAGE, str(APP), str(out)], env)
    assert opened.returncode == 0, opened.stderr
    shown = json.loads(opened.stdout)
    assert shown["navigation"][-1] == ["toy_plugin", "Pallet checks"]
    assert [key for key, _ in shown["navigation"][1:]] == [
        page.key for page in pages_in_order()[1:]
    ] + ["toy_plugin"]  # the default page's url_path is empty
    assert (shown["exceptions"], shown["errors"]) == ([], [])
    assert shown["titles"] == ["Pallet checks"]
    assert shown["markdown"] == [f"pallet_check records: {2 * len(configs)}"]
