"""`python -m benchmarks.install_size`: what `pip install ragaudit` puts on disk, and
each extra on top of it, read from the installed distributions' own file lists (so it
measures this environment's wheels, not a guess).

The core is the closure of ragaudit's unconditional requirements; an extra's figure is the
closure of its requirements minus what the core already holds. Before the local generator
became the `[local]` extra, the core held it too: that sum is printed as the baseline."""

from __future__ import annotations

import argparse
import importlib.metadata as metadata
import os
import re

from packaging.requirements import Requirement

MIB = 2**20


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


UNREAD: list[str] = []
"""Files a distribution lists that are not on disk (a pyc never compiled), and requirements
not installed: counted and printed, so a figure never silently leaves anything out."""


def _size(dist: metadata.Distribution) -> int:
    total = 0
    for file in dist.files or []:
        path = dist.locate_file(file)
        if os.path.isfile(path):
            total += os.path.getsize(path)
        else:
            UNREAD.append(f"{dist.metadata['Name']}: {file}")
    return total


def closure(names: list[str]) -> dict[str, metadata.Distribution]:
    """The installed distributions `names` need, transitively (extras' markers left out)."""
    seen: dict[str, metadata.Distribution] = {}
    stack = list(names)
    while stack:
        name = stack.pop()
        if _key(name) in seen:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            UNREAD.append(f"{name}: not installed")
            continue
        seen[_key(name)] = dist
        for text in dist.requires or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                stack.append(requirement.name)
    return seen


def requirements() -> tuple[list[str], dict[str, list[str]]]:
    """ragaudit's unconditional requirements, and each extra's."""
    core: list[str] = []
    extras: dict[str, list[str]] = {}
    for text in metadata.distribution("ragaudit").requires or []:
        requirement = Requirement(text)
        extra = re.search(r'extra == "([^"]+)"', str(requirement.marker or ""))
        if extra:
            extras.setdefault(extra.group(1), []).append(requirement.name)
        else:
            core.append(requirement.name)
    return core, extras


def main(argv: list[str] | None = None) -> int:
    """Print the core's size, each extra's on top of it, and the core with [local] inside."""
    argparse.ArgumentParser(prog="python -m benchmarks.install_size").parse_args(argv)
    names, extras = requirements()
    core = closure(names)
    core_bytes = sum(_size(dist) for dist in core.values())
    print(f"core (pip install ragaudit): {len(core)} distributions, {core_bytes / MIB:,.0f} MiB")
    for extra, wanted in sorted(extras.items()):
        more = {key: dist for key, dist in closure(wanted).items() if key not in core}
        extra_bytes = sum(_size(dist) for dist in more.values())
        line = f"[{extra}]: {len(more)} distributions, {extra_bytes / MIB:,.0f} MiB more"
        if extra == "local":
            whole = core_bytes + extra_bytes
            line += (
                f"; the core with it inside, as before it was an extra: {whole / MIB:,.0f} MiB"
                f" (the core now {core_bytes / whole:.0%} of that)"
            )
        print(line)
    missing = sorted(set(UNREAD))
    if missing:
        print(f"not counted: {len(missing)} listed files or requirements absent, e.g. {missing[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
