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
        "--results",
        default=None,
        help="results file to show (default: results/latest.json in the data folder)",
    )


def streamlit_command(port: int) -> list[str]:
    """The command line that serves app.py on loopback only, without usage statistics."""
    app = paths.app_script()
    return [
        sys.executable, "-m", "streamlit", "run", str(app),
        "--server.address", "127.0.0.1",
        "--server.port", str(port),
        "--browser.gatherUsageStats", "false",
        "--server.headless", "true",
    ]  # fmt: skip


def check_port(port: int) -> None:
    """Refuse a number that is no TCP port (before any work that would be wasted)."""
    if not 0 < port < 65536:
        raise RagauditError(f"--port {port}: not a TCP port (1-65535)")


def launch(results_path: Path | None, port: int) -> int:
    """Serve the inspector over `results_path` (None: the default results file) until
    interrupted; returns streamlit's exit status."""
    check_port(port)
    env = dict(os.environ)
    if results_path is not None:
        env["RAGAUDIT_RESULTS"] = str(Path(results_path).expanduser().resolve())
    print(f"ragaudit app: the inspector is on http://127.0.0.1:{port} (Ctrl-C to stop)")
    try:
        # From the checkout, if any, so that an uninstalled checkout imports itself and a
        # relative ?results= path means what it meant before; else the caller's folder.
        return subprocess.call(streamlit_command(port), env=env, cwd=paths.checkout_root())
    except KeyboardInterrupt:
        return 0


def run(args: argparse.Namespace) -> int:
    """`ragaudit app`: serve the inspector until interrupted."""
    return launch(Path(args.results) if args.results else None, args.port)
