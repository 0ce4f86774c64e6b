"""Where ragaudit keeps data and finds its corpus and app: set by RAGAUDIT_HOME, in a source
checkout, and installed from a wheel (built here for real, then imported from outside)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ragaudit import paths
from ragaudit.corpus.build import build_corpus
from ragaudit.corpus.files import write_corpus
from ragaudit.errors import RagauditError

CHECKOUT = Path(__file__).resolve().parent.parent
# What a wheel is built from: the package, its metadata and the files it ships.
BUILD_INPUTS = [
    "pyproject.toml",
    "setup.py",
    "MANIFEST.in",
    "README.md",
    "app.py",
    ".streamlit",
    "pages",
    "corpus",
    "ragaudit",
]


@pytest.fixture
def no_overrides(monkeypatch, tmp_path):
    """No RAGAUDIT_HOME / RAGAUDIT_CORPUS / XDG_DATA_HOME, and HOME a temp folder."""
    for name in ("RAGAUDIT_HOME", "RAGAUDIT_CORPUS", "XDG_DATA_HOME"):
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "user"
    monkeypatch.setenv("HOME", str(home))
    return home


def test_ragaudit_home_holds_all_data(monkeypatch, tmp_path):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "elsewhere"))
    assert paths.default_results_path() == tmp_path / "elsewhere" / "results" / "latest.json"
    assert paths.cache_path() == tmp_path / "elsewhere" / "cache.sqlite"
    assert paths.chroma_dir() == tmp_path / "elsewhere" / "chroma"


def test_a_checkout_keeps_data_in_its_data_folder_and_uses_its_own_files(no_overrides):
    assert paths.checkout_root() == CHECKOUT
    assert paths.default_results_path() == CHECKOUT / "data" / "results" / "latest.json"
    assert paths.corpus_dir() == CHECKOUT / "corpus"
    assert paths.app_script() == CHECKOUT / "app.py"


def _fake_install(monkeypatch, tmp_path) -> Path:
    """Resolve paths as if ragaudit were imported from tmp/site-packages/ragaudit."""
    package = tmp_path / "site-packages" / "ragaudit"
    package.mkdir(parents=True)
    # a stray corpus/ in site-packages does not make it a checkout (no pyproject.toml)
    (package.parent / "corpus").mkdir()
    monkeypatch.setattr(paths, "PACKAGE_DIR", package)
    return package


def test_installed_data_goes_to_the_user_data_directory(monkeypatch, tmp_path, no_overrides):
    package = _fake_install(monkeypatch, tmp_path)
    assert paths.checkout_root() is None
    assert paths.data_dir() == no_overrides / ".local" / "share" / "ragaudit"
    assert paths.corpus_dir() == package / "_shipped" / "corpus"
    assert paths.app_script() == package / "_shipped" / "app.py"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert paths.default_results_path() == tmp_path / "xdg" / "ragaudit" / "results" / "latest.json"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/xdg")  # the XDG spec says: ignore it
    assert paths.data_dir() == no_overrides / ".local" / "share" / "ragaudit"


def test_an_installed_corpus_is_never_rewritten(monkeypatch, tmp_path, no_overrides):
    package = _fake_install(monkeypatch, tmp_path)
    shipped = package / "_shipped" / "corpus"
    shipped.mkdir(parents=True)
    (shipped / "manifest.json").write_text("{}")
    corpus = build_corpus(n=1, probes=["control"])
    with pytest.raises(RagauditError, match="installed package's corpus is read-only"):
        write_corpus(corpus)
    assert sorted(p.name for p in shipped.iterdir()) == ["manifest.json"]
    monkeypatch.setenv("RAGAUDIT_CORPUS", str(tmp_path / "mine"))
    write_corpus(corpus)  # the person named a folder: that one is written
    assert (tmp_path / "mine" / "manifest.json").is_file()


def _copy_build_inputs(target: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in BUILD_INPUTS:
        source = CHECKOUT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=ignore)
        else:
            shutil.copy2(source, target / name)
    return target


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built (not editable) from a copy of the checkout, so the checkout stays clean."""
    source = _copy_build_inputs(tmp_path_factory.mktemp("source"))
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "-w", str(out), str(source)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    (built,) = out.glob("ragaudit-*.whl")
    return built


def test_the_wheel_ships_the_corpus_and_the_app(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    manifest = json.loads((CHECKOUT / "corpus" / "manifest.json").read_text())
    corpus_files = ["manifest.json", *manifest["files"]]
    missing = [f for f in corpus_files if f"ragaudit/_shipped/corpus/{f}" not in names]
    assert not missing, f"corpus files missing from the wheel: {missing[:5]}"
    from ragaudit.ui.pages import PAGES_IN_ORDER  # the page list app.py navigates by

    pages = [page.file for page in PAGES_IN_ORDER]
    # every listed page has its thin file (docs/extending.md: it is required), and no other
    assert sorted(pages) == sorted(f"pages/{p.name}" for p in (CHECKOUT / "pages").glob("*.py"))
    # the inspector's frame (no Deploy button) is read from beside the shipped app.py
    for shipped in ["app.py", ".streamlit/config.toml", *pages]:
        assert f"ragaudit/_shipped/{shipped}" in names
    assert not any(name.startswith(("data/", "tests/", "corpus/")) for name in names)


def test_an_installed_wheel_resolves_its_shipped_files(wheel, tmp_path):
    """Imported from an unpacked wheel outside any checkout: no checkout, shipped files."""
    site = tmp_path / "site-packages"
    zipfile.ZipFile(wheel).extractall(site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    probe = (
        "import json, ragaudit, ragaudit.paths as p; print(json.dumps([ragaudit.__file__, "
        "str(p.checkout_root()), str(p.data_dir()), str(p.corpus_dir()), str(p.app_script())]))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAGAUDIT_", "XDG_"))}
    env.update(PYTHONPATH=str(site), HOME=str(tmp_path / "user"))
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=elsewhere, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    module, checkout, data, corpus, app = json.loads(done.stdout)
    shipped = site / "ragaudit" / "_shipped"
    assert Path(module) == site / "ragaudit" / "__init__.py"
    assert checkout == "None"
    assert Path(data) == tmp_path / "user" / ".local" / "share" / "ragaudit"
    assert Path(corpus) == shipped / "corpus"
    manifest = json.loads((shipped / "corpus" / "manifest.json").read_text())
    changed = [
        name
        for name, sha in manifest["files"].items()
        if hashlib.sha256((shipped / "corpus" / name).read_bytes()).hexdigest() != sha
    ]
    assert not changed and len(manifest["files"]) > 600
    assert Path(app) == shipped / "app.py" and (shipped / "pages" / "matrix.py").is_file()
