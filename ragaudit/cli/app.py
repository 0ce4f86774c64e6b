"""`ragaudit app`: open the Streamlit inspector on 127.0.0.1 (no outside connections)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from ragaudit import paths
from ragaudit.errors import RagauditError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `ragaudit app` options."""
    parser.add_argument("--port", type=int, default=8501, help="port on 127.0.0.1 (default 8501)")
    parser.add_argument(
        "--results", default=None, help="results file to show (default data/results/latest.json)"
    )


def streamlit_command(port: int) -> list[str]:
    """The command line that serves app.py on loopback only, without usage statistics."""
    app = paths.REPO_ROOT / "app.py"
    return [
        sys.executable, "-m", "streamlit", "run", str(app),
        "--server.address", "127.0.0.1",
        "--server.port", str(port),
        "--browser.gatherUsageStats", "false",
        "--server.headless", "true",
    ]  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """Serve the inspector until interrupted; returns streamlit's exit status."""
    if not 0 < args.port < 65536:
        raise RagauditError(f"--port {args.port}: not a TCP port (1-65535)")
    env = dict(os.environ)
    if args.results:
        results = Path(args.results).expanduser().resolve()
        env["RAGAUDIT_RESULTS"] = str(results)
    print(f"ragaudit app: the inspector is on http://127.0.0.1:{args.port} (Ctrl-C to stop)")
    try:
        return subprocess.call(streamlit_command(args.port), env=env, cwd=paths.REPO_ROOT)
    except KeyboardInterrupt:
        return 0
