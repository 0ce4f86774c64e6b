"""The call cache's tables, the one migration between their versions, and the checks a cache
passes before it is used.

Version 2 (this one) beside version 1's `calls (key, model, kind, value, created_at)`:
- `calls.identity`: the sha256 of what computed the call (the `identities` row says what
  it is: for a model its backend, name, digest and server; a user pipeline later keys its
  factory's source, or its URL and body template, and a user-set `version:`). NULL for a
  row stored before version 2.
- `calls.seconds`: how long the call took when computed (a batch's time shared among its
  texts), so a dry run can estimate a run's time; NULL when unknown.
- `digests` keyed by server too (`server`, '' when the backend has none): a server that
  lists no digest never falls back on another server's.

A version-1 file is migrated once, in one transaction, saying so in one line on stderr;
its rows keep their keys and values. A file that holds vectors of two lengths for one
model is refused at open in one line (it would fail every run that reads it).
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

from ragaudit.errors import RagauditError

SCHEMA_VERSION = 2
BASE_COLUMNS = {"key", "model", "kind", "value", "created_at"}
CALLS = (
    "CREATE TABLE calls (key TEXT PRIMARY KEY, model TEXT NOT NULL, kind TEXT NOT NULL, "
    "value BLOB NOT NULL, created_at REAL NOT NULL, identity TEXT, seconds REAL)"
)
IDENTITIES = (
    "CREATE TABLE IF NOT EXISTS identities (identity TEXT PRIMARY KEY, "
    "description TEXT NOT NULL, first_seen REAL NOT NULL)"
)
BY_IDENTITY = "CREATE INDEX IF NOT EXISTS calls_by_identity ON calls (identity)"
DIGESTS = (
    "CREATE TABLE IF NOT EXISTS digests (backend TEXT NOT NULL, model TEXT NOT NULL, "
    "server TEXT NOT NULL DEFAULT '', digest TEXT NOT NULL, seen_at REAL NOT NULL, "
    "PRIMARY KEY (backend, model, server))"
)


def create(conn: sqlite3.Connection, tables: set[str]) -> None:
    """Make the tables a new cache lacks (in the caller's transaction)."""
    if "calls" not in tables:
        conn.execute(CALLS)
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    conn.execute(IDENTITIES)
    conn.execute(DIGESTS)
    conn.execute(BY_IDENTITY)


def migrate(conn: sqlite3.Connection, path: Path, version: int) -> None:
    """Bring a version-1 cache to SCHEMA_VERSION in one transaction, and say so (a second
    process opening it at the same time waits, then finds it migrated)."""
    if version != 1:
        raise sqlite3.DatabaseError(f"cache schema version {version}, expected {SCHEMA_VERSION}")
    conn.execute("BEGIN IMMEDIATE")
    try:
        if conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
            conn.rollback()
            return
        calls = conn.execute("SELECT COUNT(*) FROM calls").fetchone()[0]
        conn.execute("ALTER TABLE calls ADD COLUMN identity TEXT")
        conn.execute("ALTER TABLE calls ADD COLUMN seconds REAL")
        conn.execute(IDENTITIES)
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        if "digests" in tables:
            conn.execute("ALTER TABLE digests RENAME TO digests_v1")
            conn.execute(DIGESTS)
            conn.execute(
                "INSERT INTO digests (backend, model, server, digest, seen_at) "
                "SELECT backend, model, '', digest, seen_at FROM digests_v1"
            )
            conn.execute("DROP TABLE digests_v1")
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        conn.commit()
    except BaseException:
        conn.rollback()
        raise
    print(
        f"migrated the model-call cache {path} from version 1 to {SCHEMA_VERSION} once "
        f"({calls} stored calls kept; calls now record what computed them and how long "
        "they took)",
        file=sys.stderr,
    )


def check_dimensions(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a cache holding vectors of two lengths for one model (and one identity)."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(calls)")}
    identity = "identity" if "identity" in columns else "NULL"
    row = conn.execute(
        f"SELECT model, GROUP_CONCAT(DISTINCT length(value)) FROM calls "
        f"WHERE kind = 'embed' AND typeof(value) = 'blob' GROUP BY model, {identity} "
        "HAVING COUNT(DISTINCT length(value)) > 1 LIMIT 1"
    ).fetchone()
    if row is not None:
        model, lengths = row
        dimensions = sorted(int(size) // 4 for size in str(lengths).split(","))
        raise RagauditError(
            f"{path}: the cached vectors of {model} have {len(dimensions)} dimensions "
            f"({', '.join(map(str, dimensions))}); a cache with two for one model cannot be "
            "used: move it aside to start a fresh cache"
        )
