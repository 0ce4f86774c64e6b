"""Where ragaudit keeps its files. RAGAUDIT_HOME moves data/ (tests point it at a temp dir)."""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def data_dir() -> Path:
    """The folder for results, the model-call cache and vector stores."""
    home = os.environ.get("RAGAUDIT_HOME")
    return Path(home) if home else REPO_ROOT / "data"


def corpus_dir() -> Path:
    """The committed planted-fault corpus (RAGAUDIT_CORPUS overrides)."""
    override = os.environ.get("RAGAUDIT_CORPUS")
    return Path(override) if override else REPO_ROOT / "corpus"


def cache_path() -> Path:
    return data_dir() / "cache.sqlite"


def chroma_dir() -> Path:
    return data_dir() / "chroma"


def results_dir() -> Path:
    return data_dir() / "results"


def default_results_path() -> Path:
    return results_dir() / "latest.json"


def models_dir() -> Path:
    """Assembled model weights (e.g. the GGUF concatenated from its chunk packages).

    Kept outside data/ so that tests with a temporary RAGAUDIT_HOME share one copy.
    """
    override = os.environ.get("RAGAUDIT_MODELS")
    return Path(override) if override else Path.home() / ".cache" / "ragaudit" / "models"
