"""`ragaudit serve` (issue 38, item 7): the bundled generator as an OpenAI-compatible server
on 127.0.0.1, run as a user runs it (the installed command, in a subprocess).

The slow tests load the 0.5B Qwen in llama.cpp, answer a real /v1/chat/completions request
and stop on SIGINT or SIGTERM with exit 0, leaving the port free. The fast ones are the
refusals, each one line and exit 2 before any engine starts: a port already taken, a spec
that is not a shipped generator, a missing `[local]` extra."""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from ragaudit.backends.local_server import check_servable
from ragaudit.backends.qwen import ENGINE_LOG_ENV, WEIGHTS
from ragaudit.errors import RagauditError

RAGAUDIT = [str(Path(sys.executable).parent / "ragaudit")]
SPEC = "local:qwen2.5-0.5b"
MODEL_05B = "qwen2.5-coder-0.5b-instruct-q4_k_m"  # the 0.5B GGUF's name, as /v1/models lists it
VALID = "local:qwen2.5-1.5b, local:qwen2.5-0.5b"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def serve(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess:
    """`ragaudit serve ARGV` run to its end (a refusal ends at once; a server would not, and
    the timeout fails the test), its engines noted in tmp_path/engines.log."""
    env = {**os.environ, ENGINE_LOG_ENV: str(tmp_path / "engines.log")}
    return subprocess.run(
        [*RAGAUDIT, "serve", *argv], capture_output=True, text=True, timeout=60, env=env
    )


def first_line(process: subprocess.Popen, seconds: float) -> str:
    """The first line the process prints, or '' if it prints none within `seconds`."""
    ready, _, _ = select.select([process.stdout], [], [], seconds)
    return process.stdout.readline() if ready else ""


def nothing_listens(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except ConnectionRefusedError:
        return True
    return False


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_serves_a_real_chat_completion_until_a_signal_then_frees_its_port(stop):
    port = free_port()
    process = subprocess.Popen(
        [*RAGAUDIT, "serve", "--model", SPEC, "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = first_line(process, seconds=180)
        base_url = f"http://127.0.0.1:{port}/v1"
        assert line == f"serving {SPEC} at {base_url} as model '{MODEL_05B}' (Ctrl-C stops it)\n"
        listed = httpx.get(f"{base_url}/models", timeout=10).json()
        assert MODEL_05B in [entry["id"] for entry in listed["data"]]
        reply = httpx.post(
            f"{base_url}/chat/completions",
            json={
                "model": MODEL_05B,
                "messages": [{"role": "user", "content": "Say hello."}],
                "max_tokens": 8,
                "temperature": 0,
            },
            timeout=120,
        )
        assert reply.status_code == 200
        content = reply.json()["choices"][0]["message"]["content"]
        assert isinstance(content, str) and content.strip()
        assert process.poll() is None  # still in the foreground after answering
        process.send_signal(stop)
        assert process.wait(timeout=60) == 0
        assert process.stdout.read() == "" and process.stderr.read() == ""
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert nothing_listens(port)
    with socket.socket() as again:  # a server may listen there again (as servers bind)
        again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        again.bind(("127.0.0.1", port))
        again.listen()


def test_a_port_in_use_is_one_line_naming_it_and_starts_no_engine(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        started = time.monotonic()
        done = serve(tmp_path, "--model", SPEC, "--port", str(port))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"ragaudit serve: --port {port}: 127.0.0.1:{port} is already in use; "
        "choose another with --port\n"
    )
    assert not (tmp_path / "engines.log").exists()
    assert time.monotonic() - started < 30  # refused before the model loads


@pytest.mark.parametrize("spec", ["openai:gpt-4o-mini", "ollama:qwen2.5:7b"])
def test_a_remote_spec_is_refused_in_one_line(tmp_path, spec):
    done = serve(tmp_path, "--model", spec, "--port", str(free_port()))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"ragaudit serve: {spec}: not a shipped generator (a remote model is served where it "
        f"runs); valid: {VALID}\n"
    )
    assert not (tmp_path / "engines.log").exists()


def test_a_local_spec_that_is_no_generator_is_refused_in_one_line(tmp_path):
    done = serve(tmp_path, "--model", "local:minilm")
    assert done.returncode == 2 and done.stdout == ""
    expected = f"ragaudit serve: unknown local generator 'local:minilm'; valid: {VALID}\n"
    assert done.stderr == expected
    assert not (tmp_path / "engines.log").exists()


def test_a_near_miss_spec_is_offered_the_shipped_one(tmp_path):
    done = serve(tmp_path, "--model", "local:qwen2.5-05b")
    assert done.returncode == 2
    assert done.stderr == (
        "ragaudit serve: unknown local generator 'local:qwen2.5-05b'; did you mean "
        f"'local:qwen2.5-0.5b'? valid: {VALID}\n"
    )


def test_without_the_local_extra_the_spec_is_refused_naming_the_pip_command():
    # the weights looked up under a package name installed nowhere: nothing is patched
    absent = {**WEIGHTS, "0.5b": replace(WEIGHTS["0.5b"], module_prefix="ragaudit_absent_part")}
    with pytest.raises(RagauditError) as refused:
        check_servable(SPEC, absent)
    assert str(refused.value) == (
        "local:qwen2.5-0.5b needs the local extra (ragaudit-absent-part1 is not installed): "
        "pip install 'ragaudit[local]'"
    )
    check_servable(SPEC)  # installed here: nothing to refuse
