"""Fuzz of stack files (issue 25): a valid stack file mutated many ways (random bytes,
truncations, wrong types per field, NaN/Infinity, deep nesting, a 10 MB line, empty, BOM;
and what a hostile user writes into one: server addresses that name no http(s) server,
keys given twice, nested aliases, limits out of range, import paths of things that are
not components), as YAML and as JSON, each fed to the two cheapest real commands that read
it: `audit --dilution --stack` (loads and checks the stack, embeds nothing) and, for the
hostile cases, `run --stack --stack-only` stopped after the plan by an Ollama server that
is not there. Every
case must end in a documented exit status with at most one line on stderr and no
traceback, leave the stack file as it was, and when refused (exit 2) leave every file of
the data folder byte for byte as it was. The mutations are those of
tests/test_cli_fuzz_inputs.py; the seed is SEED; the number of cases is printed."""

from __future__ import annotations

import gc
import hashlib
import json
import random
import re
from pathlib import Path

import pytest
from helpers.fuzz import as_json, as_yaml, byte_mutations, text_mutations, wrong_types

from ragaudit.cli.main import main
from ragaudit.runner import progress  # noqa: F401  imported before capsys swaps sys.stderr

SEED = 2525
AUDIT = Path(__file__).resolve().parents[1] / "examples" / "audit"
VALID = {
    "name": "fuzzed",
    "description": "LangChain recursive 800/80 over MiniLM",
    "splitter": {
        "class": "langchain_text_splitters.RecursiveCharacterTextSplitter",
        "args": {"chunk_size": 800, "chunk_overlap": 80},
    },
    "embedder": {
        "spec": "openai:nomic-embed-text",
        "base_url": "http://127.0.0.1:8080/v1",
        "api_key_env": "FUZZ_KEY",
    },
    "k": 4,
    "hybrid": False,
    "probes": ["boundary", "negation"],
}
LIMITS = {"call_seconds": 5, "max_results": 200, "max_chunk_text_ratio": 4}
HOSTILE_URLS = [
    "http://127.0.0.1:99999/v1", "file:///etc/passwd", "http:///v1", "http://:8080/v1",
    "127.0.0.1:8080", "ftp://models/v1", "http://user:secret@h/v1", "http://h:0/v1",
    "http://h:-1/v1", "http://h:8o8o/v1", "http://h/v1?key=1", "http://h/v1#x",
    "http://h /v1", "http://h/\u0000v1", "javascript:alert(1)", "", " ", "http://",
    "http://[::1/v1", "gopher://h:70/", "//h/v1", "HTTP://H:65536/",
]  # fmt: skip
NOT_COMPONENTS = [
    "", "builtins.exit", "sys.exit", "os.system", "os:getcwd", "builtins:print",
    "time.sleep", "json.loads", "a..b", "..", "x", "nosuch.Thing", "os.path.join.x",
    "langchain_text_splitters", "math:pi", "builtins.dict",
]  # fmt: skip
ALLOWED = {"audit": {0, 2}, "run": {2}}
REFUSED = re.compile(r"hostile (base_url=|duplicate-|aliases-[5-9]|alias-in-itself|limits\.)")
"""The hostile cases the stack file itself must be refused for (exit 2, a line naming the
file), by both commands: never read as good, never left to fail later."""


def nested_aliases(levels: int) -> bytes:
    """The valid stack with `levels` nested 9-wide aliases in its splitter's args."""
    text = as_yaml(VALID).decode()
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for level in range(1, levels):
        before, name = "abcdefghij"[level - 1], "abcdefghij"[level]
        lines.append(f"{name}: &{name} [" + ",".join([f"*{before}"] * 9) + "]")
    block = "".join(f"    {line}\n" for line in lines)
    return text.replace("  args:\n", "  args:\n" + block, 1).encode()


def hostile_cases(rng: random.Random) -> list[tuple[str, bytes]]:
    """What a hostile user writes into a stack file that still parses."""
    cases = [("limits", as_yaml({**VALID, "limits": LIMITS}))]  # read as good
    for url in HOSTILE_URLS:
        data = json.loads(json.dumps(VALID))
        data["embedder"]["base_url"] = url
        cases.append((f"base_url={url!r:.30}", as_yaml(data)))
    for path in NOT_COMPONENTS:
        for where in ("splitter", "retriever"):
            data = json.loads(json.dumps(VALID))
            if where == "splitter":
                data["splitter"] = {"class": path, "args": {}}
            else:
                data.pop("embedder")
                data["retriever"] = {"factory": path.replace(".", ":", 1) if path else ""}
            cases.append((f"{where}={path!r}", as_yaml(data)))
    text = as_yaml(VALID).decode()
    for key in ("name", "k", "splitter", "probes", "hybrid"):
        line = next(row for row in text.splitlines() if row.startswith(f"{key}:"))
        cases.append((f"duplicate-{key}", (text + line + "\n").encode()))
    cases.append(("duplicate-nested", text.replace("  chunk_size: 800\n",
                  "  chunk_size: 800\n    chunk_size: 900\n".replace("  chunk", "    chunk", 1))
                  .encode()))  # fmt: skip
    for levels in range(2, 9):
        cases.append((f"aliases-{levels}", nested_aliases(levels)))
    cases.append(("alias-in-itself", text.replace("probes:\n", "probes: &p [*p]\nold:\n").encode()))
    for field, values in {
        "call_seconds": [0, -1, 1e309, "soon", None, 10**12],
        "max_results": [0, 1.5, -5, "all", 10**30],
        "max_chunk_text_ratio": [0, float("nan"), -2, []],
        "colour": ["red"],
    }.items():
        for value in rng.sample(values, min(3, len(values))):
            data = json.loads(json.dumps(VALID))
            data["limits"] = {field: value}
            cases.append((f"limits.{field}={value!r:.20}", as_yaml(data)))
    return cases


