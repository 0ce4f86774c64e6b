"""The call-cache identity of a target given in Python (issue 43, item 2, and its benchmark
line "the cache test"): editing a factory's code asks its questions again, leaving it
unchanged replays them; a factory with no source file (a notebook, `__main__`) and a built
engine are never replayed without `version=`, and one line says so; with `version=` they
are. A factory defined in a module is keyed by that module's source, as an import path is.

The verb is `ragaudit.mutate` over three documents and one intent (the control row and one
`supersede` mutant: 4 answers, no model) with a fresh cache in tmp_path; the built engine,
which mutate cannot rebuild, goes through `ragaudit.run` alone over the planted corpus. The
notebook is simulated in-process (`exec` in a `__main__` namespace), run as a real script,
and (slow) run as real notebook cells by a Jupyter kernel (nbclient)."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import ragaudit

DOCUMENTS = [
    ("policies/travel", "The meal allowance on domestic trips is 46 euros per day."),
    ("policies/leave", "Full-time employees get 27 days of paid annual leave."),
    ("newsletter", "The canteen reopens in May after its refit."),
]
CASES = [
    ragaudit.Case(intent="meal", expect=["policies/travel"], answer="46 euros",
                  anchor="domestic trips",
                  phrasings=["What is the meal allowance on domestic trips?",
                             "How much is the daily meal allowance when travelling?"]),
]  # fmt: skip
ASKED = 4
"""By hand: 2 phrasings, asked over the unmutated corpus and over the supersede mutant's."""

FACTORY = """
def make(documents):
    texts = [(d["id"], d["text"]) for d in documents]

    def ask(question):
        contexts = [{"text": t, "doc_id": i, "score": 1.0} for i, t in texts]
        return {"answer": "ANSWER", "contexts": contexts}

    return ask
"""
NEVER = "so its answers are not replayed from the cache: pass version="


def source(answer: str) -> str:
    return FACTORY.replace("ANSWER", answer)


def asked(target, home: Path, **options) -> tuple[dict, set[str]]:
    """The calls (replayed, computed, failed) of one mutation audit and the answers given."""
    results = ragaudit.mutate(DOCUMENTS, CASES, target, operators=["supersede"], data_dir=home,
                              progress=False, **options)  # fmt: skip
    replies = {r["generation"]["reply"] for r in results.document["instances"]}
    return results.document["conditions"]["calls"], replies


def computed(n: int = ASKED) -> dict:
    return {"replayed": 0, "computed": n, "failed": 0}


def replayed(n: int = ASKED) -> dict:
    return {"replayed": n, "computed": 0, "failed": 0}


def in_main(text: str, name: str = "make"):
    """A function as a notebook cell defines it: its module is `__main__`, with no file."""
    namespace: dict = {"__name__": "__main__"}
    exec(compile(text, "<cell>", "exec"), namespace)
    assert namespace[name].__module__ == "__main__"
    return namespace[name]


@pytest.fixture
def module(tmp_path, monkeypatch):
    """write(text) puts the user's module `cached_rag` in tmp_path and imports it afresh."""
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "cached_rag", raising=False)

    def write(text: str):
        (tmp_path / "cached_rag.py").write_text(text, encoding="utf-8")
        importlib.invalidate_caches()
        if "cached_rag" in sys.modules:
            return importlib.reload(sys.modules["cached_rag"])
        return importlib.import_module("cached_rag")

    return write


def test_a_module_factory_replays_until_its_module_is_edited(module, tmp_path, capsys) -> None:
    home = tmp_path / "home"
    first = module(source("46 euros"))
    assert asked(first.make, home) == (computed(), {"46 euros"})
    assert asked(first.make, home) == (replayed(), {"46 euros"})
    edited = module(source("forty-six euros"))
    assert asked(edited.make, home) == (computed(), {"forty-six euros"})
    assert asked(edited.make, home) == (replayed(), {"forty-six euros"})
    assert NEVER not in capsys.readouterr().err


def test_a_notebook_factory_is_asked_again_every_run_without_version(tmp_path, capsys) -> None:
    home = tmp_path / "home"
    make = in_main(source("46 euros"))
    assert asked(make, home) == (computed(), {"46 euros"})
    assert asked(make, home) == (computed(), {"46 euros"})  # unchanged: asked again all the same
    assert asked(in_main(source("forty-six euros")), home) == (computed(), {"forty-six euros"})
    lines = [line for line in capsys.readouterr().err.splitlines() if NEVER in line]
    assert (
        lines
        == [
            "ragaudit: python:__main__.make has no source file (a notebook or __main__), so its "
            "answers are not replayed from the cache: pass version= (bump it when you edit it) to "
            "replay them"
        ]
        * 3
    )


def test_with_version_a_notebook_factory_replays_until_the_version_is_bumped(
    tmp_path, capsys
) -> None:
    home = tmp_path / "home"
    make = in_main(source("46 euros"))
    assert asked(make, home, version="1") == (computed(), {"46 euros"})
    assert asked(make, home, version="1") == (replayed(), {"46 euros"})
    # the version is the user's word: an edit under the same version replays the old answers
    edited = in_main(source("forty-six euros"))
    assert asked(edited, home, version="1") == (replayed(), {"46 euros"})
    assert asked(edited, home, version="2") == (computed(), {"forty-six euros"})
    assert NEVER not in capsys.readouterr().err


def run_engine(engine, home: Path, **options) -> dict:
    results = ragaudit.run("quick", n=1, target=engine, target_only=True, data_dir=home,
                           progress=False, **options)  # fmt: skip
    return results.document["conditions"]["calls"]


