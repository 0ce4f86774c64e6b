"""Run presets: how many instances per probe, and the defaults a plain `ragaudit run` uses.

"The originating study" below is the write-up this project reproduces (docs/configs.md)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cache

from ragaudit.stack.configs import MATRIX, OUTSIDE_MATRIX, T4000, StackConfig


@dataclass(frozen=True)
class Preset:
    """A named run size."""

    name: str
    """``quick``, ``reference`` or ``full``."""
    n: int
    """Instances per probe (the corpus is subset to this many)."""
    description: str
    generator: str
    """The generator spec used unless --generator names another."""
    gen_configs: tuple[str, ...]
    """Configs whose retrieved context is sent to the generator."""
    answer_probes_only: bool
    """Generate for the answer probes only (answer_probe_names); False: every probe."""
    max_tokens: int
    """Reply length cap: a reply is an answer and its citations, not an essay."""
    extra_configs: tuple[StackConfig, ...] = OUTSIDE_MATRIX
    """Configs run beside the matrix, each on its own probes (T4000: table_split)."""

    @property
    def configs(self) -> tuple[StackConfig, ...]:
        """The matrix A…M, then the configs outside it."""
        return (*MATRIX, *self.extra_configs)

    @property
    def gen_probes(self) -> tuple[str, ...] | None:
        """Probes generated for; None means every probe."""
        return answer_probe_names() if self.answer_probes_only else None


@cache
def answer_probe_names() -> tuple[str, ...]:
    """The probes the originating study generated answers for: each has a value, a list or
    an abstention to grade (each declares its `answer_position` on its Probe). Read from the
    probe catalogue (plugins' probes too) on first use, once a process."""
    from ragaudit.probes.catalogue import answer_probes, shipped

    return answer_probes(shipped())


@cache
def secondary_probe_names() -> tuple[str, ...]:
    """The probes the secondary embedder runs at least (the control and embedding-layer
    probes: control, paraphrase, negation), so its controls certify it. Read on first use."""
    from ragaudit.probes.catalogue import certifying_probes, shipped

    return certifying_probes(shipped())


# Prompt evaluation dominates on 2 CPU cores (~7 s for a k=3 prompt, ~15 s for k=8 on the
# 0.5B model), so the quick preset generates on one k=3 and one k=8 config, for the answer
# probes, on the small model: 70 prompts, within 15 minutes here. T4000 adds 5 prompts of
# three whole documents each (~30 s apiece): table_split at 4000 characters, the originating
# study's check.
QUICK = Preset(
    "quick",
    5,
    "n=5 per probe: a first look in minutes",
    generator="local:qwen2.5-0.5b",
    gen_configs=("B", "C", T4000.name),
    answer_probes_only=True,
    max_tokens=96,
)
FULL = Preset(
    "full",
    25,
    "n=25 per probe: the originating study's run size",
    generator="local:qwen2.5-1.5b",
    gen_configs=("A", "B", "C", "M", T4000.name),
    answer_probes_only=False,
    max_tokens=160,
)

# The originating study's generation scope (A, B, C, M x the seven answer probes x 25 = 700
# records, plus T4000's 25 table_split records, each with its oracle prompt) on the 1.5B
# model: the 0.5B abstains on every negation prompt and answers most unanswerable ones, so at
# this scale its failures would be the generator's rather than the stack's. The shipped
# reference run is this preset's.
REFERENCE = Preset(
    "reference",
    25,
    "n=25 per probe, generation on the originating study's scope: the shipped reference run",
    generator="local:qwen2.5-1.5b",
    gen_configs=("A", "B", "C", "M", T4000.name),
    answer_probes_only=True,
    max_tokens=FULL.max_tokens,
)
PRESETS = {preset.name: preset for preset in (QUICK, REFERENCE, FULL)}
"""Every preset by name, as `ragaudit run --preset NAME` chooses it."""

DEPRECATED_NAMES = {"seed": REFERENCE.name}
"""Old preset names still accepted: `seed` was the reference preset's name until the word
was kept for random seeds."""


def preset_name(name: str) -> str:
    """`name` as --preset reads it: a deprecated name becomes its preset's, saying so in
    one line on stderr (argparse then checks the result against PRESETS)."""
    if name in DEPRECATED_NAMES:
        new = DEPRECATED_NAMES[name]
        print(f"ragaudit: --preset {name} is deprecated; running --preset {new}", file=sys.stderr)
        return new
    return name


def chosen(name: str | None, *, quick: bool = False) -> Preset:
    """The preset a command line names: --preset NAME, else --quick, else full."""
    if name is not None:
        return PRESETS[name]
    return QUICK if quick else FULL


PRIMARY_EMBEDDER = "local:minilm"
SECONDARY_EMBEDDER = "local:e5-small"

_READ_ON_FIRST_USE = {
    "ANSWER_PROBES": answer_probe_names,
    "SECONDARY_PROBES": secondary_probe_names,
}
"""The module's former constants, now built when first read: `presets.ANSWER_PROBES` and
`from ragaudit.stack.presets import SECONDARY_PROBES` still work."""


def __getattr__(name: str) -> tuple[str, ...]:
    """A former constant (_READ_ON_FIRST_USE), built when read (PEP 562)."""
    if name in _READ_ON_FIRST_USE:
        return _READ_ON_FIRST_USE[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
