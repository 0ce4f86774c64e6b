"""The one model-call cache: SQLite in WAL mode, one row per call, committed as it completes.

Why SQLite WAL: a run writes while the Streamlit inspector reads, and a `kill -9` must lose
at most the call in flight. Each stored call is keyed by the sha256 of (backend, model,
digest, kind, params, input), and by the server for a backend whose model names are the
server's own (`server`), so a changed model digest, parameter or server is a fresh call.
Each row also records what computed it and how long that took (cache_schema.py, which also
migrates an older file once).

Counts (replayed / computed / failed) belong to this object, i.e. to one run
(backends.call_counts); the stored calls persist across runs.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ragaudit import paths
from ragaudit.backends import cache_schema
from ragaudit.backends.cache_schema import SCHEMA_VERSION
from ragaudit.backends.call_counts import CallCounting
from ragaudit.errors import RagauditError

__all__ = ["SCHEMA_VERSION", "CallCache", "cache_error", "call_key", "identity_key"]
_LOOKUP_CHUNK = 500  # stays under SQLite's bound-parameter limit
# A stored value that is not a BLOB (a row edited by hand) is a miss: recomputed and
# replaced, never handed to a backend to decode.
_A_BLOB = "AND typeof(value) = 'blob'"


def call_key(
    backend: str,
    model: str,
    digest: str,
    kind: str,
    params: dict,
    payload: object,
    server: str | None = None,
) -> str:
    """The sha256 that identifies one model call; equal inputs give equal keys. `server`
    (None: not keyed, as before version 2) keys the calls of a backend whose model names
    and digests are a server's own."""
    call = {
        "backend": backend,
        "model": model,
        "digest": digest,
        "kind": kind,
        "params": params,
        "input": payload,
    }
    if server is not None:
        call["server"] = server
    return _sha256(call)


def identity_key(description: dict) -> str:
    """The sha256 of what computes calls (a model's backend, name, digest, server; a
    pipeline's source or template and version): the `identity` its rows record."""
    return _sha256(description)


