"""The retrieval stage run on a hand-built corpus, as the stage tests share it: MiniLM as
primary and an Ollama embedder that cannot connect as secondary (control only), so every
secondary call fails and is counted. Callers set RAGAUDIT_RETRIES=0 and an OLLAMA_HOST
nothing listens on."""

from __future__ import annotations

import pytest

from ragaudit.backends.cache import CallCache
from ragaudit.backends.specs import load_embedder
from ragaudit.runner.progress import Progress
from ragaudit.runner.retrieve import EmbedderPlan, MatrixRetrieval
from ragaudit.stack.index import open_client


def run_stage(corpus, configs) -> tuple[dict, CallCache]:
    """The stage's output over `configs`, and the call cache it used."""
    cache = CallCache()
    plans = [
        EmbedderPlan(load_embedder("local:minilm", cache), "primary", None),
        EmbedderPlan(load_embedder("ollama:mxbai-embed-large", cache), "secondary", ("control",)),
    ]
    return MatrixRetrieval(
        corpus, configs, plans, open_client(), Progress(stream=None)
    ).run(), cache


def run_stage_once(home, corpus, configs) -> tuple[dict, CallCache]:
    """`run_stage` with its data folder at `home`, no retry and an Ollama host nothing
    listens on, the environment restored after: a module fixture's one run, its output
    shared read-only by the module's tests."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAGAUDIT_HOME", str(home))
        patch.setenv("RAGAUDIT_RETRIES", "0")
        patch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")  # nothing listens: refused
        return run_stage(corpus, configs)
