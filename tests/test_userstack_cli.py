"""`ragaudit run --stack` and `ragaudit audit --stack` end to end on the real MiniLM embedder
and LangChain splitter (no generation): the stack's column in the results file beside the
matrix (or alone), the audit's slot policy on top of the stack's ranking, and a bad stack
file refused with exit 2 and one line before any work."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragaudit.cli.main import main
from ragaudit.probes.catalogue import shipped

# a whole run with the user's stack as a column; its generator is a fake Ollama
pytestmark = pytest.mark.slow(model=False)

ROOT = Path(__file__).resolve().parents[1]
LANGCHAIN = ROOT / "examples" / "stack" / "langchain_recursive.yaml"
OWN = ROOT / "examples" / "stack" / "own_retriever.yaml"
AUDIT = ROOT / "examples" / "audit"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    # one data folder for the module: the stack-only run replays the full run's embeddings
    with pytest.MonkeyPatch.context() as patch:
        folder = tmp_path_factory.mktemp("stack-cli-home")
        patch.setenv("RAGAUDIT_HOME", str(folder))
        yield folder


@pytest.fixture(scope="module")
def beside_matrix(home):
    out = home / "beside.json"
    flags = ["--n", "3", "--no-generate", "--embedders", "local:minilm", "--out", str(out)]
    assert main(["run", "--stack", str(LANGCHAIN), *flags]) == 0
    return json.loads(out.read_text())


def stack_records(results: dict, name: str = "langchain_recursive") -> dict[str, dict]:
    return {r["instance_id"]: r for r in results["instances"] if r["config"] == name}


def test_the_stack_is_a_column_beside_the_matrix(beside_matrix):
    names = [c["name"] for c in beside_matrix["configs"]]
    assert names[-1] == "langchain_recursive" and {"A", "B", "C", "M"} <= set(names)
    entry = beside_matrix["configs"][-1]
    assert entry["kind"] == "stack" and entry["chunking"] == "stack-langchain_recursive"
    records = stack_records(beside_matrix)
    assert len(records) == 3 * len(beside_matrix["corpus"]["probes"])  # every probe, n=3
    assert all(
        r["embedder"] == "local:minilm" and len(r["retrieved"]) == 3 for r in records.values()
    )
    index = next(i for i in beside_matrix["run"]["indexes"] if i["chunking"].startswith("stack-"))
    assert index["approximate_spans"] == 0
    assert beside_matrix["run"]["chunk_counts"]["stack-langchain_recursive"] == index["chunks"]
    cells = [c for c in beside_matrix["cells"] if c["config"] == "langchain_recursive"]
    assert {c["probe"] for c in cells} == {p["name"] for p in beside_matrix["corpus"]["probes"]}


def test_gold_in_context_of_two_stack_records_checked_by_hand(beside_matrix):
    records, chunks = stack_records(beside_matrix), beside_matrix["chunks"]

    def texts(record):
        return [chunks[hit["chunk_id"]]["text"] for hit in record["retrieved"]]

    # boundary-000: its one gold sentence ("In section 1977-B, key issue logs are kept for 45
    # months ...") is whole in the chunk ranked 2nd, boundary-000#1
    boundary = records["boundary-000"]
    (gold,) = boundary["gold_spans"]
    assert gold["text"].startswith("In section 1977-B")
    holding = [t for t in texts(boundary) if gold["text"] in t]
    assert len(holding) == 1 and boundary["retrieved"][1]["chunk_id"].endswith("boundary-000#1")
    assert boundary["gold_in_context"] is True
    # multihop-000: the answer hop arrives (multihop-000-b#0), the mapping hop ("Team 286 is
    # based in zone Harrow.") is in none of the three chunks
    multihop = records["multihop-000"]
    mapping, answer = multihop["gold_spans"]
    assert mapping["text"] == "Team 286 is based in zone Harrow."
    assert not any(mapping["text"] in t for t in texts(multihop))
    assert any(answer["text"] in t for t in texts(multihop))
    assert multihop["gold_in_context"] is False
    assert multihop["hops"] == {"mapping": False, "answer": True}


def test_stack_only_runs_the_stack_alone(home, beside_matrix):
    out = home / "alone.json"
    flags = ["--n", "3", "--no-generate", "--embedders", "local:minilm", "--out", str(out)]
    assert main(["run", "--stack", str(LANGCHAIN), "--stack-only", *flags]) == 0
    alone = json.loads(out.read_text())
    assert [c["name"] for c in alone["configs"]] == ["langchain_recursive"]
    assert {r["config"] for r in alone["instances"]} == {"langchain_recursive"}
    assert [m["spec"] for m in alone["models"]] == ["local:minilm"]
    # the same stack over the same corpus ranks the same whether the matrix ran or not
    before = stack_records(beside_matrix)
    for instance_id, record in stack_records(alone).items():
        assert record["gold_in_context"] == before[instance_id]["gold_in_context"]
    assert alone["conditions"]["calls"]["computed"] == 0  # every call replayed


def test_the_audit_applies_its_slot_policy_on_top_of_the_stack(home, capsys):
    out = home / "audit.json"
    args = ["audit", str(AUDIT / "corpus"), str(AUDIT / "cases.yaml")]
    args += ["--settings", str(AUDIT / "prod.yaml"), "--stack", str(LANGCHAIN), "--out", str(out)]
    assert main(args) in (0, 1)  # 1: some case fails, which is what an audit reports
    results = json.loads(out.read_text())
    assert results["index"]["chunking"] == "stack-langchain_recursive"
    assert results["index"]["stack"]["name"] == "langchain_recursive"
    assert results["settings"]["values"]["k"] == 3  # the stack's k, prod.yaml's floor and cap
    assert results["settings"]["values"]["per_source_cap"] == 2
    for case in results["cases"]:
        assert case["status"] in ("pass", "fail") and len(case["top_k"]) <= 3
        assert case["policy"]["floor_slots"] == 2
        per_source = [c["source"] for c in case["top_k"]]
        assert all(per_source.count(s) <= 2 for s in per_source)
        assert all(c["chunk_id"].startswith("stack-langchain_recursive/") for c in case["top_k"])


BAD = {
    "unknown import path": (
        "name: s\nsplitter: {class: nosuch_pkg.Splitter}\nembedder: local:minilm\nk: 3\n",
        "line 2: field splitter.class: cannot import 'nosuch_pkg.Splitter'",
    ),
    "unknown key": (
        "name: s\nsplitter: {class: x.Y}\nembedder: local:minilm\nk: 3\ntop_k: 3\n",
        "line 5: field top_k: unknown field",
    ),
    "clashing name": (
        "name: M\nsplitter: {class: x.Y}\nembedder: local:minilm\nk: 3\n",
        "line 1: field name: 'M' clashes with a built-in config",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_stack_file_exits_2_with_one_line(home, tmp_path, capsys, case):
    text, says = BAD[case]
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "never.json"
    assert main(["run", "--stack", str(path), "--no-generate", "--out", str(out)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert str(path) in line and says in line
    assert not out.exists()


def test_stack_only_without_a_stack_is_refused(home, capsys):
    assert main(["run", "--stack-only", "--no-generate"]) == 2
    assert "--stack-only: give at least one --stack FILE" in capsys.readouterr().err


def test_stack_records_are_generated_with_the_stacks_own_generator(
    home, tmp_path, fake_ollama, monkeypatch
):
    server = fake_ollama()
    monkeypatch.setenv("OLLAMA_HOST", server.url)
    text = LANGCHAIN.read_text().replace("k: 3", "k: 3\ngenerator: ollama:qwen2.5:7b\n")
    path = tmp_path / "with_generator.yaml"
    path.write_text(text + "probes: [boundary]\n", encoding="utf-8")
    out = tmp_path / "generated.json"
    flags = ["--n", "1", "--embedders", "local:minilm", "--out", str(out)]
    assert main(["run", "--stack", str(path), "--stack-only", *flags]) == 0
    results = json.loads(out.read_text())
    (record,) = results["instances"]
    assert record["generation"]["generator"] == "ollama:qwen2.5:7b"
    assert record["generation"]["reply"].startswith("fake reply to: Context:")
    assert record["grade"] is not None and record["oracle"]["generation"]["status"] == "ok"
    # the run's default generator (local:qwen2.5-1.5b) was never loaded
    assert [(m["spec"], m["kind"]) for m in results["models"]] == [
        ("local:minilm", "embedder"),
        ("ollama:qwen2.5:7b", "generator"),
    ]
    counts = results["run"]["stack_generation_counts"]["langchain_recursive"]
    assert (counts["records"], counts["prompts"]) == (1, 2)  # its prompt and its oracle prompt
    assert server.requests().get("/api/chat") == 2


def test_a_retriever_naming_no_chunk_is_a_counted_failed_call_and_the_run_goes_on(
    ragaudit_home, tmp_path, capsys
):
    """Junk for a question is that question's failed call (issue 25, item 14): exit 1, the
    count and the reason on stderr and in the results file, every record kept."""
    path = tmp_path / "phantom.yaml"
    path.write_text(
        "name: phantom\nsplitter: {class: "
        "langchain_text_splitters.RecursiveCharacterTextSplitter}\n"
        "retriever: {factory: 'test_userstack_stage:phantom_retriever'}\nk: 3\n",
        encoding="utf-8",
    )
    out = tmp_path / "phantom.json"
    flags = ["--n", "1", "--no-generate", "--stack-only", "--out", str(out)]
    assert main(["run", "--stack", str(path), *flags]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    # one question per probe at n=1, each asked once and each failed
    questions = len(shipped())
    assert (
        f"{questions} of {questions} calls failed: {questions} × retrieve "
        "retriever:test_userstack_stage:"
    ) in err
    assert f"{path}: line 3: field retriever.factory: returned 'no-such-chunk-id'" in err
    # a run with failed calls may write them beside `out`, leaving it (issue 25, item 10)
    failed = out.with_name("phantom.failed.json")
    results = json.loads((failed if failed.exists() else out).read_text())
    assert len(results["instances"]) == questions
    assert all("names no chunk" in r["retrieval_error"] for r in results["instances"])
    assert results["conditions"]["calls"]["failed"] == questions