def _sha256(value: object) -> str:
    blob = json.dumps(
        value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class CallCache(CallCounting):
    """Stored model calls plus this run's replayed / computed / failed counts.

    `path=None` uses `paths.cache_path()`. A file that is not a readable ragaudit cache
    raises RagauditError naming it and is left untouched (never overwritten).
    Thread-safe: one connection guarded by a lock.
    """

    def __init__(
        self, path: str | Path | None = None, *, readonly: bool = False, timeout: float = 30.0
    ) -> None:
        self.path = Path(path) if path is not None else paths.cache_path()
        self.readonly = readonly
        self.timeout = timeout
        """Seconds to wait for another process's lock before reporting the cache busy."""
        super().__init__()  # the counts, and the lock that guards them and the connection
        self._conn = self._open()

    # -- opening -------------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        if self.readonly and not self.path.exists():
            raise RagauditError(f"{self.path}: no model-call cache here")
        try:
            if self.readonly:
                uri = f"file:{self.path}?mode=ro"
                conn = sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=self.timeout)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(
                    str(self.path), check_same_thread=False, timeout=self.timeout
                )
        except OSError as error:
            raise RagauditError(
                f"{self.path}: cannot open the model-call cache ({error.strerror})"
            ) from None
        except sqlite3.Error as error:
            raise cache_error(self.path, error) from None
        try:
            self._check_or_create(conn)
        except sqlite3.Error as error:
            conn.close()
            raise cache_error(self.path, error) from None
        return conn

    @contextmanager
    def _sqlite(self) -> Iterator[None]:
        """Hold the lock; a SQLite error becomes one line naming the file (cache_error)."""
        with self._lock:
            try:
                yield
            except sqlite3.Error as error:
                raise cache_error(self.path, error) from None

    def _check_or_create(self, conn: sqlite3.Connection) -> None:
        # Everything is read and checked before the first write, so a damaged file (a
        # non-SQLite file, a page overwritten mid-file, a truncation) is refused untouched
        # instead of failing mid-run after being written to. quick_check reads every page
        # (about 0.1 s for 80 MB); it checks structure, not the bytes of a stored value.
        problems = [row[0] for row in conn.execute("PRAGMA quick_check").fetchall()]
        if problems != ["ok"]:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise sqlite3.DatabaseError(f"damaged: {' '.join(problems[0].split())}{more}")
        tables = {
            row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if "calls" in tables:
            columns = {row[1] for row in conn.execute("PRAGMA table_info(calls)")}
            if not cache_schema.BASE_COLUMNS <= columns:
                raise sqlite3.DatabaseError(f"table 'calls' has columns {sorted(columns)}")
            if version not in (1, SCHEMA_VERSION):
                raise sqlite3.DatabaseError(
                    f"cache schema version {version}, expected {SCHEMA_VERSION}"
                )
            cache_schema.check_dimensions(conn, self.path)
        elif tables - {"digests", "identities"}:
            raise sqlite3.DatabaseError(f"unexpected tables {sorted(tables)}")
        if self.readonly:
            return  # a reader of a version-1 file reads it as it is
        conn.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode: a committed call survives a process kill (not a power cut).
        conn.execute("PRAGMA synchronous=NORMAL")
        if "calls" in tables and version != SCHEMA_VERSION:
            cache_schema.migrate(conn, self.path, version)
        # The last digest seen per remote model and server: lets a run replay after the
        # model (or server) is gone, while the results still say it was unavailable.
        cache_schema.create(conn, tables)
        conn.commit()

    def close(self) -> None:
        """Close the connection (stored calls are already committed)."""
        with self._lock:
            self._conn.close()

    # -- stored calls --------------------------------------------------------------------

    def get(self, key: str) -> bytes | None:
        """The stored value for one call key, or None."""
        with self._sqlite():
            row = self._conn.execute(f"SELECT value FROM calls WHERE key=? {_A_BLOB}", (key,))
            row = row.fetchone()
        return None if row is None else bytes(row[0])

    def get_many(self, keys: list[str]) -> dict[str, bytes]:
        """Stored values for the keys that have one."""
        found: dict[str, bytes] = {}
        unique = list(dict.fromkeys(keys))
        with self._sqlite():
            for start in range(0, len(unique), _LOOKUP_CHUNK):
                chunk = unique[start : start + _LOOKUP_CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = self._conn.execute(
                    f"SELECT key, value FROM calls WHERE key IN ({marks}) {_A_BLOB}", chunk
                ).fetchall()
                found.update((key, bytes(value)) for key, value in rows)
        return found

    def put_many(
        self,
        model: str,
        kind: str,
        items: list[tuple[str, bytes]],
        *,
        identity: str | None = None,
        seconds: float | None = None,
    ) -> None:
        """Store computed calls and commit at once (a kill loses only what is in flight).
        `identity`: what computed them (remember_identity); `seconds`: each one's time."""
        if self.readonly:
            raise RagauditError(f"{self.path}: opened read-only, cannot store calls")
        now = time.time()
        with self._sqlite():
            self._conn.executemany(
                "INSERT OR REPLACE INTO calls (key, model, kind, value, created_at, identity, "
                "seconds) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(key, model, kind, value, now, identity, seconds) for key, value in items],
            )
            self._conn.commit()

    def put(
        self,
        model: str,
        kind: str,
        key: str,
        value: bytes,
        *,
        identity: str | None = None,
        seconds: float | None = None,
    ) -> None:
        """Store one computed call and commit."""
        self.put_many(model, kind, [(key, value)], identity=identity, seconds=seconds)

    def remember_identity(self, description: dict) -> str:
        """Record what computes calls (no secret belongs in it) and return its identity."""
        identity = identity_key(description)
        if self.readonly:
            return identity
        text = json.dumps(description, sort_keys=True, ensure_ascii=False)
        with self._sqlite():
            self._conn.execute(
                "INSERT OR IGNORE INTO identities (identity, description, first_seen) "
                "VALUES (?, ?, ?)",
                (identity, text, time.time()),
            )
            self._conn.commit()
        return identity

    def stored_dimensions(self, identity: str) -> int | None:
        """The length of the vectors stored for `identity`, or None when it has none."""
        with self._sqlite():
            try:
                row = self._conn.execute(
                    f"SELECT length(value) FROM calls WHERE identity=? AND kind='embed' "
                    f"{_A_BLOB} LIMIT 1",
                    (identity,),
                ).fetchone()
            except sqlite3.OperationalError:  # read-only view of a version-1 cache
                return None
        return None if row is None else int(row[0]) // 4

    def stored_calls(self) -> int:
        """How many calls the file holds (all runs)."""
        with self._sqlite():
            return int(self._conn.execute("SELECT COUNT(*) FROM calls").fetchone()[0])

    def recorded_seconds(
        self, *, identity: str | None = None, model: str | None = None
    ) -> tuple[int, float | None]:
        """How many stored calls of `identity` (else of `model`) recorded their time, and
        their mean seconds (None when none did): what a dry run estimates time from."""
        column, value = ("identity", identity) if identity is not None else ("model", model)
        with self._sqlite():
            count, mean = self._conn.execute(
                f"SELECT COUNT(*), AVG(seconds) FROM calls WHERE {column} = ? "
                "AND seconds IS NOT NULL",
                (value,),
            ).fetchone()
        return int(count), mean

    def latest_identity(self, model: str, kind: str) -> tuple[int, dict | None]:
        """How many calls of `model` and `kind` the file stores, and the description of
        what computed the latest of them (None: none stored, or they predate identities):
        how a dry run rebuilds their keys without loading the model."""
        latest = (
            "SELECT i.description FROM calls c JOIN identities i ON i.identity = c.identity "
            "WHERE c.model = ? AND c.kind = ? ORDER BY c.created_at DESC LIMIT 1"
        )
        with self._sqlite():
            try:
                stored = self._conn.execute(
                    "SELECT COUNT(*) FROM calls WHERE model = ? AND kind = ?", (model, kind)
                ).fetchone()[0]
            except sqlite3.OperationalError:  # read-only view of a file with no calls yet
                return 0, None
            try:
                row = self._conn.execute(latest, (model, kind)).fetchone()
            except sqlite3.OperationalError:  # read-only view of a version-1 cache
                row = None
        return int(stored), json.loads(row[0]) if row is not None else None

    def stored_between(self, start: float, end: float) -> tuple[int, float | None]:
        """How many calls were stored at `start` <= created_at < `end` (epoch seconds), and
        when the last of them was: what a killed session computed, read after it died."""
        with self._sqlite():
            count, last = self._conn.execute(
                "SELECT COUNT(*), MAX(created_at) FROM calls WHERE created_at >= ? "
                "AND created_at < ?",
                (start, end),
            ).fetchone()
        return int(count), last

    def remember_digest(self, backend: str, model: str, digest: str, server: str = "") -> None:
        """Record the digest a server reported for a model (skipped when read-only)."""
        if self.readonly:
            return
        with self._sqlite():
            self._conn.execute(
                "INSERT OR REPLACE INTO digests (backend, model, server, digest, seen_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (backend, model, server, digest, time.time()),
            )
            self._conn.commit()

    def last_digest(self, backend: str, model: str, server: str = "") -> str | None:
        """The digest last reported for a model by `server`, or None."""
        with self._sqlite():
            try:
                row = self._conn.execute(
                    "SELECT digest FROM digests WHERE backend=? AND model=? AND server=?",
                    (backend, model, server),
                ).fetchone()
            except sqlite3.OperationalError:  # read-only view of a cache without the table
                return None
        return None if row is None else row[0]


def cache_error(path: Path, error: sqlite3.Error) -> RagauditError:
    """One line for a SQLite error on the cache at `path`. Only a damaged file is worth
    moving aside; a busy one (another process is writing it) or one that cannot be opened
    (permissions, a full disk) is fine as it is, and the message says so."""
    text = " ".join(str(error).split())
    if isinstance(error, sqlite3.OperationalError):
        if "locked" in text or "busy" in text:
            return RagauditError(
                f"{path}: the model-call cache is busy ({text}): another process is writing "
                "it; the cache is fine, rerun when that process has finished"
            )
        return RagauditError(f"{path}: cannot use the model-call cache ({text})")
    return RagauditError(
        f"{path}: not a readable ragaudit model-call cache ({text}); it was left untouched: "
        "move it aside to start a fresh cache"
    )
