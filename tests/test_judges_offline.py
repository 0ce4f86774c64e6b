"""Offline, truly: one record judged end to end by all four metrics inside a network
namespace with no network (`unshare -n`, loopback up), RAGAS and DeepEval imported and run
there with their telemetry switched off and token counts from the judge's usage fields.

The fast test puts the scripted judge (tests/helpers/judge_stand_in.py) in the namespace;
the slow one lets ragaudit start its own llama.cpp judge (the shipped 0.5B Qwen) there,
on the one-call metric, so the offline default is shown working as shipped."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REFERENCE = Path(__file__).resolve().parent.parent / "ragaudit/assets/reference/reference.json.gz"
ROOT = Path(__file__).resolve().parent.parent


def _unshare_works() -> bool:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False
    probe = subprocess.run(["unshare", "-n", "ip", "link", "set", "lo", "up"], capture_output=True)
    return probe.returncode == 0


needs_netns = pytest.mark.skipif(
    not _unshare_works(), reason="unshare -n needs root (CAP_SYS_ADMIN) and iproute2"
)

SCRIPT = """
set -e
ip link set lo up
{python} -c "import socket; socket.create_connection(('1.1.1.1', 80), timeout=3)" 2>/dev/null \
  && {{ echo 'the namespace has a network' >&2; exit 99; }}
{judge_setup}
set +e
{python} -m ragaudit judges --results {reference} --per-group 1 --max-records 1 {judge}
status=$?
[ -n "$JUDGE_PID" ] && kill "$JUDGE_PID"
exit $status
"""


def _in_namespace(tmp_path: Path, judge_setup: str, judge: str, timeout: float):
    script = SCRIPT.format(
        judge_setup=judge_setup, python=sys.executable, reference=REFERENCE, judge=judge
    )
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": str(tmp_path)}
    env |= {"RAGAUDIT_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        ["unshare", "-n", "sh", "-c", script],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=timeout,
    )


@needs_netns
def test_one_record_judged_with_no_network(tmp_path):
    setup = (
        f"{sys.executable} tests/helpers/judge_stand_in.py > {tmp_path}/port 2>/dev/null & "
        "JUDGE_PID=$!; "
        f"while [ ! -s {tmp_path}/port ]; do sleep 0.1; done; "
        f"PORT=$(cut -d' ' -f2 {tmp_path}/port)"
    )
    judge = "--judge openai:scripted-judge --base-url http://127.0.0.1:$PORT/v1"
    result = _in_namespace(tmp_path, f"cd {ROOT}; {setup}", judge, timeout=180)
    assert result.returncode == 0, result.stderr[-3000:]
    card = json.loads((tmp_path / "home" / "results" / "judges.json").read_text())
    assert [e["outcome"] for e in card["evaluations"]] == ["scored"] * 4
    assert all(e["prompt_tokens"] == 100 * e["calls"] for e in card["evaluations"])
    assert card["conditions"]["calls"]["failed"] == 0
    assert not (tmp_path / ".deepeval").exists()


@pytest.mark.slow
@needs_netns
def test_the_local_judge_runs_with_no_network(tmp_path):
    judge = "--judge local:qwen2.5-0.5b --metric ragas:context_recall"
    env_models = f"export RAGAUDIT_MODELS={Path.home() / '.cache/ragaudit/models'}"
    result = _in_namespace(tmp_path, f"cd {ROOT}; {env_models}", judge, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    card = json.loads((tmp_path / "home" / "results" / "judges.json").read_text())
    (evaluation,) = card["evaluations"]
    assert evaluation["calls"] == 1 and evaluation["computed"] == 1
    assert evaluation["prompt_tokens"] > 0  # llama.cpp's usage, not a local tokenizer
    assert card["judge"]["digest"] == (
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
    )
