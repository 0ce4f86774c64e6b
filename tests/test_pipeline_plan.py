"""The run plan: `ragaudit run`'s flags resolved over the preset, and every bad flag refused
with one line before any work (nothing is written to the data folder)."""

from __future__ import annotations

import argparse

from helpers.ui_fixtures import write_results

from ragaudit import paths
from ragaudit.cli import demo
from ragaudit.cli import run as run_cli
from ragaudit.cli.main import main
from ragaudit.cli.run import plan_from_args
from ragaudit.runner.plan import build_plan
from ragaudit.stack import presets

MATRIX_NAMES = ["A", "A_prime", "B", "C", "C_prime", "D", "M"]
PRESET_NAMES = [*MATRIX_NAMES, "T4000"]  # table_split at 4000 characters, beside the matrix
SEED_ANSWER_PROBES = (
    "control",
    "distractor",
    "negation",
    "superseded",
    "summarisation",
    "table_split",
    "unanswerable",
)


def parse(*flags: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="ragaudit run")
    run_cli.add_arguments(parser)
    return parser.parse_args(list(flags))


def test_quick_preset_fills_every_flag_left_unset(ragaudit_home):
    plan = plan_from_args(parse("--quick"))
    assert plan.preset == "quick" and plan.n == 5
    assert plan.embedders == ("local:minilm", "local:e5-small")
    assert plan.secondary_probes == ("control", "paraphrase", "negation")
    assert plan.generate is True and plan.generator == "local:qwen2.5-0.5b"
    assert plan.gen_configs == ("B", "C", "T4000") and plan.gen_probes == SEED_ANSWER_PROBES
    assert plan.max_tokens == 96 and plan.generation_params == {"max_tokens": 96}
    assert [c.name for c in plan.configs] == PRESET_NAMES
    assert plan.out == ragaudit_home / "results" / "latest.json"


def test_flags_override_the_full_preset_and_n_makes_it_custom(tmp_path):
    plan = plan_from_args(
        parse(
            "--n", "3",
            "--embedders", "local:minilm", "ollama:nomic-embed-text", "local:minilm",
            "--secondary-probes", "all",
            "--gen-probes", "all",
            "--max-tokens", "40",
            "--no-generate",
            "--out", str(tmp_path / "r.json"),
        )
    )  # fmt: skip
    assert plan.preset == "custom" and plan.n == 3
    assert plan.embedders == ("local:minilm", "ollama:nomic-embed-text")  # each once
    assert plan.secondary_probes is None and plan.gen_probes is None  # 'all': every probe
    assert plan.generator == "local:qwen2.5-1.5b"
    assert plan.gen_configs == ("A", "B", "C", "M", "T4000")
    assert plan.max_tokens == 40 and plan.generate is False
    assert plan.out == tmp_path / "r.json"


def test_user_configs_join_the_matrix_and_can_be_generated_on(tmp_path):
    extra = tmp_path / "extra.yaml"
    extra.write_text("- {name: X, splitter: recursive, chunk_size: 600, overlap: 60, k: 5}\n")
    plan = plan_from_args(parse("--configs", str(extra), "--gen-configs", "X", "B"))
    assert [c.name for c in plan.configs] == [*PRESET_NAMES, "X"]
    assert plan.gen_configs == ("X", "B")


def test_n_may_be_the_corpuss_size_per_probe():
    assert build_plan(presets.FULL, n=25).n == 25


def test_the_plan_records_the_command_line_it_was_given():
    plan = build_plan(presets.QUICK, argv=["ragaudit", "demo", "--no-app"])
    assert plan.argv == ("ragaudit", "demo", "--no-app")


def _bad_flags(tmp_path) -> list[tuple[list[str], str]]:
    clash = tmp_path / "clash.yaml"
    clash.write_text("- {name: B, splitter: fixed, chunk_size: 500, overlap: 0, k: 3}\n")
    return [
        (["--max-tokens", "0"], "--max-tokens 0: need at least 1"),
        (["--n", "0"], "--n 0: need at least 1 instance per probe"),
        (
            ["--n", "26"],
            f"--n 26: the corpus ({paths.corpus_dir()}) holds 25 instances per probe; "
            "give at most 25",
        ),
        (["--out", "/dev/null"], "--out /dev/null: exists and is not a regular file"),
        (
            ["--gen-configs", "B", "Z"],
            "--gen-configs: unknown config 'Z'; valid: A, A_prime, B, C, C_prime, D, M, T4000",
        ),
        (["--configs", str(clash)], "config B: field 'name': clashes with a built-in config"),
        (
            ["--out", str(tmp_path)],
            f"--out {tmp_path}: is a folder; name the results file (e.g. {tmp_path}/latest.json)",
        ),
        (
            ["--gen-probes", "control", "boundry"],
            "--gen-probes: unknown probe 'boundry'; did you mean 'boundary'? valid: control, "
            "boundary, distractor, multihop, superseded, summarisation, table_split, "
            "duplicate_crowding, unanswerable, paraphrase, negation",
        ),
        (["--secondary-probes", "negations"], "--secondary-probes: unknown probe 'negations'"),
        (["--embedders", "local:minilm", "local:e5"], "unknown embedder spec 'local:e5'"),
        (["--generator", "local:qwen-0.5b"], "unknown generator spec 'local:qwen-0.5b'"),
    ]


def test_each_bad_flag_is_one_line_and_nothing_runs(ragaudit_home, tmp_path, capsys):
    for flags, message in _bad_flags(tmp_path):
        assert main(["run", *flags]) == 2, flags
        err = capsys.readouterr().err
        assert err.startswith(f"ragaudit run: {message}"), (flags, err)
        assert err.count("\n") == 1, err  # one line, no traceback, no progress bar
    # Refused before any work: no model-call cache, no index, no results, no progress file.
    assert list(ragaudit_home.iterdir()) == []


def test_demo_runs_the_quick_plan_then_opens_the_inspector(ragaudit_home, monkeypatch):
    planned, launched = [], []
    monkeypatch.setattr(demo, "run_plan", lambda plan: planned.append(plan) or 0)
    monkeypatch.setattr(demo, "launch", lambda path, port: launched.append((path, port)) or 0)
    out = ragaudit_home / "results" / "demo.json"
    assert main(["demo", "--results", str(out), "--port", "8600"]) == 0
    (plan,) = planned
    assert (plan.preset, plan.n, plan.out) == ("quick", 5, out)
    assert plan.generator == "local:qwen2.5-0.5b" and plan.gen_configs == ("B", "C", "T4000")
    assert plan.embedders == ("local:minilm", "local:e5-small") and plan.generate is True
    assert launched == [(out, 8600)]


def test_demo_over_complete_results_runs_nothing(ragaudit_home, monkeypatch, capsys):
    planned = []
    monkeypatch.setattr(demo, "run_plan", lambda plan: planned.append(plan) or 0)
    out = write_results(ragaudit_home / "results" / "latest.json", n=2)
    assert main(["demo", "--no-app"]) == 0
    assert planned == []
    assert f"using the complete results in {out} (--rerun to run again)" in capsys.readouterr().out
    assert main(["demo", "--no-app", "--rerun"]) == 0
    assert [p.out for p in planned] == [out]


def test_demo_refuses_a_bad_port_before_running_anything(ragaudit_home, monkeypatch, capsys):
    planned: list = []
    monkeypatch.setattr(demo, "run_plan", lambda plan: planned.append(plan) or 0)
    assert main(["demo", "--port", "70000"]) == 2
    assert planned == []
    assert capsys.readouterr().err == "ragaudit demo: --port 70000: not a TCP port (1-65535)\n"
