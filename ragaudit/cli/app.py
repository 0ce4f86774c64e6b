"""`ragaudit app`: open the Streamlit inspector on 127.0.0.1 (no outside connections)."""

from __future__ import annotations

import argparse
import errno
import os
import socket
import sys
from pathlib import Path

from ragaudit import paths
from ragaudit.errors import RagauditError
from ragaudit.ui.allowed import AUDIT_RESULTS_ENV, RESULTS_ENV
from ragaudit.ui.server_child import serve_until_stopped

HOST = "127.0.0.1"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `ragaudit app` options."""
    parser.add_argument("--port", type=int, default=8501, help="port on 127.0.0.1 (default 8501)")
    parser.add_argument(
        "--results",
        default=None,
        help="results file to show (default: results/latest.json in the data folder); "
        "links may name it or files in that results folder, nothing else",
    )
    parser.add_argument(
        "--audit-results",
        default=None,
        help="audit results file for the Audit page (default: results/audit-latest.json "
        "in the data folder)",
    )


LAUNCHER = Path(__file__).resolve().parent.parent / "ui" / "launcher" / "inspector.py"
"""Serves app.py through Streamlit's st.App with the page-address fix (ui/one_backend.py)."""


def streamlit_command(port: int) -> list[str]:
    """The command line that serves app.py on loopback only, without usage statistics.

    Streamlit runs the launcher, whose folder has no .streamlit/config.toml, so the frame's
    settings that app.py's config.toml holds are given here too."""
    return [
        sys.executable, "-m", "streamlit", "run", str(LAUNCHER),
        "--server.address", HOST,
        "--server.port", str(port),
        "--browser.gatherUsageStats", "false",
        "--server.headless", "true",
        "--client.toolbarMode", "minimal",
        "--server.fileWatcherType", "none",
    ]  # fmt: skip


def check_port(port: int) -> None:
    """Refuse a number that is no TCP port, or a port something already listens on
    (before any work that would be wasted, and before announcing the address)."""
    if not 0 < port < 65536:
        raise RagauditError(f"--port {port}: not a TCP port (1-65535)")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # as the server will bind: SO_REUSEADDR, so a port in TIME_WAIT is not "taken"
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, port))
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                raise RagauditError(
                    f"--port {port}: {HOST}:{port} is already in use; choose another with --port"
                ) from None
            raise RagauditError(
                f"--port {port}: cannot listen on {HOST}:{port} ({error.strerror})"
            ) from None


def launch(results_path: Path | None, port: int, audit_results: Path | None = None) -> int:
    """Serve the inspector over `results_path` (None: the default results file) and
    `audit_results` (None: the default audit file) until interrupted; returns streamlit's
    exit status (0 after Ctrl-C, SIGTERM or SIGHUP, which stop the server too:
    ui.server_child). The files named here are the ones outside the results folder that
    the inspector's links may name (ragaudit.ui.allowed)."""
    check_port(port)
    env = dict(os.environ)
    for name, given in ((RESULTS_ENV, results_path), (AUDIT_RESULTS_ENV, audit_results)):
        if given is not None:
            env[name] = str(Path(given).expanduser().resolve())
    print(f"ragaudit app: the inspector is on http://{HOST}:{port} (Ctrl-C to stop)")
    # From the checkout, if any, so that an uninstalled checkout imports itself and a
    # relative ?results= path means what it meant before; else the caller's folder. Ctrl-C,
    # SIGTERM and SIGHUP are forwarded to the server's process group, which is waited for.
    return serve_until_stopped(streamlit_command(port), env=env, cwd=paths.checkout_root())


def run(args: argparse.Namespace) -> int:
    """`ragaudit app`: serve the inspector until interrupted."""
    audit = Path(args.audit_results) if args.audit_results else None
    return launch(Path(args.results) if args.results else None, args.port, audit)
