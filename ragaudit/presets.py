"""Run presets: how many instances per probe, and the defaults a plain `ragaudit run` uses."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Preset:
    """A named run size."""

    name: str
    """``quick`` or ``full``."""
    n: int
    """Instances per probe (the corpus is subset to this many)."""
    description: str


QUICK = Preset("quick", 5, "n=5 per probe: a first look in minutes")
FULL = Preset("full", 25, "n=25 per probe: the seed's run size")

PRIMARY_EMBEDDER = "local:minilm"
SECONDARY_EMBEDDER = "local:e5-small"
DEFAULT_GENERATOR = "local:qwen2.5-1.5b"
SECONDARY_PROBES = ("control", "paraphrase", "negation")
"""The secondary embedder runs at least these, so its controls certify it."""
GEN_CONFIGS = ("A", "B", "C", "M")
