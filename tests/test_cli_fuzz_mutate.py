"""Fuzz `ragaudit mutate`'s mutation case file (issue 27), in the style of
test_cli_fuzz_inputs: the case file mutated every way a file gets there (random bytes,
truncations, a BOM, deep nesting, a 10 MB line, wrong types per field), then the ways a
person gets a mutation case wrong (no `answer:`, an answer its sources do not hold, an
anchor the document lacks, an unknown source, a duplicate intent, an unknown field, a
number where a string goes, a binary file, a 20 MB file), and `--operators` given unknown
names. Every case ends in 0, 1 or 2 with at most one line on stderr and no traceback; a
refused case (exit 2) names the file and the field or the value, and writes neither the
results file nor the JUnit file; no input changes. The column is a stack with a word-overlap
retriever (test_mutate_discriminates), so no model loads: each run is a few milliseconds."""

from __future__ import annotations

import random

import pytest
from helpers.fuzz import SEED, Fuzz, as_yaml, document_mutations, sha256
from test_mutate_discriminates import FILLER, POLICY, RETRIEVER, TABLE

from ragaudit.cli.main import main

CASES = {
    "intents": [
        {"intent": "overtime-rate", "expect": ["handbook"], "answer": "150 percent",
         "anchor": "Overtime",
         "phrasings": ["What is the overtime pay rate on the quay for the first two hours?"]},
        {"intent": "crane-k2", "expect": ["cranes"], "answer": "63 tonnes", "anchor": "Crane K2",
         "phrasings": [{"id": "lift", "q": "How much can crane K2 lift?"}]},
    ]
}  # fmt: skip
STACK = """\
name: overlap
splitter:
  class: langchain_text_splitters.RecursiveCharacterTextSplitter
  args: {chunk_size: 400, chunk_overlap: 0}
retriever:
  factory: overlap_retriever:make
  args: {}
k: 2
"""


def _intent(**changes) -> dict:
    """The first valid intent with `changes` (a value of ... removes the field)."""
    intent = {**CASES["intents"][0], **changes}
    return {k: v for k, v in intent.items() if v is not ...}


def _file(*intents: dict) -> bytes:
    return as_yaml({"intents": list(intents)})


REFUSED = [
    # (name, file bytes, words the one line must hold: the field or the value)
    ("answer-missing", _file(_intent(answer=...)), "intents[0].answer: intent 'overtime-rate'"),
    ("answer-not-in-sources", _file(_intent(answer="151 percent")), "answer: intent"),
    ("answer-inside-a-longer-value", _file(_intent(answer="50 percent")), "'50 percent'"),
    ("answer-in-another-document", _file(_intent(answer="63 tonnes")), "'63 tonnes'"),
    (
        "answer-number",
        b"intents:\n  - {intent: a, expect: [handbook], answer: 150, phrasings: [q]}\n",
        "intents[0].answer",
    ),
    ("answer-list", _file(_intent(answer=["150 percent"])), "intents[0].answer"),
    ("answer-mapping", _file(_intent(answer={"v": 1})), "intents[0].answer"),
    ("answer-empty", _file(_intent(answer="")), "intents[0].answer"),
    ("answer-null", _file(_intent(answer=None)), "intents[0].answer"),
    ("anchor-not-in-document", _file(_intent(anchor="Crane K9")), ".anchor: intent"),
    ("anchor-empty", _file(_intent(anchor="")), "intents[0].anchor"),
    ("anchor-list", _file(_intent(anchor=["Overtime"])), "intents[0].anchor"),
    ("unknown-source", _file(_intent(expect=["handbook/v2"])), ".expect: intent"),
    ("no-expected-source", _file(_intent(expect=...)), "names no expected source"),
    ("duplicate-intent", _file(_intent(), _intent()), "appears twice"),
    ("unknown-intent-field", _file(_intent(answers="150 percent")), "intents[0].answers"),
    ("unknown-top-field", as_yaml({**CASES, "operators": ["dilute"]}), "operators"),
    ("no-intents", b"intents: []\n", "intents"),
    ("intents-mapping", b"intents: {a: 1}\n", "intents"),
    ("blank-question", _file(_intent(phrasings=["  "])), "intents[0].phrasings[0].q"),
    ("no-phrasings", _file(_intent(phrasings=[])), "intents[0].phrasings"),
    ("malformed-yaml", b"intents:\n  - intent: a\n   answer: [150 percent\n", "invalid YAML"),
    ("tab-indented", b"intents:\n\t- intent: a\n", "invalid YAML"),
    ("binary", bytes(range(256)) * 64, "not UTF-8 text"),
    ("nul-bytes", b"intents:\x00\x00\n", "case file"),
    ("huge-file", b"intents:\n" + (b"  # " + b"x" * 1000 + b"\n") * (20 * 1024), "MB, more than"),
]
"""Mutation case files a person gets wrong; each must be refused (exit 2) in one line."""

