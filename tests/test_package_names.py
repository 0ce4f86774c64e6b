"""The library's verbs stay free: no package or module of ragaudit is named `run`, `mutate`,
`audit`, `gate`, `compare`, `load` or `cases`.

Python binds a subpackage to its parent's attribute when it is imported, so once (say)
`ragaudit.mutate.runner` had been imported anywhere, `ragaudit.mutate` was that package
and no longer the function the library exports, whatever `__init__` said. The check imports
every module first, so any such binding has happened before it looks.
"""

from __future__ import annotations

import importlib
import pkgutil
import types

import ragaudit

VERBS = ("run", "mutate", "audit", "gate", "compare", "load", "cases")
"""The library's functions (issue 43): ragaudit.run, .mutate, .audit, .gate, .compare,
.load and .cases."""


def every_module() -> list[str]:
    """Every module of the package, by name (walked from the source, not from sys.modules);
    not `__main__` modules, which run their command when imported."""
    return [
        info.name
        for info in pkgutil.walk_packages(ragaudit.__path__, "ragaudit.")
        if "_shipped" not in info.name and not info.name.endswith("__main__")
    ]


def test_no_module_or_package_takes_a_verb_of_the_library():
    names = every_module()
    for name in names:
        importlib.import_module(name)
    assert len(names) > 300  # the walk reached the whole package, not an empty path
    taken = [verb for verb in VERBS if isinstance(getattr(ragaudit, verb, None), types.ModuleType)]
    assert taken == []
    assert [n for n in names if n.split(".")[1] in VERBS] == []


def test_the_check_sees_a_subpackage_bound_to_the_parent():
    # what the check relies on: importing a submodule binds it as the parent's attribute
    import ragaudit.runner.plan

    assert isinstance(ragaudit.runner, types.ModuleType)
    assert isinstance(getattr(ragaudit.runner, "plan", None), types.ModuleType)
