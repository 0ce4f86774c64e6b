"""The operators `ragaudit mutate` knows, on one registry: each declared beside its probe
declaration (`module:OPERATOR`, whose `probe` is of the `mutation` family), plus any a plugin
adds through the `ragaudit.operators` entry-point group; and the control row."""

from __future__ import annotations

from collections.abc import Sequence

from ragaudit.errors import RagauditError
from ragaudit.mutation.operator import Operator, declare
from ragaudit.probes.base import Probe
from ragaudit.registry import GROUPS, Registry, unknown_name_message

OPERATORS: dict[str, str] = {
    "remove_answer": "ragaudit.mutation.remove:OPERATOR",
    "supersede": "ragaudit.mutation.supersede:OPERATOR",
    "near_duplicate": "ragaudit.mutation.near_duplicate:OPERATOR",
    "boundary": "ragaudit.mutation.boundary:OPERATOR",
    "dilute": "ragaudit.mutation.dilute:OPERATOR",
    "table_split": "ragaudit.mutation.table_split:OPERATOR",
}
"""Operator name -> ``"module:OPERATOR"``, in operator order. A registry of its own, not the
probe catalogue's, since two operators share a planted probe's name; the planted corpus
never builds them (their probes' family is `mutation`)."""

CONTROL = "control"
CONTROL_PROBE: Probe = declare(CONTROL, "the unmutated cases: they certify the rest", "control")


def operator_registry() -> Registry[Operator]:
    """A fresh registry of OPERATORS and the plugins' operators (nothing imported yet)."""
    registry: Registry[Operator] = Registry("operator", GROUPS["operator"])
    for name, target in OPERATORS.items():
        registry.add_lazy(name, target)
    return registry


def operator_names() -> list[str]:
    """Every operator, in operator order (nothing imported)."""
    return operator_registry().names()


def operators(names: Sequence[str] | None = None) -> list[Operator]:
    """The operators named (default: all), in operator order; an unknown name is one line
    naming the valid ones. Each must declare the name it is registered under, with a probe
    of that name in the `mutation` family."""
    registry = operator_registry()
    known = registry.names()
    for name in names or ():
        if name not in known:
            raise RagauditError(f"--operators: {unknown_name_message('operator', name, known)}")
    chosen = []
    for name in [n for n in known if names is None or n in names]:
        operator = registry.get(name)
        probe = getattr(operator, "probe", None)
        if getattr(operator, "name", None) != name or getattr(probe, "name", None) != name:
            raise RagauditError(f"operator {name!r} ({registry.origin(name)}) declares another")
        if probe.family != "mutation":
            raise RagauditError(f"operator {name!r}: its probe's family is {probe.family!r}")
        chosen.append(operator)
    return chosen
