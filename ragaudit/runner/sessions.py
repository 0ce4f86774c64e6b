"""The computing sessions of one run: a ledger beside its results file, so a run resumed
across sessions records the wall time it computed for, summed.

A resumed run replays what its killed sessions computed, and a replay makes one session's
clock say nothing about the work (runner.conditions withholds it). The ledger,
`<results>.sessions.json` (``latest.json`` -> ``latest.sessions.json``), lists each session
of the run: when it started and ended, the calls it computed and replayed, and the
contention it saw. A session that was killed never wrote its end: its end and its computed
calls are read back from the call cache (the calls stored from its start to the next
session's start, and when the last of them was), so it counts the time up to its last
stored call and no more. The ledger starts afresh when the run before it finished or was
another plan (other presets, models, configs or probes).
"""

from __future__ import annotations

import hashlib
import time
from datetime import UTC, datetime
from pathlib import Path

from ragaudit.backends.cache import CallCache
from ragaudit.errors import RagauditError
from ragaudit.fileio import write_json_atomic
from ragaudit.results.io import DocumentKind, load_document
from ragaudit.runner.plan import RunPlan

LEDGER = DocumentKind("sessions ledger", 1, ("plan", "sessions"), "ragaudit run", "sessions")


def ledger_path(out: str | Path) -> Path:
    """The ledger of the run writing `out`: ``latest.json`` -> ``latest.sessions.json``."""
    out = Path(out)
    return out.with_name(f"{out.name.removesuffix('.json')}.sessions.json")


def plan_fingerprint(plan: RunPlan) -> str:
    """What makes two runs the same run: every plan value that changes what is computed
    (not the output path, the command line, workers or the executor)."""
    same = (
        plan.preset, plan.n, plan.embedders, plan.secondary_probes, plan.generate,
        plan.generator, plan.gen_configs, plan.gen_probes, plan.max_tokens, plan.configs,
        tuple(stack.name for stack in plan.stacks),
    )  # fmt: skip
    return hashlib.sha256(repr(same).encode()).hexdigest()


class SessionLedger:
    """This session's entry in the run's ledger, appended to an unfinished run's sessions
    of the same plan (a resume) or to none."""

    def __init__(self, path: Path, fingerprint: str) -> None:
        self.path, self.fingerprint = path, fingerprint
        now = time.time()
        self.current = {"started_at": now, "ended_at": now, "computed": 0, "replayed": 0}
        self.current |= {"contention": 0, "finished": False}
        self.earlier = self._unfinished_sessions()
        self._write()

    @classmethod
    def for_plan(cls, plan: RunPlan) -> SessionLedger:
        """The ledger of the run `plan` describes, this session just started in it."""
        return cls(ledger_path(plan.out), plan_fingerprint(plan))

    def _unfinished_sessions(self) -> list[dict]:
        if not self.path.exists():
            return []
        try:
            ledger = load_document(self.path, LEDGER)
        except RagauditError:  # unreadable: this session starts the ledger afresh
            return []
        sessions = ledger["sessions"]
        if ledger["plan"] != self.fingerprint or not _well_formed(sessions):
            return []
        return [] if sessions[-1]["finished"] else sessions

    def _write(self) -> None:
        sessions = [*self.earlier, self.current]
        write_json_atomic(
            self.path,
            {"kind": LEDGER.kind, "schema_version": LEDGER.schema_version}
            | {"plan": self.fingerprint, "sessions": sessions},
        )

    def update(self, cache: CallCache, contention: int, *, finished: bool) -> None:
        """Record this session's calls, contention seen and end so far."""
        stats = cache.stats()
        self.current.update(
            ended_at=time.time(), computed=stats["computed"], replayed=stats["replayed"]
        )
        self.current.update(contention=contention, finished=finished)
        if finished:  # nothing left to resume: the next run of the plan starts afresh
            self.path.unlink(missing_ok=True)
            return
        self._write()

    def earlier_sessions(self, cache: CallCache) -> list[dict]:
        """The run's earlier (killed) sessions, each with its `seconds` and the calls it
        `computed` as the cache holds them (stored from its start to the next one's)."""
        sessions = []
        following = [*self.earlier[1:], self.current]  # one longer when there are none
        for session, after in zip(self.earlier, following, strict=False):
            start = session["started_at"]
            computed, last_stored = cache.stored_between(start, after["started_at"])
            seconds = max(session["ended_at"], last_stored or 0.0) - start
            sessions.append({**session, "computed": computed, "seconds": seconds})
        return sessions


_SESSION_NUMBERS = ("started_at", "ended_at", "computed", "replayed", "contention")


def _well_formed(sessions: object) -> bool:
    """A list of sessions as this module writes them (a hand-edited one starts afresh)."""
    return (
        isinstance(sessions, list)
        and bool(sessions)
        and all(
            isinstance(s, dict)
            and all(isinstance(s.get(k), int | float) for k in _SESSION_NUMBERS)
            and isinstance(s.get("finished"), bool)
            for s in sessions
        )
    )


def session_entry(session: dict) -> dict:
    """A session as the results file's `conditions.sessions` records it."""
    started = datetime.fromtimestamp(session["started_at"], UTC).replace(microsecond=0)
    return {
        "started_at": started.isoformat(),
        "seconds": round(session["seconds"], 1),
        "computed": session["computed"],
        "replayed": session["replayed"],
        "contention_seen": session["contention"],
    }
