"""`ragaudit serve`: the bundled generator as an OpenAI-compatible server on 127.0.0.1, so a
user's own pipeline (a `pipeline:` stack, an OpenAI client with base_url) runs offline.

It stays in the foreground until Ctrl-C (SIGINT) or SIGTERM, then stops the server and
exits 0. The server is the one the local judge runs (backends/local_server.py).
"""

from __future__ import annotations

import argparse
import signal
import time

from ragaudit.backends.local_server import HOST, check_servable, start_local_server
from ragaudit.backends.qwen import LOCAL_SPECS
from ragaudit.cli.app import check_port

DEFAULT_PORT = 8080
"""llama.cpp's own server's default port, so a client set up for `llama-server` finds it."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The `ragaudit serve` options."""
    parser.add_argument(
        "--model",
        required=True,
        help=f"the generator to serve: {' or '.join(LOCAL_SPECS)} (needs the [local] extra)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"port on {HOST} (default {DEFAULT_PORT})",
    )


def run(args: argparse.Namespace) -> int:
    """Serve `--model` on 127.0.0.1:`--port` until SIGINT or SIGTERM; every refusal comes
    before the model loads."""
    check_servable(args.model)
    check_port(args.port)
    # stops on SIGTERM as on Ctrl-C; SIGINT too when started in the background by a script
    # (a non-interactive shell's background job inherits SIGINT ignored)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    server = None
    try:
        server = start_local_server(args.model, port=args.port)
        print(
            f"serving {server.spec} at {server.base_url} as model {server.model!r} "
            "(Ctrl-C stops it)",
            flush=True,
        )
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return 0
    finally:
        if server is not None:
            server.stop()
