"""A plugin backend's `options=` are keys a stack file may name (issue 42): the accepted keys
come from the backend registry, the plugins' backends included, read when asked. The toy
plugin (tests/data/ragaudit_toy_plugin, installed into a temporary site folder as
tests/test_plugins.py does) declares one option, `salt`, which its engine mixes into every
hash: a stack file naming `toyhash:words` with a salt runs with it, and a wrong key is one
line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_plugins import env_with, python, site  # noqa: F401 (a fixture)

from ragaudit.backends.specs import option_keys

# The shipped backends' options (openai's, in backends/catalogue.py), by hand; the toy
# plugin's backend adds one (its backend.py).
SHIPPED_KEYS = ["base_url", "api_key_env"]
PLUGIN_KEY = "salt"

CHECK_OPTIONS = """
import json
from ragaudit.backends.specs import option_keys, server_options
from ragaudit.errors import RagauditError
refused = []
for spec, options in (("toyhash:words", {"pepper": "x"}), ("openai:m", {"salt": "x"})):
    try:
        server_options(spec, options)
    except RagauditError as error:
        refused.append(str(error))
print(json.dumps({
    "keys": option_keys(),
    "taken": server_options("toyhash:words", {"salt": "pepper"}),
    "refused": refused,
}))
"""

STACK = """\
name: salted
splitter:
  class: langchain_text_splitters.RecursiveCharacterTextSplitter
  args: {{chunk_size: 1000, chunk_overlap: 200}}
embedder:
  spec: toyhash:words
  {key}: pepper
k: 3
"""


def test_without_a_plugin_the_keys_are_the_shipped_backends():
    assert list(option_keys()) == SHIPPED_KEYS


def test_a_plugin_backends_option_is_a_key_server_options_takes(site):  # noqa: F811
    checked = python(["-c", CHECK_OPTIONS], env_with(site))
    assert checked.returncode == 0, checked.stderr
    seen = json.loads(checked.stdout)
    assert seen["keys"] == [*SHIPPED_KEYS, PLUGIN_KEY]
    assert seen["taken"] == {"base_url": None, "api_key_env": None, "salt": "pepper"}
    assert seen["refused"] == [
        "toyhash:words: option 'pepper' is not supported; valid: base_url, api_key_env, salt",
        "openai:m: salt applies to toyhash:<model> specs only",
    ]


@pytest.fixture(scope="module")
def corpus(site, tmp_path_factory) -> Path:  # noqa: F811
    """A planted corpus at n=1 with the plugin's probe in it (a run with the plugin needs
    its documents)."""
    where = tmp_path_factory.mktemp("corpus") / "corpus"
    written = python(["-m", "ragaudit", "corpus", "--out", str(where), "--n", "1"], env_with(site))
    assert written.returncode == 0, written.stderr
    return where


def _run_stack(site: Path, corpus: Path, tmp_path: Path, key: str):  # noqa: F811
    stack = tmp_path / "salted.yaml"
    stack.write_text(STACK.format(key=key), encoding="utf-8")
    env = env_with(site, RAGAUDIT_HOME=str(tmp_path / "home"), RAGAUDIT_CORPUS=str(corpus))
    flags = ["--stack", str(stack), "--stack-only", "--no-generate", "--n", "1"]
    out = tmp_path / "home" / "results" / "salted.json"
    return python(["-m", "ragaudit", "run", *flags, "--out", str(out)], env), stack, out


def test_a_stack_file_naming_a_plugin_backends_option_runs_with_it(site, corpus, tmp_path):  # noqa: F811
    run, _, out = _run_stack(site, corpus, tmp_path, PLUGIN_KEY)
    assert run.returncode == 0, run.stderr
    (model,) = json.loads(out.read_text())["models"]
    # the engine got the salt: its digest says so, and the models entry records it
    assert (model["spec"], model["digest"], model["salt"]) == (
        "toyhash:words", "toyhash-64-pepper", "pepper",
    )  # fmt: skip


def test_a_wrong_key_beside_a_plugin_backends_spec_is_one_line_exit_2(site, corpus, tmp_path):  # noqa: F811
    run, stack, _ = _run_stack(site, corpus, tmp_path, "pepper")
    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr == (
        f"ragaudit run: stack file {stack}: line 7: field embedder.pepper: unknown field\n"
    )
