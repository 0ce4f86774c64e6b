"""An output never written over an input: `--out` (or `--junit`, `--out-md`) naming any file
a command reads is refused before anything is read further or written, whether it names
the input by another path, through a symlink, or as a hard link of it. Shared by export,
report, compare, drift and harness-check."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ragaudit.errors import RagauditError


def same_file(one: Path, other: Path) -> bool:
    """True when the two paths are one file: the same path once symlinks and `..` are
    resolved, or two names of one inode (a hard link)."""
    try:
        if os.path.realpath(one) == os.path.realpath(other):
            return True
        return one.exists() and other.exists() and os.path.samefile(one, other)
    except (OSError, ValueError):  # unreadable, or a name holding a NUL: not provably one
        return False


def refuse_input_as_output(
    targets: Iterable[tuple[str, Path]], inputs: Iterable[tuple[str, Path]]
) -> None:
    """Raise one line for the first (flag, file written) that is one of the (what, file
    read) inputs; nothing has been written when it is raised."""
    read = list(inputs)
    for flag, target in targets:
        for what, source in read:
            if same_file(target, source):
                raise RagauditError(
                    f"{flag} {target}: is the {what} {source}; writing it would replace the "
                    "input, so nothing was written (name another file)"
                )
