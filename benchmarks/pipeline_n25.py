"""Issue 26's n=25 measurement: what the NOT_IN_CONTEXT instruction is worth.

The unanswerable row at config B (recursive 1000/200 carry-tail, local:minilm, k=3) is run
twice with the same model in one `ragaudit run`: with ragaudit's prompt, and with the same
prompt minus its last sentence (the NOT_IN_CONTEXT instruction), set by a `prompt:` block
on a component stack. Both stacks cut the corpus with B's own chunker (ConfigBSplitter), so
their prompts differ only in that sentence, and ragaudit's prompt is B's prompt exactly (its
replies are set beside the shipped reference run's at B). Refusals are counted by the
abstention grader; each refusal is printed with the pattern that recognised it.

Run (resumable: every reply is kept in the call cache under `--home`):

    flock /tmp/ragaudit-model.lock python -m benchmarks.pipeline_n25 \\
        --home /work/runs/pipeline-n25 > /work/runs/pipeline-n25.log 2>&1

`--boundary` then runs the boundary row through the llama-index example
(examples/pipeline/run.py: its query engine over the 0.5B Qwen served by llama.cpp) at the
same n, and prints it beside the built-in configs' boundary rows in the shipped reference
run (their retrieval diagnostics are model-free, so they compare; the reference did not
generate on the boundary probe, which its lines say). `--report-only` prints the figures
of a finished run without running anything; `--boundary-only` runs the boundary row alone
and reports both.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from ragaudit.documents import Document
from ragaudit.grading.text import ABSTENTION_PATTERNS
from ragaudit.results.reference import REFERENCE_FILE as REFERENCE
from ragaudit.runner.generate import SYSTEM_PROMPT
from ragaudit.stack.chunking import chunk_document
from ragaudit.stack.configs import B

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "pipeline" / "run.py"
PLAIN_FROM = 6
"""ABSTENTION_PATTERNS from this index on are the plain-language refusals (issue 26)."""
WITHOUT_INSTRUCTION = SYSTEM_PROMPT[: SYSTEM_PROMPT.index(" If the context")]


class ConfigBSplitter:
    """Config B's chunker as a LangChain-style splitter, so a stack cuts exactly as B does."""

    def split_text(self, text: str) -> list[str]:
        return [c.text for c in chunk_document(Document("d", text), B.chunking)]


def stack_yaml(name: str, system: str | None, generator: str) -> str:
    """A component stack at B's chunking, embedder and k, with `system` as its prompt's system
    message (None: ragaudit's prompt, no `prompt:` block)."""
    lines = [
        f"name: {name}",
        "splitter:",
        "  class: benchmarks.pipeline_n25.ConfigBSplitter",
        "embedder: local:minilm",
        f"generator: {generator}",
        f"k: {B.k}",
        "probes: [unanswerable]",
    ]
    if system is not None:
        lines += ["prompt:", f"  system: {json.dumps(system)}"]
    return "\n".join(lines) + "\n"


VARIANTS = {"B_ragaudit_prompt": None, "B_no_instruction": WITHOUT_INSTRUCTION}


def run(home: Path, n: int, generator: str) -> int:
    """One `ragaudit run` of both stacks under `home` (its call cache makes it resumable)."""
    home.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "ragaudit.cli.main", "run", "--stack-only", "--n", str(n)]
    for name, system in VARIANTS.items():
        path = home / f"{name}.yaml"
        path.write_text(stack_yaml(name, system, generator), encoding="utf-8")
        command += ["--stack", str(path)]
    command += ["--generator", generator, "--gen-probes", "unanswerable", "--max-tokens", "160"]
    command += ["--workers", "1", "--out", str(home / "results.json"), "--allow-failed-calls"]
    print("$", " ".join(command), flush=True)
    return subprocess.run(command, env={**os.environ, "RAGAUDIT_HOME": str(home)}).returncode


def pattern_of(reply: str) -> int | None:
    """The index of the first abstention pattern that recognises `reply`, or None."""
    for index, pattern in enumerate(ABSTENTION_PATTERNS):
        if re.search(pattern, reply, re.IGNORECASE):
            return index
    return None


