"""Identifiers that are unique across the whole corpus by construction.

Each identifier is the key (probe slot, instance index, which)-th element of a seeded
sample without replacement from its code space, so two instances never share an anchor
and no instance's code depends on which other probes were built. Codes of different
shapes never collide as tokens either: section numbers have four digits, team numbers
three (never a multiple of five), values two; store codes and asset ids are single
alphanumeric tokens ("Q7XK", "HX417") that no word-bounded number search can match inside.

Each probe declares its slot (`Probe.slot`); a new probe takes the next free one. The section
code space holds 9000 codes, 800 per slot: slot 11 still has codes for 200 instances.
"""

from __future__ import annotations

import functools
import random

LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no I or O: they read as digits

MAX_INSTANCES = 800


@functools.lru_cache(maxsize=32)
def _drawn(seed: int, kind: str, space: int, count: int) -> tuple[int, ...]:
    # A seeded sample without replacement: distinct values for keys 0..count-1.
    return tuple(random.Random(f"{seed}/codes/{kind}").sample(range(space), count))


def _unique(seed: int, kind: str, space: int, key: int, keys: int) -> int:
    if key >= keys:
        raise ValueError(f"at most {MAX_INSTANCES} instances per probe have unique codes")
    return _drawn(seed, kind, space, keys)[key]


def section_code(seed: int, slot: int, index: int, rng: random.Random) -> str:
    """A section code such as ``4417-B``: four unique digits and a letter, for instance
    `index` of the probe that declares code slot `slot` (its `Probe.slot`)."""
    number = 1000 + _unique(seed, "section", 9000, slot * MAX_INSTANCES + index, 9000)
    return f"{number}-{rng.choice(LETTERS)}"


def team_number(seed: int, index: int) -> int:
    """A three-digit team number, unique per instance, never a multiple of five."""
    candidates = [n for n in range(101, 1000) if n % 5]  # 719 numbers
    return candidates[_unique(seed, "team", len(candidates), index, len(candidates))]


def store_code(seed: int, index: int, which: int) -> str:
    """An opaque four-character store code such as ``Q7XK`` (letter, digit, letter, letter)."""
    space = len(LETTERS) * 8 * len(LETTERS) * len(LETTERS)
    value = _unique(seed, "store", space, index * 2 + which, MAX_INSTANCES * 2)
    a, rest = divmod(value, 8 * len(LETTERS) ** 2)
    digit, rest = divmod(rest, len(LETTERS) ** 2)
    b, c = divmod(rest, len(LETTERS))
    return f"{LETTERS[a]}{digit + 2}{LETTERS[b]}{LETTERS[c]}"


def asset_id(seed: int, index: int, row: int) -> str:
    """An asset id such as ``HX417``: two letters and three digits, unique per table row."""
    space = len(LETTERS) ** 2 * 900
    value = _unique(seed, "asset", space, index * 64 + row, MAX_INSTANCES * 64)
    letters, digits = divmod(value, 900)
    first, second = divmod(letters, len(LETTERS))
    return f"{LETTERS[first]}{LETTERS[second]}{digits + 100}"