def stack_cases(rng: random.Random) -> list[tuple[str, str, bytes]]:
    """(suffix, name, bytes) of every case: the generic mutations as YAML and as JSON,
    then the hostile ones."""
    cases = []
    for suffix, dump in ((".yaml", as_yaml), (".json", as_json)):
        valid = dump(VALID)
        mutated = [("valid", valid), *byte_mutations(rng, valid)]
        mutated += text_mutations(valid, json_like=dump is as_json)
        mutated += wrong_types(rng, VALID, dump, 3, 3, 30)
        cases += [(suffix, name, data) for name, data in mutated]
    cases += [(".yaml", f"hostile {name}", data) for name, data in hostile_cases(rng)]
    return cases


def tree(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("RAGAUDIT_HOME", str(home))
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")  # the discard port: refused
    monkeypatch.setenv("RAGAUDIT_RETRIES", "0")
    monkeypatch.setenv("RAGAUDIT_RETRY_DELAY", "0")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return tmp_path


@pytest.mark.slow(model=False)  # hundreds of CLI runs (10-20 s): the full suite, not the fast loop
def test_every_stack_file_is_refused_in_one_line_and_changes_no_file(workspace, capsys):
    rng = random.Random(SEED)
    home, out = workspace / "home", workspace / "out"
    commands = {
        "audit": lambda f: ["audit", str(AUDIT / "corpus"), "--dilution", "--stack", str(f),
                            "--out", str(out / "audit.json")],  # fmt: skip
        "run": lambda f: ["run", "--stack", str(f), "--stack-only", "--n", "1",
                          "--generator", "ollama:fuzz-model", "--out", str(out / "run.json")],
    }  # fmt: skip
    problems, ran, status_of, said = [], dict.fromkeys(commands, 0), {}, {}
    for number, (suffix, name, data) in enumerate(stack_cases(rng)):
        file = workspace / "stacks" / f"{number:03d}{suffix}"
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(data)
        for command, argv in commands.items():
            if command == "run" and not name.startswith(("hostile", "valid", "bom")):
                continue  # the generic mutations reach the same loader through the audit
            before, data_before = hashlib.sha256(data).hexdigest(), tree(home)
            try:
                status = main(argv(file))
            except BaseException as error:  # a traceback, had it been the real process
                status = f"raised {type(error).__name__}: {error}"[:300]
            err = capsys.readouterr().err
            where = f"{command} {suffix} {name}"
            if status not in ALLOWED[command]:
                problems.append(f"{where}: exit {status}; stderr {err[-300:]!r}")
            elif (status == 2 and err.count("\n") > 1) or "Traceback" in err:
                problems.append(f"{where}: stderr is not one line: {err[:300]!r}")
            if REFUSED.match(name) and (status != 2 or f"stack file {file}: line" not in err):
                problems.append(f"{where}: not refused for its stack file: {err[-300:]!r}")
            if hashlib.sha256(file.read_bytes()).hexdigest() != before:
                problems.append(f"{where}: the stack file changed")
            data_after = tree(home)
            if status == 2 and data_after != data_before:
                changed = sorted(k for k in {*data_before, *data_after}
                                 if data_before.get(k) != data_after.get(k))  # fmt: skip
                problems.append(f"{where}: a refused command changed {changed}")
            if status == 0:  # the cache it left open closes here, as it would at exit
                gc.collect(1)
            ran[command] += 1
            status_of[command, suffix, name] = status
            said[command, suffix, name] = err
    assert problems == [], "\n".join(problems)
    # the harness tells good from bad: the valid file (and one after a BOM) is read, and
    # the run is refused only for the Ollama server that is not there
    for suffix in (".yaml", ".json"):
        assert (
            status_of["audit", suffix, "valid"] == status_of["audit", suffix, "bom-then-valid"] == 0
        )
    # 9**3 strings pass the YAML bound (then the splitter refuses its unknown args a, b, c)
    assert status_of["audit", ".yaml", "hostile limits"] == 0
    assert "aliases repeat" not in said["audit", ".yaml", "hostile aliases-3"]
    assert "aliases repeat more than 10,000 values" in said["audit", ".yaml", "hostile aliases-7"]
    assert "key 'k': given twice" in said["audit", ".yaml", "hostile duplicate-k"]
    assert (
        "field embedder.base_url: the port"
        in said["run", ".yaml", "hostile base_url='http://127.0.0.1:99999/v1'"]
    )
    total = sum(ran.values())
    with capsys.disabled():
        print(f"\nstack-file fuzz (seed {SEED}): {total} cases, {ran}")
