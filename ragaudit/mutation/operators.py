"""The operators `ragaudit mutate` knows: the mutation family of the probe catalogue, each
operator found beside its probe declaration (`module:OPERATOR`), and the control row."""

from __future__ import annotations

from collections.abc import Sequence

from ragaudit.errors import RagauditError
from ragaudit.mutation.operator import Operator, declare
from ragaudit.probes.base import Probe
from ragaudit.probes.catalogue import MUTATION_OPERATORS, declared, probe_registry
from ragaudit.registry import resolve, unknown_name_message

CONTROL = "control"
CONTROL_PROBE: Probe = declare(CONTROL, "the unmutated cases: they certify the rest", "control")


def operator_names() -> list[str]:
    """Every operator, in operator order (nothing imported)."""
    return list(MUTATION_OPERATORS)


def operators(names: Sequence[str] | None = None) -> list[Operator]:
    """The operators named (default: all), in operator order; an unknown name is one line
    naming the valid ones."""
    known = operator_names()
    for name in names or ():
        if name not in known:
            raise RagauditError(f"--operators: {unknown_name_message('operator', name, known)}")
    registry = probe_registry(MUTATION_OPERATORS)
    declared(registry)  # each declares the name it is listed under
    chosen = [n for n in known if names is None or n in names]
    out = []
    for name in chosen:
        target = MUTATION_OPERATORS[name].rsplit(":", 1)[0] + ":OPERATOR"
        operator = resolve(target)
        if operator.name != name or operator.probe is not registry.get(name):
            raise RagauditError(f"operator {name!r}: {target} declares another operator")
        out.append(operator)
    return out
