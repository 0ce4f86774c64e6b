"""An OpenAI-compatible server on 127.0.0.1 whose chat reply depends on the request's seed,
for `ragaudit run --repeat` (a remote model given another seed): the hostile server's honest
`normal` mode (hostile_openai_server.py: its embeddings, its model list), except that
`/v1/chat/completions` with an odd seed abstains ("not in context") and with an even seed
answers with the prompt's whole last user message (the context and the question, so the
grader finds whatever values it holds). Run as a script: it prints `PORT <n>` first."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ABSTAIN = "not in context"


def seeded_reply(body: dict) -> str:
    """The reply to one chat request (recomputed by hand in the test)."""
    if int(body.get("seed", 0)) % 2:
        return ABSTAIN
    messages = body.get("messages") or []
    return next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")


def start_seeded():
    """Start the server as a subprocess and wait until it listens (a HostileServer)."""
    from helpers.hostile_openai_server import HostileServer

    process = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve())], stdout=subprocess.PIPE, text=True
    )
    line = process.stdout.readline().strip()
    if not line.startswith("PORT "):
        process.kill()
        raise RuntimeError(f"seeded server did not start: {line!r}")
    return HostileServer(process, f"http://127.0.0.1:{int(line.split()[1])}/v1")


def main() -> None:
    import hostile_openai_server as hostile  # run as a script: its folder is on sys.path

    class SeededHandler(hostile.HostileHandler):
        def _chat(self, body: dict, mode: str) -> object:
            honest = super()._chat(body, mode)
            honest["choices"][0]["message"]["content"] = seeded_reply(body)
            return honest

    server = hostile._QuietServer(("127.0.0.1", 0), SeededHandler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