OPERATOR_FLAGS = [
    # (operators, other flags, words the one line must hold)
    (("nope",), (), "'nope'"),
    (("supersede", "Supersede"), (), "'Supersede'"),
    (("control",), (), "'control'"),
    (("supersede,dilute",), (), "'supersede,dilute'"),
    (("",), (), "''"),
    (("x" * 5000,), (), "unknown operator"),
    (("supersede",), ("--fail-under", "1.5"), "--fail-under 1.5"),
]


def _refused(capsys, argv: list[str], file, written: tuple) -> tuple[str | None, str]:
    """Run `argv` in-process; it must exit 2 with one stderr line, leave `file` as it was
    and write none of `written`. Returns (what went wrong or None, the stderr line)."""
    before = sha256(file)
    for path in written:
        path.unlink(missing_ok=True)
    try:
        status = main(argv)
    except BaseException as error:  # a traceback, had it been the real process
        status = f"raised {type(error).__name__}: {error}"[:300]
    err = capsys.readouterr().err
    if status != 2:
        return f"exit {status}; stderr {err[:300]!r}", err
    if err.count("\n") != 1 or "Traceback" in err:
        return f"stderr is not one line: {err[:300]!r}", err
    if sha256(file) != before:
        return "the input file changed", err
    if any(path.exists() for path in written):
        return "refused, yet a results or JUnit file was written", err
    return None, err


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    """The word-overlap stack over a five-document corpus, and a data folder of its own."""
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "handbook.md").write_text(POLICY, encoding="utf-8")
    (corpus / "cranes.md").write_text(TABLE, encoding="utf-8")
    for i, text in enumerate(FILLER):
        (corpus / f"news-{i}.md").write_text(" ".join([text] * 3), encoding="utf-8")
    (tmp_path / "overlap_retriever.py").write_text(RETRIEVER, encoding="utf-8")
    (tmp_path / "stack.yaml").write_text(STACK, encoding="utf-8")
    return tmp_path


def test_mutation_case_files_end_in_a_documented_status_in_one_line(workspace, capsys):
    corpus, stack = workspace / "corpus", workspace / "stack.yaml"
    out, junit = workspace / "out" / "mutate.json", workspace / "out" / "mutate.xml"
    fixed = {path: sha256(path) for path in [stack, *corpus.iterdir()]}
    rng = random.Random(SEED + 27)
    fuzz = Fuzz(capsys, workspace / "cases")

    def argv(file, operators=("supersede",), *extra: str) -> list[str]:
        return ["mutate", str(corpus), str(file), "--stack", str(stack), "--no-generate",
                "--operators", *operators, "--out", str(out), "--junit", str(junit),
                *extra]  # fmt: skip

    problems = fuzz.problems
    mutated = document_mutations(rng, CASES, as_yaml, depth=5, per_field=2, limit=24)
    for number, (name, data) in enumerate(mutated):
        file = workspace / "cases" / "fuzzed" / f"{number:03d}.yaml"
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(data)
        out.unlink(missing_ok=True)
        junit.unlink(missing_ok=True)
        status = fuzz.case("fuzzed", name, argv(file), {0, 1, 2}, file)
        if status == 2 and (out.exists() or junit.exists()):
            problems.append(f"fuzzed/{name}: refused, yet a results or JUnit file was written")
    # The harness tells good from bad: the valid file (and one after a BOM) runs to the end,
    # a plain stack letting both supersede mutants survive (exit 1).
    assert fuzz.status["fuzzed", "valid"] == fuzz.status["fuzzed", "bom-then-valid"] == 1
    for name, data, words in REFUSED:
        file = workspace / "cases" / "refused" / f"{name}.yaml"
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(data)
        wrong, line = _refused(capsys, argv(file), file, (out, junit))
        if wrong is None and (words not in line or str(file) not in line):
            wrong = f"{line!r} lacks {words!r} or the file's name"
        if wrong is not None:
            problems.append(f"refused/{name}: {wrong}")
    valid = workspace / "cases" / "valid.yaml"
    valid.write_bytes(as_yaml(CASES))
    for operators, extra, words in OPERATOR_FLAGS:
        wrong, line = _refused(capsys, argv(valid, operators, *extra), valid, (out, junit))
        if wrong is None and words not in line:
            wrong = f"{line!r} lacks {words!r}"
        if wrong is not None:
            problems.append(f"flags {operators} {extra}: {wrong}")
    assert problems == [], "\n".join(problems)
    assert {path: sha256(path) for path in fixed} == fixed
    total = sum(fuzz.ran.values()) + len(REFUSED) + len(OPERATOR_FLAGS)
    with capsys.disabled():
        print(f"\nfuzz mutate (seed {SEED + 27}): {total} cases, {fuzz.ran}")