def test_a_built_engine_is_never_replayed_without_version(tmp_path, capsys) -> None:
    class Engine:  # a built pipeline: a callable object asked as it stands
        def __call__(self, question):
            return {"answer": "I cannot say", "contexts": [{"text": "x", "score": 1.0}]}

    home, engine = tmp_path / "home", Engine()
    first = run_engine(engine, home)
    assert first["computed"] > 0 and first["replayed"] == 0
    assert run_engine(engine, home) == first  # the same engine, the same calls: asked again
    err = capsys.readouterr().err
    assert err.count(f"Engine was given built, {NEVER} (bump it when you change it)") == 2
    assert run_engine(engine, home, version="1") == first  # a new key: asked once more
    assert run_engine(engine, home, version="1") == {
        "replayed": first["computed"], "computed": 0, "failed": 0,
    }  # fmt: skip
    assert NEVER not in capsys.readouterr().err


STATE = """
def make_factory(answer):
    def make(documents):
        return lambda question: {"answer": answer, "contexts": [{"text": "x", "score": 1.0}]}
    return make


def logged(factory):
    def make(documents):
        return factory(documents)
    return make


@logged
def decorated(documents):
    return lambda question: {"answer": "46 euros", "contexts": [{"text": "x", "score": 1.0}]}


class Builder:
    def __init__(self, answer):
        self.answer = answer

    def make(self, documents):
        return lambda question: {"answer": self.answer, "contexts": [{"text": "x", "score": 1.0}]}

    @classmethod
    def shared(cls, documents):
        return cls("46 euros").make(documents)
"""


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("closure", "python:cached_rag.make_factory.<locals>.make closes over a str value"),
        ("bound method", "python:cached_rag.Builder.make is bound to a Builder object"),
    ],
)
def test_a_module_factory_carrying_run_time_values_needs_version(name, why, module, tmp_path,
                                                                 capsys) -> None:  # fmt: skip
    """A closure over a notebook's value, or a method of an object built at run time: the
    module's source does not say the answer, so editing it would not change the key."""
    rag = module(STATE)
    home = tmp_path / "home"
    for answer in ("46 euros", "forty-six euros"):
        target = rag.make_factory(answer) if name == "closure" else rag.Builder(answer).make
        assert asked(target, home) == (computed(), {answer})
    err = capsys.readouterr().err
    assert err.count(f"{why}, which its module's source does not say, {NEVER}") == 2


@pytest.mark.parametrize("name", ["decorated", "classmethod"])
def test_a_decorated_factory_or_a_classmethod_is_keyed_by_its_module(name, module, tmp_path,
                                                                     capsys) -> None:  # fmt: skip
    rag = module(STATE)
    target = rag.decorated if name == "decorated" else rag.Builder.shared
    home = tmp_path / "home"
    assert asked(target, home) == (computed(), {"46 euros"})
    assert asked(target, home) == (replayed(), {"46 euros"})
    assert NEVER not in capsys.readouterr().err


SCRIPT = """
import json, sys
import ragaudit
sys.path.insert(0, {tests!r})
from test_api_cache_identity import DOCUMENTS, CASES

{factory}

calls = []
for version in (None, None, "1", "1"):
    results = ragaudit.mutate(DOCUMENTS, CASES, make, operators=["supersede"],
                              data_dir={home!r}, progress=False, version=version)
    calls.append(results.document["conditions"]["calls"])
print(json.dumps(calls))
"""


def test_a_script_run_as_main_is_never_replayed_without_version(tmp_path) -> None:
    """A real `__main__` (python reading a script from stdin, as a kernel runs a cell)."""
    home = tmp_path / "home"
    script = SCRIPT.format(tests=str(Path(__file__).parent), factory=source("46 euros"),
                           home=str(home))  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
    done = subprocess.run([sys.executable, "-"], input=textwrap.dedent(script), text=True,
                          capture_output=True, env=env, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [computed(), computed(), computed(), replayed()]
    assert done.stderr.count("python:__main__.make has no source file") == 2


NOTEBOOK_CELLS = [
    "import json, sys\nsys.path.insert(0, {tests!r})\nimport ragaudit\n"
    "from test_api_cache_identity import DOCUMENTS, CASES\ncalls = []",
    "{factory}",
    "def audit(version=None):\n"
    "    results = ragaudit.mutate(DOCUMENTS, CASES, make, operators=['supersede'],\n"
    "                              data_dir={home!r}, progress=False, version=version)\n"
    "    calls.append(results.document['conditions']['calls'])\n"
    "audit(); audit()",
    "{edited}",
    "audit(); audit('1'); audit('1')\nprint(json.dumps(calls))",
]


@pytest.mark.slow(model=False)  # a Jupyter kernel started: about 10 s
def test_a_notebook_cell_edited_is_asked_again(tmp_path) -> None:
    """A real notebook, run by a Jupyter kernel: the factory's cell, run twice, then edited
    and run again, asks every time; with version= it replays."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    values = {"tests": str(Path(__file__).parent), "home": str(tmp_path / "home"),
              "factory": source("46 euros"), "edited": source("forty-six euros")}  # fmt: skip
    cells = [nbformat.v4.new_code_cell(cell.format(**values)) for cell in NOTEBOOK_CELLS]
    notebook = nbformat.v4.new_notebook(cells=cells)
    nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3").execute()
    last = notebook.cells[-1].outputs
    printed = "".join(o.get("text", "") for o in last if o.get("name") == "stdout")
    assert json.loads(printed) == [computed(), computed(), computed(), computed(), replayed()]
    said = "".join(o.get("text", "") for c in notebook.cells for o in c.outputs
                   if o.get("name") == "stderr")  # fmt: skip
    assert said.count("python:__main__.make has no source file") == 3
