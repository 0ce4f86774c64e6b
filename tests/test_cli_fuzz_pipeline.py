"""Fuzz of `pipeline:` stack files (issue 26), in the style of test_cli_fuzz_stackfiles.py:
a valid `pipeline: http:` file (and a `factory:` one) mutated many ways (random bytes,
truncations, wrong types per field, as YAML and as JSON) and what a hostile user writes into
one (addresses that name no http(s) server, mapping paths that do not parse, factories that
are not importable or not pipelines, header values that are not variable names, a template
without {{question}}, two forms at once, a splitter beside a pipeline, timeouts out of
range). Each goes to `audit --dilution --stack` (which checks a pipeline file as a dry run
does: a valid one is taken, a hostile one refused in one line, a factory imported and
checked callable but never called, since a dilution-only audit asks nothing) and, for the
valid and hostile cases, to `run --stack --stack-only --dry-run` (which checks
everything and calls nothing), except the hostile factories: a dry run only imports a
factory and checks it is callable, so those (some are callables that raise when called,
as a factory raising while building does) go to a real run at n=1, which refuses them
before any question. Every case ends in exit 0 or 2 with one line on stderr and no
traceback, leaves the stack file as it was, and when refused leaves every data-folder file
byte for byte as it was and writes no results file. The number of cases is printed."""

from __future__ import annotations

import gc
import hashlib
import json
import random
from pathlib import Path

import pytest
from helpers.fuzz import as_json, as_yaml, byte_mutations, text_mutations, wrong_types

from ragaudit.cli.main import main
from ragaudit.runner import progress  # noqa: F401  imported before capsys swaps sys.stderr

SEED = 2626
GENERIC = 25
"""Generic mutations sampled per format."""
AUDIT = Path(__file__).resolve().parents[1] / "examples" / "audit"
VALID = {
    "name": "svc",
    "pipeline": {
        "http": {
            "url": "http://127.0.0.1:9/ask",
            "method": "POST",
            "headers": {
                "X-Api-Key": "FUZZ_KEY",
                "Authorization": {"env": "FUZZ_KEY", "prefix": "Bearer "},
            },
            "body": {"query": "{{question}}", "top_k": 3},
            "answer": "$.data.answer",
            "contexts": "data.sources",
            "context_text": "content",
            "context_id": "$.meta.id",
            "context_score": "relevance",
            "timeout": 5,
        },
        "ingest": "none",
        "version": 3,
    },
    "probes": ["boundary", "negation"],
}
FACTORY = {"name": "own", "pipeline": {"factory": "fuzz_pipeline:make", "args": {"k": 2}}}
MODULE = "def make(documents, k=3):\n    return lambda q: {'answer': q, 'contexts': []}\n"
HOSTILE_URLS = [
    "http://127.0.0.1:99999/ask", "file:///etc/passwd", "http:///ask", "127.0.0.1:8080",
    "ftp://h/ask", "http://user:secret@h/ask", "http://h:0/ask", "javascript:alert(1)", "",
    "http://", "http://[::1/ask", "gopher://h:70/",
]  # fmt: skip
BAD_PATHS = ["$.[[", "$..", "a[?", "[?x==", "$[", "data.", "$.data.answer)", "", "  ", "&&"]
NOT_PIPELINES = [
    "nosuch_module_fuzz:make", "os:getcwd", "builtins:print", "math:pi", "json:loads",
    "fuzz_pipeline:missing", "x", "a..b:c",
]  # fmt: skip


def hostile_cases() -> list[tuple[str, bytes, bool]]:
    """(name, bytes, must be refused) of what a hostile user writes into a pipeline file."""
    cases: list[tuple[str, bytes, bool]] = [("factory", as_yaml(FACTORY), False)]

    def variant(change, refused: bool, name: str) -> None:
        data = json.loads(json.dumps(VALID))
        change(data)
        cases.append((name, as_yaml(data), refused))

    for url in HOSTILE_URLS:
        variant(lambda d, u=url: d["pipeline"]["http"].update(url=u), True, f"url={url!r:.30}")
        variant(
            lambda d, u=url: d["pipeline"].update(ingest={"url": u}), True, f"ingest={url!r:.30}"
        )
    for key in ("answer", "contexts", "context_text", "context_id", "context_score", "citations"):
        for path in BAD_PATHS[:5]:
            variant(lambda d, k=key, p=path: d["pipeline"]["http"].update({k: p}), True,
                    f"path {key}={path!r}")  # fmt: skip
    for factory in NOT_PIPELINES:
        data = json.loads(json.dumps(FACTORY))
        data["pipeline"]["factory"] = factory
        cases.append((f"factory={factory!r}", as_yaml(data), True))
    for value in ("sk-live-123", "Bearer x", "1KEY", "", "A B"):
        variant(lambda d, v=value: d["pipeline"]["http"].update(headers={"X": v}), True,
                f"header={value!r}")  # fmt: skip
    variant(lambda d: d["pipeline"]["http"].update(body={"query": "q"}), True, "no-question")
    variant(lambda d: d["pipeline"].update(factory="fuzz_pipeline:make"), True, "two-forms")
    variant(lambda d: d.update(splitter={"class": "x.Y"}), True, "splitter-beside")
    variant(lambda d: d.update(prompt={"template": "{context} {question}"}), True, "prompt-beside")
    variant(lambda d: d["pipeline"].pop("ingest"), True, "no-ingest")
    variant(lambda d: d["pipeline"].update(ingest={"url": "http://h/i", "command": ["x"]}),
            True, "ingest-both")  # fmt: skip
    for timeout in (0, -1, 1e309, "soon", 10**9):
        variant(lambda d, t=timeout: d["pipeline"]["http"].update(timeout=t), True,
                f"timeout={timeout!r:.12}")  # fmt: skip
    variant(lambda d: d["pipeline"]["http"].update(method="DELETE"), True, "method")
    variant(lambda d: d.update(oracle={"http": dict(d["pipeline"]["http"])}), True,
            "oracle-without-contexts")  # fmt: skip
    text = as_yaml(VALID).decode()
    cases.append(("duplicate-pipeline", (text + "pipeline: {factory: a:b}\n").encode(), True))
    return cases


