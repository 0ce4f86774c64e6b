"""How a `pipeline: http:` service gets the corpus, done once when the stage is built (before
any question): `ingest:` is
- `url:` an endpoint sent the documents in JSON batches, ``{"documents": [{id, text,
  metadata}]}`` (`batch` at a time), each request ended by a deadline of `timeout`
  seconds (headers and body: backends.deadline); any reply but 2xx (a redirect, named by
  its Location, is not followed) or no reply by the deadline is bad input naming the
  batch, so a dead or hung endpoint ends the run at its first batch;
- `command:` run over a folder the corpus is exported to (corpus.export, `format`), the
  folder's path in place of ``{folder}`` or appended; a non-zero exit is bad input;
- `none`: the service already holds the exported corpus. Nothing can show which documents
  it indexed, so the results file records the set as "asserted by the user", and compare
  and gate pair it only with the same assertion (comparison.agreement).
A refusal's line is redacted of the pipeline's header values: an endpoint's error body and
a command's stderr may echo the key.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ragaudit.backends.deadline import deadline_client
from ragaudit.corpus.export import export_documents, exported_document
from ragaudit.errors import RagauditError
from ragaudit.targets.pipeline.http_client import Redactors

ASSERTED = "asserted by the user"


def ingest(
    entry: Any, documents: Sequence[Any], label: str, headers: dict | None = None
) -> str | None:
    """Hand the service `documents` as `entry` says (an endpoint is sent the pipeline's
    `headers` too: it is the same service); returns `indexed_documents` for the results
    file (ASSERTED under `none`, else None: ragaudit handed them)."""
    if entry == "none":
        return ASSERTED
    try:
        if entry.get("url"):
            _post_batches(entry, documents, label, headers or {})
        else:
            _run_command(entry, documents, label)
    except RagauditError as error:
        redact = Redactors(list((headers or {}).values()))
        raise RagauditError(redact(error)) from None
    return None


def _post_batches(entry: dict, documents: Sequence[Any], label: str, headers: dict) -> None:
    import httpx

    batch, seconds = entry["batch"], entry["timeout"]
    with deadline_client(seconds, entry["url"], headers=headers) as client:
        for start in range(0, len(documents), batch):
            part = [exported_document(d) for d in documents[start : start + batch]]
            where = f"documents {start + 1}-{start + len(part)} of {len(documents)}"
            try:
                reply = client.post(entry["url"], json={"documents": part})
            except httpx.TimeoutException:
                raise RagauditError(
                    f"{label}: {where}: no complete reply within the {seconds:g} s deadline "
                    "(its timeout)"
                ) from None
            except httpx.HTTPError as error:
                raise RagauditError(f"{label}: {where}: {type(error).__name__}: {error}") from None
            if 300 <= reply.status_code < 400:
                to = reply.headers.get("Location")
                raise RagauditError(
                    f"{label}: {where}: HTTP {reply.status_code} redirect "
                    f"{f'to {to!r}' if to else 'with no Location'}: not followed; give the "
                    "URL it names in the stack file"
                )
            if not 200 <= reply.status_code < 300:
                raise RagauditError(
                    f"{label}: {where}: HTTP {reply.status_code}: {reply.text[:120]!r}"
                )


def _run_command(entry: dict, documents: Sequence[Any], label: str) -> None:
    with tempfile.TemporaryDirectory(prefix="ragaudit-ingest-") as folder:
        export_documents(documents, Path(folder), entry["format"])
        command = [part.replace("{folder}", folder) for part in entry["command"]]
        if command == entry["command"]:
            command.append(folder)
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=entry["timeout"], check=False
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise RagauditError(f"{label}: {entry['command'][0]}: {error}") from None
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or [""])[-1][:160]
            raise RagauditError(f"{label}: {entry['command'][0]} exited {done.returncode}: {last}")
