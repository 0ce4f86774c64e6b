"""Offline, proven: the embedded backends work with every non-loopback connection refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

# Runs in a fresh process so that no model was loaded before the network was cut, and the
# refusal is installed before ragaudit (or anything it imports) runs.
ROUND_TRIP = textwrap.dedent(
    """
    import json, socket
    attempts = []
    real_connect = socket.socket.connect

    def loopback_only(self, address):
        host = address[0] if isinstance(address, tuple) else str(address)
        if self.family in (socket.AF_INET, socket.AF_INET6) and host not in (
            "127.0.0.1", "::1", "localhost"
        ):
            attempts.append(str(address))
            raise ConnectionRefusedError(f"offline test: refused {address}")
        return real_connect(self, address)

    socket.socket.connect = loopback_only
    socket.socket.connect_ex = lambda self, address: (attempts.append(str(address)), 111)[1]

    from ragaudit.backends.cache import CallCache
    from ragaudit.backends.specs import load_embedder, load_generator

    cache = CallCache()
    vectors = {
        spec: load_embedder(spec, cache=cache).embed(["the retention period is seven years"])
        for spec in ("local:minilm", "local:e5-small")
    }
    generator = load_generator("local:qwen2.5-0.5b", cache=cache)
    reply = generator.generate(
        [{"role": "user", "content": "Reply with the single word: ready"}], {"max_tokens": 8}
    )
    print(json.dumps({
        "dims": {spec: len(v[0]) for spec, v in vectors.items()},
        "reply": reply,
        "stats": cache.stats(),
        "refused": attempts,
    }))
    """
)


@pytest.mark.slow
def test_embed_and_generate_round_trip_with_the_network_cut(ragaudit_home):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env.pop("OLLAMA_HOST", None)
    done = subprocess.run(
        [sys.executable, "-c", ROUND_TRIP],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["dims"] == {"local:minilm": 384, "local:e5-small": 384}
    assert result["reply"].strip() != ""
    assert result["stats"] == {"replayed": 0, "computed": 3, "failed": 0}
    # nothing even tried to reach outside (a refused attempt would mean a hidden download)
    assert result["refused"] == []


def test_the_refusal_really_refuses(ragaudit_home):
    # The guard used above must bite: an outside connection fails under it.
    probe = ROUND_TRIP.split("from ragaudit")[0] + textwrap.dedent(
        """
        try:
            socket.create_connection(("192.0.2.1", 80), timeout=2)
            print("connected")
        except OSError as error:
            print("refused", len(attempts))
        """
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["refused", "1"]
