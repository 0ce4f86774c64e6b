"""Generation: the prompt, citation labels, identical prompts generated once, replay from the
cache, and failed calls kept (a local process speaking Ollama's API stands in for a server)."""

from __future__ import annotations

import pytest
from helpers.ollama_fake import start_fake_ollama

from ragaudit.analysis import analyse
from ragaudit.backends.cache import CallCache
from ragaudit.backends.retry import RetryPolicy
from ragaudit.backends.specs import load_generator
from ragaudit.grading.grade import grade_records
from ragaudit.report.document import render_markdown
from ragaudit.runner.generate import (
    ABSTAIN_TOKEN,
    build_messages,
    generate_records,
    parse_citations,
)

FAST = RetryPolicy(retries=3, delay=0.01, timeout=10)
CHUNKS = {
    "recursive-1000-0/sup-018#0": {"text": "Current policy for site EB-4: inspect every 38 days."},
    "recursive-1000-0/filler-2#0": {"text": "The canteen rota changes every Monday."},
    "recursive-1000-200/sup-018#0": {
        "text": "Current policy for site EB-4: inspect every 38 days."
    },
    "recursive-1000-200/filler-2#0": {"text": "The canteen rota changes every Monday."},
    "recursive-1000-0/other#0": {"text": "Site EB-9 is audited every 14 days."},
}


def _record(
    config,
    chunking,
    question="How often is site EB-4 inspected?",
    probe="superseded",
    first="sup-018#0",
):
    ids = [f"{chunking}/{first}", f"{chunking}/filler-2#0"]
    return {
        "key": f"{probe}/{probe}-000/{config}/local:minilm",
        "probe": probe,
        "layer": "architectural",
        "instance_id": f"{probe}-000",
        "config": config,
        "embedder": "local:minilm",
        "question": question,
        "gold_answer": "38 days",
        "grading": {"kind": "value", "accept": ["38 days"], "trap_values": ["28 days"]},
        "retrieved": [
            {"chunk_id": cid, "rank": rank, "score": 0.9 - rank / 10}
            for rank, cid in enumerate(ids, start=1)
        ],
        "retrieval_error": None,
        "gold_in_context": True,
        "span_preserved": True,
        "generation": None,
    }


def test_the_prompt_carries_the_abstain_instruction_labels_and_question():
    messages = build_messages(
        "How often?",
        [{"chunk_id": "x/a#0", "text": " alpha "}, {"chunk_id": "x/b#0", "text": "beta"}],
    )
    assert [m["role"] for m in messages] == ["system", "user"]
    assert ABSTAIN_TOKEN in messages[0]["content"] and "[c1]" in messages[0]["content"]
    assert messages[1]["content"] == "Context:\n[c1] alpha\n\n[c2] beta\n\nQuestion: How often?"
    assert len(messages[0]["content"]) < 260  # every prompt token costs time on a small model


def test_citations_resolve_to_real_chunk_ids():
    labels = {"c1": "r/a#0", "c2": "r/b#0"}
    assert parse_citations("38 days [c2]", labels) == ["r/b#0"]
    assert parse_citations("38 days [1] [C2, c1]", labels) == ["r/a#0", "r/b#0"]
    assert parse_citations("see [r/b#0] and [c7]", labels) == ["r/b#0", "c7"]
    assert parse_citations("no marks here", labels) == []
    assert parse_citations("[Chunk 2] and [chunk c1]", labels) == ["r/b#0", "r/a#0"]
    assert parse_citations("a footnote [see above]", labels) == []
    assert parse_citations("[55]", labels) == []  # a bracketed value, not a chunk


