"""The layer order of ragaudit's packages, checked over the source's imports (`ast`).

Every import from one package (or top-level module) of ragaudit into another, at module
level or inside a function, must go down this list, never up it and never sideways within
a row. So no cycle of any length can form between packages, and a newcomer reads the
layering here rather than from a convention. The shape is the design's data flow:
plumbing, then the stages a run goes through, then the readers and the commands.
"""

from __future__ import annotations

import ast
from pathlib import Path

import ragaudit

PACKAGE = Path(ragaudit.__file__).parent

LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors",),  # the one exception type, and nothing else
    ("fileio",),  # bounded reads, atomic writes, JSON/YAML with lines
    (
        "paths",
        "registry",
        "documents",
        "values",
    ),  # values: the value shapes mining and mutate share
    ("codescan", "probes", "grading"),
    ("backends",),  # embedders, generators, the call cache, executors
    ("stack",),  # ragaudit's own RAG: chunking, configs, settings, index, retrieval, diagnostics
    ("corpus",),  # probes + filler assembled, written, read, measured
    ("targets",),  # what the user brings: stack files, components, splitter, retriever, pipeline
    ("results",),  # the results file's schema, io, view and formatter
    ("analysis",),  # cells, comparisons, detectability, severity, attribution
    ("judges",),  # LLM-judge metrics run through their libraries, scored against verdicts
    ("report",),
    ("runner",),  # the stage protocol, the stages, the orchestrator, the composition root
    ("auditing",),
    ("mutation",),  # planted faults in a user's corpus, through the audit's machinery
    ("casemining",),  # cases mined from the user's documents, phrased and verified
    ("drift", "harness", "comparison", "export"),
    ("gating",),  # the regression gate: comparison's pairing, tested and decided
    ("ui",),
    ("api",),  # the library's verbs and Results, over every package below
    ("cli", "testing"),  # argparse and printing only; the pytest plugin's assertions
    ("__main__", "__init__"),
)
"""Bottom first. A unit may import only units in rows above its own."""

RANK = {unit: row for row, units in enumerate(LAYERS) for unit in units}


def unit_of(module: str) -> str | None:
    """`ragaudit.stack.index` -> `stack`; None outside ragaudit."""
    parts = module.split(".")
    if parts[0] != "ragaudit":
        return None
    return parts[1] if len(parts) > 1 else "__init__"


def sources() -> dict[Path, str]:
    """Every module of the package, by its path relative to the package, with its text."""
    return {
        path.relative_to(PACKAGE): path.read_text(encoding="utf-8")
        for path in sorted(PACKAGE.rglob("*.py"))
        if "_shipped" not in path.parts
    }


def imports_of(relative: Path, text: str) -> list[tuple[int, str]]:
    """(line, absolute module) of every import in a module, function-level ones included."""
    module = ".".join(("ragaudit", *relative.with_suffix("").parts))
    package = module if relative.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            found.append((node.lineno, name))
            # `from ragaudit import paths` imports the unit `paths`
            found += [(node.lineno, f"{name}.{a.name}") for a in node.names if name == "ragaudit"]
    return found


def upward_imports(modules: dict[Path, str]) -> list[str]:
    """`file:line: what` for every import that does not go down the layers."""
    bad = []
    for relative, text in modules.items():
        path = Path("ragaudit") / relative
        source = unit_of(".".join(("ragaudit", *relative.with_suffix("").parts)))
        for line, name in imports_of(relative, text):
            target = unit_of(name)
            if target is None or target == source or name == "ragaudit":
                continue
            if source not in RANK or target not in RANK:
                bad.append(f"{path}:{line}: {name} (unit not in LAYERS)")
            elif RANK[target] >= RANK[source]:
                bad.append(f"{path}:{line}: {source} imports {name}")
    return bad


def test_every_import_between_packages_goes_down_the_layers():
    assert upward_imports(sources()) == []


def test_every_package_and_top_level_module_has_a_layer():
    units = {p.stem for p in PACKAGE.glob("*.py")} | {
        p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()
    }
    assert units - set(RANK) == set()


def test_the_check_sees_an_upward_import_a_sideways_one_and_a_relative_one():
    # The check is not vacuous: each of these is reported, from inside a function too.
    added = {
        Path("stack/_probe.py"): "def f():\n    from ragaudit.runner import plan\n",
        Path("drift/_probe.py"): "import ragaudit.harness.scan\n",
        Path("results/_probe.py"): "from ..analysis import cells\n",
        Path("backends/_probe.py"): "from ragaudit import paths, ui\n",
    }
    assert upward_imports(added) == [
        "ragaudit/stack/_probe.py:2: stack imports ragaudit.runner",
        "ragaudit/drift/_probe.py:1: drift imports ragaudit.harness.scan",
        "ragaudit/results/_probe.py:1: results imports ragaudit.analysis",
        "ragaudit/backends/_probe.py:1: backends imports ragaudit.ui",
    ]


CLI_ONLY = ("argparse",)
"""Modules only the commands import: parsing flags is the CLI's job, so a library function
takes typed inputs, never a Namespace."""
NOT_IN_CLI = ("sqlite3", "chromadb")
"""Stores the CLI never opens itself: what a store holds is read by the library (the call
cache's tables by backends.cache), so the CLI only parses and prints."""


def misplaced_imports(modules: dict[Path, str]) -> list[str]:
    """`file:line: what` for argparse below cli/, and a store opened in cli/."""
    bad = []
    for relative, text in modules.items():
        in_cli = relative.parts[0] == "cli"
        for line, name in imports_of(relative, text):
            root = name.split(".")[0]
            if (root in CLI_ONLY and not in_cli) or (root in NOT_IN_CLI and in_cli):
                bad.append(f"ragaudit/{relative}:{line}: {name}")
    return bad


def test_only_the_cli_parses_arguments_and_it_opens_no_store():
    assert misplaced_imports(sources()) == []


def test_the_placement_check_sees_argparse_below_the_cli_and_sqlite_in_it():
    added = {
        Path("runner/_probe.py"): "def f():\n    import argparse\n",
        Path("cli/_probe.py"): "import argparse\nimport sqlite3\n",
        Path("report/_probe.py"): "from argparse import Namespace\n",
    }
    assert misplaced_imports(added) == [
        "ragaudit/runner/_probe.py:2: argparse",
        "ragaudit/cli/_probe.py:2: sqlite3",
        "ragaudit/report/_probe.py:1: argparse",
    ]
