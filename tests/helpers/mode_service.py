"""What the fake services on 127.0.0.1 share: started as a subprocess of their own script
in a mode, each prints `PORT n` once it listens, then serves until it is terminated."""

from __future__ import annotations

import argparse
import subprocess
import sys
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


@dataclass
class RunningService:
    """A running service: `base_url` has no path (`/ask`, `/v1`, ... go after it)."""

    process: subprocess.Popen
    base_url: str

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


def start_script(script: str, mode: str, what: str) -> tuple[subprocess.Popen, str]:
    """Run `script --mode MODE` and wait until it says its port: (process, base url)."""
    process = subprocess.Popen(
        [sys.executable, str(Path(script).resolve()), "--mode", mode],
        stdout=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline().strip()
    if not line.startswith("PORT "):
        process.kill()
        raise RuntimeError(f"the {what} did not start: {line!r}")
    return process, f"http://127.0.0.1:{int(line.split()[1])}"


def serve(handler: type[BaseHTTPRequestHandler], modes, state, doc: str | None) -> None:
    """The script's main: read `--mode` into `state.mode`, listen, say the port, serve."""
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("--mode", choices=modes, default="normal")
    state.mode = parser.parse_args().mode
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()