@pytest.mark.slow  # a real 0.5B model: ~13 s on a quiet machine, minutes under load
def test_identical_prompts_are_generated_once_and_replayed_on_rerun(ragaudit_home):
    # B and C retrieve the same texts under different chunk ids: one prompt, two records.
    records = [
        _record("B", "recursive-1000-0"),
        _record("C", "recursive-1000-200"),
        _record(
            "M",
            "recursive-1000-0",
            question="Which site is audited every 14 days?",
            first="other#0",
        ),
        _record("A", "recursive-1000-0"),
    ]
    records[2]["key"] = "superseded/superseded-001/M/local:minilm"
    generator = load_generator("local:qwen2.5-0.5b", cache=CallCache())
    seen = []
    counts = generate_records(
        records,
        CHUNKS,
        generator,
        gen_configs=["B", "C", "M"],
        progress=lambda done, total, replayed: seen.append((done, total)),
        params={"max_tokens": 24},
    )
    tokens = counts.pop("tokens")
    assert counts == {
        "records": 3,
        "prompts": 2,
        "computed": 2,
        "replayed": 0,
        "failed": 0,
        "oracle_records": 0,  # these records carry no gold span, so no oracle context
        "oracle_prompts": 0,
    }
    # llama.cpp measured both prompts; their first chunks differ, so each starts its own
    # reuse segment and is evaluated whole (test_backends_prefix_segments.py: reuse within one)
    assert tokens["prompts_measured"] == 2 and tokens["generated_tokens"] >= 2
    assert 0 < tokens["prompt_tokens_evaluated"] == tokens["prompt_tokens"]
    assert tokens["warm_up_tokens_evaluated"] == 0
    usage = records[0]["generation"]["usage"]
    assert usage["prompt_tokens_evaluated"] <= usage["prompt_tokens"]
    assert seen == [(1, 2), (2, 2)]
    b, c, m, a = records
    assert a["generation"] is None  # config A was not asked for
    assert b["generation"]["status"] == "ok" and isinstance(b["generation"]["reply"], str)
    assert b["generation"]["reply"] == c["generation"]["reply"]
    assert b["generation"]["prompt_sha256"] == c["generation"]["prompt_sha256"]
    assert b["generation"]["citation_labels"]["c1"] == "recursive-1000-0/sup-018#0"
    assert c["generation"]["citation_labels"]["c1"] == "recursive-1000-200/sup-018#0"
    assert set(c["generation"]["citations"]) <= set(c["generation"]["citation_labels"].values())
    again = generate_records(
        records, CHUNKS, generator, gen_configs=["B", "C", "M"], params={"max_tokens": 24}
    )
    assert again["replayed"] == 2 and again["computed"] == 0
    assert b["generation"]["replayed"] is True
    assert again["tokens"] == tokens  # a replay reports what the prompt cost when computed
    assert b["generation"]["usage"] == usage
    only_m = generate_records(
        [dict(r, generation=None) for r in records],
        CHUNKS,
        generator,
        gen_configs=["B", "C", "M"],
        gen_probes=["multihop"],
    )
    assert only_m["prompts"] == 0


@pytest.fixture
def flaky_ollama():
    # 4 failed attempts exhaust the digest lookup, 4 more the first prompt; then it serves.
    server = start_fake_ollama("error500", failures=8)
    yield server
    server.stop()


def test_failed_calls_are_kept_counted_and_named(ragaudit_home, flaky_ollama):
    generator = load_generator(
        "ollama:qwen2.5:7b", cache=CallCache(), host=flaky_ollama.url, retry=FAST
    )
    records = [
        _record("B", "recursive-1000-0"),
        _record("B", "recursive-1000-0", question="Which site is audited every 14 days?"),
        dict(_record("B", "recursive-1000-0"), retrieval_error="embedding call failed: boom"),
    ]
    records[1]["key"], records[2]["key"] = "superseded/s-1/B/e", "superseded/s-2/B/e"
    counts = generate_records(records, CHUNKS, generator, gen_configs=["B"])
    assert counts["failed"] == 1 and counts["prompts"] == 2 and counts["records"] == 3
    first, second, no_retrieval = records
    assert first["generation"]["status"] == "failed_call"
    assert "failed /api/chat" in first["generation"]["error"]
    assert second["generation"]["status"] == "ok"
    assert no_retrieval["generation"]["status"] == "failed_call"
    grade_records(records, chunks_by_id=CHUNKS)
    verdicts = [r["grade"]["verdict"] for r in records]
    assert verdicts[0] == verdicts[2] == "failed_call" and verdicts[1] != "failed_call"
    results = {
        "configs": [{"name": "B"}],
        "embedders": [],
        "instances": records,
        "comparisons": [],
        "conditions": {},
    }
    analyse(results)
    (cell,) = results["cells"]
    assert cell["measures"]["failed_call"]["count"] == 2
    assert cell["measures"]["correct"]["n"] == 3
    markdown = render_markdown(results)
    assert "> (no reply: " in markdown and first["key"] in markdown