def report(home: Path) -> dict:
    """Print the figures of the finished run under `home`; the replies, by variant."""
    results = json.loads((home / "results.json").read_text(encoding="utf-8"))
    reference = json.loads(gzip.open(REFERENCE).read())
    shipped = {
        i["instance_id"]: i["generation"]["reply"]
        for i in reference["instances"]
        if i["probe"] == "unanswerable" and i["config"] == "B" and i.get("generation")
    }
    print(f"model {results['generator']['spec']}; prompt system messages:")
    replies: dict = {}
    for name, system in VARIANTS.items():
        print(f"  {name}: {json.dumps(system or SYSTEM_PROMPT)}")
    for name in VARIANTS:
        records = [i for i in results["instances"] if i["config"] == name]
        records = [i for i in records if i["probe"] == "unanswerable" and i.get("grade")]
        verdicts = Counter(i["grade"]["verdict"] for i in records)
        refused = [i for i in records if i["grade"]["verdict"] == "abstained"]
        print(f"\n{name}: unanswerable at B, n={len(records)}: refused {len(refused)} of "
              f"{len(records)}; verdicts {dict(sorted(verdicts.items()))}")  # fmt: skip
        for record in refused:
            reply = record["generation"]["reply"]
            index = pattern_of(reply)
            kind = "plain-language" if index is not None and index >= PLAIN_FROM else "older"
            print(f"  refusal {record['instance_id']} (pattern {index}, {kind}): {reply!r}")
        if name == "B_ragaudit_prompt":
            same = sum(shipped.get(i["instance_id"]) == i["generation"]["reply"] for i in records)
            print(f"  replies equal to the shipped reference run's at B: {same} of {len(records)}")
        replies[name] = [
            {"instance_id": i["instance_id"], "reply": i["generation"]["reply"],
             "verdict": i["grade"]["verdict"]}
            for i in records
        ]  # fmt: skip
    return replies


def run_boundary(home: Path, n: int) -> int:
    """The boundary probe through the llama-index example at `n`, its results under `home`."""
    out = home / "llamaindex_boundary.json"
    command = [sys.executable, str(EXAMPLE), "llamaindex", "--n", str(n), "--probes", "boundary",
               "--out", str(out)]  # fmt: skip
    print("$", " ".join(command), flush=True)
    return subprocess.run(command, env={**os.environ, "RAGAUDIT_HOME": str(home)}).returncode


def boundary_row(records: list[dict]) -> str:
    """gold in context, span preserved and correct answers of boundary `records`."""
    n = len(records)
    gold = sum(bool(r.get("gold_in_context")) for r in records)
    span = sum(bool(r.get("span_preserved")) for r in records)
    graded = [r for r in records if r.get("grade")]
    correct = sum(bool(r["grade"].get("correct")) for r in graded)
    answers = f"correct {correct}/{len(graded)}" if graded else "answers not generated"
    return f"n={n}: gold in context {gold}/{n}, span preserved {span}/{n}, {answers}"


def report_boundary(home: Path) -> None:
    """The llama-index example's boundary row beside the reference run's built-in configs."""
    results = json.loads((home / "llamaindex_boundary.json").read_text(encoding="utf-8"))
    reference = json.loads(gzip.open(REFERENCE).read())
    mine = [r for r in results["instances"] if r["probe"] == "boundary"]
    print(f"\nboundary through the llama-index example (0.5B, k=2): {boundary_row(mine)}")
    unmatched = sum((r.get("pipeline") or {}).get("unmatched", 0) for r in mine)
    shown = sum(len((r.get("pipeline") or {}).get("contexts", [])) for r in mine)
    print(f"  {unmatched} of {shown} contexts match no document")
    primary = reference["embedders"][0]["spec"]  # the matrix's primary embedder: minilm
    for config in reference["configs"]:
        wanted = ("boundary", config["name"], primary)
        rows = [r for r in reference["instances"]
                if (r["probe"], r["config"], r["embedder"]) == wanted]  # fmt: skip
        if rows:
            print(f"  built-in {config['name']} (shipped reference run): {boundary_row(rows)}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.pipeline_n25")
    parser.add_argument("--home", type=Path, default=Path("/work/runs/pipeline-n25"))
    parser.add_argument("--n", type=int, default=25)
    parser.add_argument("--generator", default="local:qwen2.5-1.5b")
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--boundary", action="store_true")
    parser.add_argument("--boundary-only", action="store_true", help="(a) reported, not run")
    args = parser.parse_args(argv)
    args.boundary |= args.boundary_only
    if not args.report_only and not args.boundary_only:
        status = run(args.home, args.n, args.generator)
        print(f"ragaudit run exited {status}", flush=True)
    if (args.home / "results.json").exists():
        replies = report(args.home)
        (args.home / "replies.json").write_text(json.dumps(replies, indent=1), encoding="utf-8")
    else:
        print(f"the unanswerable row has not run under {args.home} yet")
    if args.boundary:
        if not args.report_only:
            print(f"llama-index example exited {run_boundary(args.home, args.n)}", flush=True)
        report_boundary(args.home)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
