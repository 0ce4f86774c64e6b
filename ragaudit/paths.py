"""Where ragaudit keeps its files, in a source checkout and in an installed package.

Data (results, the model-call cache, vector stores) goes to RAGAUDIT_HOME if set (tests
point it at a temp dir), else to data/ of the source checkout ragaudit was imported from,
else to the user's data directory. The committed corpus and the inspector's app.py and
pages/ are the checkout's own files in a checkout; an installed wheel carries copies of
them under ragaudit/_shipped/ (setup.py's build hook puts them there).
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
"""The ragaudit package folder (site-packages/ragaudit when installed)."""

REPO_ROOT = PACKAGE_DIR.parent
"""The folder holding the package: the checkout in a source checkout, where tests find
examples/. ragaudit's own code asks checkout_root(), which is None when installed."""

SHIPPED = "_shipped"
"""The package subfolder in which a wheel carries corpus/, app.py and pages/."""


def checkout_root() -> Path | None:
    """The source checkout ragaudit was imported from, or None for an installed package.

    A checkout is the package's parent folder holding pyproject.toml and corpus/ beside
    ragaudit/ (site-packages holds neither).
    """
    root = PACKAGE_DIR.parent
    if (root / "pyproject.toml").is_file() and (root / "corpus").is_dir():
        return root
    return None


def _source_root() -> Path:
    """Where corpus/, app.py and pages/ are: the checkout, else the wheel's shipped copies."""
    return checkout_root() or PACKAGE_DIR / SHIPPED


def user_data_dir() -> Path:
    """$XDG_DATA_HOME/ragaudit, else ~/.local/share/ragaudit (the XDG base-directory rule:
    a relative XDG_DATA_HOME is ignored)."""
    xdg = os.environ.get("XDG_DATA_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".local" / "share"
    return base / "ragaudit"


def data_dir() -> Path:
    """The folder for results, the model-call cache and vector stores."""
    home = os.environ.get("RAGAUDIT_HOME")
    if home:
        return Path(home)
    root = checkout_root()
    return root / "data" if root is not None else user_data_dir()


def corpus_dir() -> Path:
    """The committed planted-fault corpus (RAGAUDIT_CORPUS overrides)."""
    override = os.environ.get("RAGAUDIT_CORPUS")
    return Path(override) if override else _source_root() / "corpus"


def app_script() -> Path:
    """The inspector's Streamlit entry script; its pages/ folder sits beside it."""
    return _source_root() / "app.py"


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