def tree(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.mark.slow(model=False)  # hundreds of CLI runs (10-20 s): the full suite, not the fast loop
def test_every_pipeline_file_is_refused_in_one_line_and_changes_no_file(
    tmp_path, monkeypatch, capsys
):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("RAGAUDIT_HOME", str(home))
    monkeypatch.setenv("FUZZ_KEY", "fuzz-secret-value-0123456789")
    stacks = tmp_path / "stacks"
    stacks.mkdir()
    (stacks / "fuzz_pipeline.py").write_text(MODULE)
    rng = random.Random(SEED)
    cases = []
    for suffix, dump in ((".yaml", as_yaml), (".json", as_json)):
        valid = dump(VALID)
        mutated = [("valid", valid), *byte_mutations(rng, valid)]
        mutated += text_mutations(valid, json_like=dump is as_json)
        mutated += wrong_types(rng, VALID, dump, 3, 3, 30)
        # the stack-file fuzz runs every generic mutation through the same loader; a sample
        # of them here keeps this test's time to the pipeline's own cases
        mutated = mutated[:1] + rng.sample(mutated[1:], min(GENERIC, len(mutated) - 1))
        cases += [(suffix, name, data, None) for name, data in mutated]
    cases += [(".yaml", f"hostile {n}", data, refused) for n, data, refused in hostile_cases()]
    problems, statuses = [], {}
    for number, (suffix, name, data, refused) in enumerate(cases):
        file = stacks / f"{number:03d}{suffix}"
        file.write_bytes(data)
        commands = [["audit", str(AUDIT / "corpus"), "--dilution", "--stack", str(file)]]
        out = tmp_path / "out.json"
        out.unlink(missing_ok=True)
        mode = ["--out", str(out)] if name.startswith("hostile factory=") else ["--dry-run"]
        if name.startswith(("hostile", "valid")):
            commands.append(["run", "--stack", str(file), "--stack-only", "--n", "1", *mode])
        for argv in commands:
            before, data_before = hashlib.sha256(data).hexdigest(), tree(home)
            try:
                status = main(argv)
            except BaseException as error:
                status = f"raised {type(error).__name__}: {error}"[:300]
            captured = capsys.readouterr()
            err, where = captured.err, f"{argv[0]} {suffix} {name}"
            if status not in (0, 2):
                problems.append(f"{where}: exit {status}; stderr {err[-300:]!r}")
            elif (status == 2 and err.count("\n") > 1) or "Traceback" in err:
                problems.append(f"{where}: stderr is not one line: {err[:300]!r}")
            if argv[0] == "audit" and name == "valid" and status != 0:
                problems.append(f"{where}: audit refused a valid pipeline file: {err[-200:]!r}")
            audit_refuses = refused and not name.startswith("hostile factory=")
            if argv[0] == "audit" and audit_refuses and status != 2:
                problems.append(f"{where}: audit took a hostile pipeline file (exit {status})")
            if argv[0] == "run" and refused is not None and (status == 2) != refused:
                problems.append(f"{where}: expected {'refusal' if refused else 'exit 0'}, "
                                f"got {status}: {err[-200:]!r}")  # fmt: skip
            if "fuzz-secret" in err + captured.out:
                problems.append(f"{where}: the header's value was printed")
            if hashlib.sha256(file.read_bytes()).hexdigest() != before:
                problems.append(f"{where}: the stack file changed")
            gc.collect(1)
            if status == 2 and tree(home) != data_before:
                problems.append(f"{where}: a refused command changed the data folder")
            if status == 2 and out.exists():
                problems.append(f"{where}: a refused run wrote its results file")
            statuses[argv[0], suffix, name] = status
    assert problems == [], "\n".join(problems)
    # the harness tells good from bad: the valid files pass the dry run
    assert statuses["run", ".yaml", "valid"] == statuses["run", ".json", "valid"] == 0
    assert statuses["run", ".yaml", "hostile factory"] == 0
    print(f"{len(cases)} pipeline stack files, {len(statuses)} commands")
