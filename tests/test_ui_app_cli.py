"""`ragaudit app`: loopback only, no usage statistics, headless, a chosen port."""

from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from ragaudit.cli import app as app_cli
from ragaudit.errors import RagauditError

CHECKOUT = Path(__file__).resolve().parent.parent


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    app_cli.add_arguments(parser)
    return parser.parse_args(list(argv))


def test_command_serves_on_loopback_without_usage_stats():
    command = app_cli.streamlit_command(8765)
    flags = dict(zip(command[5::2], command[6::2], strict=True))
    assert command[2:4] == ["streamlit", "run"]
    # the launcher that serves the checkout's app.py through st.App (ui/one_backend.py)
    assert command[4] == str(CHECKOUT / "ragaudit" / "ui" / "launcher" / "inspector.py")
    assert flags == {
        "--server.address": "127.0.0.1",
        "--server.port": "8765",
        "--browser.gatherUsageStats": "false",
        "--server.headless": "true",
        "--client.toolbarMode": "minimal",  # as app.py's .streamlit/config.toml says
        "--server.fileWatcherType": "none",
    }


def test_bad_port_is_one_clear_error():
    with pytest.raises(RagauditError, match="--port 70000"):
        app_cli.run(_args("--port", "70000"))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _ragaudit(*argv: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ragaudit", *argv],
        capture_output=True, text=True, cwd=cwd, env=env, timeout=120,
    )  # fmt: skip


@pytest.fixture
def held_port():
    """A real socket listening on 127.0.0.1 (what a second inspector would find)."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


def test_a_taken_port_is_one_line_before_anything_is_announced(held_port, tmp_path):
    done = _ragaudit("app", "--port", str(held_port), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""  # no "the inspector is on http://127.0.0.1:PORT"
    assert done.stderr == (
        f"ragaudit app: --port {held_port}: 127.0.0.1:{held_port} is already in use; "
        "choose another with --port\n"
    )


def test_demo_refuses_a_taken_port_before_running_the_matrix(held_port, tmp_path):
    home = tmp_path / "home"
    env = dict(os.environ, RAGAUDIT_HOME=str(home))
    done = _ragaudit("demo", "--port", str(held_port), cwd=tmp_path, env=env)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"ragaudit demo: --port {held_port}: 127.0.0.1:{held_port} is already in use; "
        "choose another with --port\n"
    )
    assert not (home / "results").exists()  # no matrix was run


def _child_of(pid: int, deadline: float) -> int:
    while time.time() < deadline:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        if children:
            return int(children[0])
        time.sleep(0.1)
    raise AssertionError(f"ragaudit app (pid {pid}) started no server")


def _healthy(base: str, deadline: float) -> None:
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as reply:
                if reply.read().decode().strip() == "ok":
                    return
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"no inspector answered on {base}")


def test_the_server_is_given_both_files_and_serves_from_the_checkout(tmp_path):
    """`ragaudit app --results R --audit-results A` (and `ragaudit demo`, through launch):
    the server is told each file's absolute path (the files a link may name besides the
    results folder) and runs from the checkout (so relative ?results= links keep working)."""
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "ragaudit", "app", "--port", str(port),
         "--results", "runs/latest.json", "--audit-results", "audit.json"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.time() + 90
        _healthy(f"http://127.0.0.1:{port}", deadline)
        assert server.stdout.readline() == (
            f"ragaudit app: the inspector is on http://127.0.0.1:{port} (Ctrl-C to stop)\n"
        )
        streamlit = _child_of(server.pid, deadline)
        environ = dict(
            item.split("=", 1)
            for item in Path(f"/proc/{streamlit}/environ").read_text().split("\0")
            if "=" in item
        )
        assert environ["RAGAUDIT_RESULTS"] == str(tmp_path.resolve() / "runs" / "latest.json")
        assert environ["RAGAUDIT_AUDIT_RESULTS"] == str(tmp_path.resolve() / "audit.json")
        assert Path(os.readlink(f"/proc/{streamlit}/cwd")) == CHECKOUT
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def _get(url: str, encoding: str | None = None) -> tuple[int, object, bytes]:
    request = urllib.request.Request(url, headers={"Accept-Encoding": encoding or "identity"})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, reply.headers, reply.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def test_every_page_address_names_its_backend_so_the_browser_asks_no_missing_path(tmp_path):
    """`ragaudit app` serves each page's HTML with the backend's address set, so Streamlit's
    frontend never asks /<page>/_stcore/health (a 404, streamlit#7074); everything else is
    Streamlit's own answer."""
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "ragaudit", "app", "--port", str(port)],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    try:
        _healthy(base, time.time() + 90)
        script = b'window.__streamlit={BACKEND_BASE_URL:window.location.origin+"/"}'
        for path in ("/", "/lab", "/severity?probe=boundary", "/instance/"):
            status, headers, body = _get(base + path, encoding="gzip")  # asked compressed
            assert status == 200 and b"<head><script>" + script in body, path
            assert int(headers["Content-Length"]) == len(body), path
        _, _, root = _get(base + "/")
        assert root.count(b"window.__streamlit") == 1
        # the paths the frontend asked before still answer as Streamlit answers them
        assert _get(base + "/lab/_stcore/health")[0] == 404
        assert _get(base + "/_stcore/health")[2] == b"ok"
        # a file is sent untouched
        (asset,) = re.findall(rb'src="\./(static/js/index\.[^"]+\.js)"', root)
        status, _, js = _get(f"{base}/{asset.decode()}")
        assert status == 200 and b"BACKEND_BASE_URL:window.location" not in js
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
