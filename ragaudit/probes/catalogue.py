"""Every probe ragaudit knows, as lazy entries, and the lists a run derives from them.

A probe declares itself in its own module (`PROBE = Probe(...)`: layer, slot, whether it is
an answer probe, its diagnostics); this table only says where each one lives and in what
order runs, reports and the corpus list them; a plugin package adds its own through the
`ragaudit.probes` entry-point group (ragaudit.registry), listed after these. Nothing is
imported until a probe is asked for. To add a probe, see docs/extending.md.
"""

from __future__ import annotations

import functools

from ragaudit.errors import RagauditError
from ragaudit.probes.base import Probe
from ragaudit.registry import GROUPS, Registry

PROBES: dict[str, str] = {
    "control": "ragaudit.probes.control:PROBE",
    "boundary": "ragaudit.probes.boundary:PROBE",
    "distractor": "ragaudit.probes.distractor:PROBE",
    "multihop": "ragaudit.probes.multihop:PROBE",
    "superseded": "ragaudit.probes.superseded:PROBE",
    "summarisation": "ragaudit.probes.summarisation:PROBE",
    "table_split": "ragaudit.probes.table_split:PROBE",
    "duplicate_crowding": "ragaudit.probes.duplicate_crowding:PROBE",
    "unanswerable": "ragaudit.probes.unanswerable:PROBE",
    "paraphrase": "ragaudit.probes.paraphrase:PROBE",
    "negation": "ragaudit.probes.negation:PROBE",
}
"""Probe name -> ``"module:attribute"`` of its declaration, in probe order."""

PLANTED = "planted"
"""The family whose probes build the generated corpus."""


def probe_registry(entries: dict[str, str] | None = None) -> Registry[Probe]:
    """A fresh registry of `entries` (default: PROBES and the probes plugins declare in the
    `ragaudit.probes` entry-point group), lazy until a probe is asked for."""
    registry: Registry[Probe] = Registry("probe", GROUPS["probe"] if entries is None else None)
    for name, target in (PROBES if entries is None else entries).items():
        registry.add_lazy(name, target)
    return registry


def declared(registry: Registry[Probe]) -> list[Probe]:
    """Every probe of `registry`, imported and checked: each declares the name it is
    registered under, and no two share a code slot (their codes would collide)."""
    probes = registry.items()
    slots: dict[int, str] = {}
    for name, probe in zip(registry.names(), probes, strict=True):
        if probe.name != name:
            raise RagauditError(f"probe registered as {name!r} declares the name {probe.name!r}")
        if probe.slot is not None:
            if probe.slot in slots:
                raise RagauditError(
                    f"probes {slots[probe.slot]!r} and {name!r} both take code slot {probe.slot}"
                )
            slots[probe.slot] = name
    return probes


def planted(registry: Registry[Probe]) -> list[Probe]:
    """The probes of `registry` that build the generated corpus, in probe order."""
    return [probe for probe in declared(registry) if probe.family == PLANTED]


@functools.cache
def shipped() -> tuple[Probe, ...]:
    """The planted probes: PROBES and any a plugin adds, imported once per process."""
    return tuple(planted(probe_registry()))


def answer_probes(probes: tuple[Probe, ...] | list[Probe]) -> tuple[str, ...]:
    """The answer probes among `probes`, by name, in their declared `answer_position`."""
    answering = sorted((p.answer_position, p.name) for p in probes if p.answers)
    return tuple(name for _, name in answering)


def certifying_probes(probes: tuple[Probe, ...] | list[Probe]) -> tuple[str, ...]:
    """The control and embedding-layer probes among `probes`, in probe order: a second
    embedder that runs these has its controls and its own layer's faults measured."""
    return tuple(p.name for p in probes if p.layer in ("control", "embedding"))


def slots(probes: tuple[Probe, ...] | list[Probe]) -> dict[str, int]:
    """Probe name -> its code slot, for the probes that draw section codes."""
    return {probe.name: probe.slot for probe in probes if probe.slot is not None}
