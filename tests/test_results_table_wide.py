"""table_split at 4000 characters through generation (T4000, beside the matrix): in both
presets, retrieved over every corpus document, recorded for table_split only, and reported
in its own section and on the Matrix page from the results file alone."""

from __future__ import annotations

import argparse
import copy
import json
from types import SimpleNamespace

import pytest
from helpers.analysis_fixtures import analysed_results
from helpers.stage_fixtures import run_stage_once
from helpers.ui_fixtures import build_results, chart_specs, open_app, texts

from ragaudit.cli import run as run_cli
from ragaudit.cli.run import plan_from_args
from ragaudit.documents import Document
from ragaudit.errors import RagauditError
from ragaudit.probes.base import Instance, Span
from ragaudit.report.document import render_markdown
from ragaudit.runner.plan import build_plan
from ragaudit.stack import presets
from ragaudit.stack.configs import A_PRIME, COMPARISONS, MATRIX, T4000

MATRIX_NAMES = ["A", "A_prime", "B", "C", "C_prime", "D", "M"]
TITLE = "table_split at 4000 characters"


def parse(*flags: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="ragaudit run")
    run_cli.add_arguments(parser)
    return parser.parse_args(list(flags))


# --- presets and plan -------------------------------------------------------------------


def test_both_presets_run_and_generate_t4000_beside_the_seven_matrix_columns():
    for preset in (presets.QUICK, presets.FULL):
        assert [c.name for c in preset.configs] == [*MATRIX_NAMES, "T4000"], preset.name
        assert "T4000" in preset.gen_configs, preset.name
    assert (T4000.splitter, T4000.chunk_size, T4000.overlap, T4000.k) == ("recursive", 4000, 0, 3)
    assert T4000.probes == ("table_split",) and T4000.chunking_name == "recursive-4000-0"
    assert T4000.description == (
        "recursive 4000/0, k=3: table_split at 4000 characters, outside the matrix "
        "(the originating study's check)"
    )
    assert [c.name for c in MATRIX] == MATRIX_NAMES  # the matrix keeps its seven columns
    named = {name for c in COMPARISONS for name in (c.from_config, c.to_config)}
    assert "T4000" not in named  # not one of the matrix's comparisons


def test_the_plan_can_leave_t4000_out(ragaudit_home, tmp_path):
    quick = plan_from_args(parse("--quick"))
    assert quick.gen_configs == ("B", "C", "T4000")
    off = plan_from_args(parse("--quick", "--no-extra-configs"))
    assert [c.name for c in off.configs] == MATRIX_NAMES and off.gen_configs == ("B", "C")
    # named generation configs without it: retrieved, not generated for
    named = plan_from_args(parse("--gen-configs", "B"))
    assert "T4000" in [c.name for c in named.configs] and named.gen_configs == ("B",)
    with pytest.raises(RagauditError, match="unknown config 'T4000'; valid: A, A_prime, B, C"):
        build_plan(presets.QUICK, extra_configs=False, gen_configs=["T4000"])
    extra = tmp_path / "extra.yaml"
    extra.write_text("- {name: X, splitter: recursive, chunk_size: 600, overlap: 0, k: 5}\n")
    mine = plan_from_args(parse("--configs", str(extra), "--no-extra-configs"))
    assert [c.name for c in mine.configs] == [*MATRIX_NAMES, "X"]  # user configs still join


# --- the retrieval stage on a hand-made corpus ---------------------------------------------

HEADER = "Asset | Location | Rated load (kg)"
ANSWER_ROW = "TA-77 | Bay 9 | 415"
FILLER = "The plant keeps its records in the main office and reviews them each quarter. "


def _table_document() -> tuple[Document, Span, Span]:
    rows = [f"TA-{i:02d} | Bay {i % 12} | {100 + 5 * i}" for i in range(60)]
    text = "Section 9: hoist register\n\n" + "\n".join([HEADER, *rows, ANSWER_ROW]) + "\n\n"
    header_at, row_at = text.index(HEADER), text.index(ANSWER_ROW)
    assert row_at - header_at > 1000 and len(text) < 4000  # apart at 1000, whole at 4000
    doc = Document("t-1", text)
    return (
        doc,
        Span("t-1", row_at, row_at + len(ANSWER_ROW), ANSWER_ROW, "table_row"),
        Span("t-1", header_at, header_at + len(HEADER), HEADER, "table_header"),
    )


def _corpus() -> SimpleNamespace:
    table, row, header = _table_document()
    control_text = FILLER * 3 + "The loading dock at site 2210-K opens at 6 am. " + FILLER
    at = control_text.index("The loading dock")
    control_span = Span("c-1", at, at + 45, control_text[at : at + 45])
    instances = [
        Instance(
            "table_split",
            "architectural",
            "table_split-001",
            "What is the rated load, in kilograms, of hoist TA-77 in section 9?",
            "415 kilograms",
            (row,),
            extra_spans=(header,),
            answer_doc_ids=("t-1",),
            anchor="TA-77",
        ),
        Instance(
            "control",
            "control",
            "control-001",
            "When does the loading dock at site 2210-K open?",
            "6 am",
            (control_span,),
            anchor="2210-K",
        ),
    ]
    documents = [
        table,
        Document("c-1", control_text),
        Document("f-1", FILLER * 20),
        Document("f-2", "Forklift charging bays are swept daily. " * 30),
    ]
    return SimpleNamespace(documents=documents, instances=instances, n=1, seed=7)


@pytest.fixture(scope="module")
def stage_output(tmp_path_factory):
    """One run of the stage, read (never changed) by both tests below."""
    home = tmp_path_factory.mktemp("ragaudit-home")
    return run_stage_once(home, _corpus(), (A_PRIME, T4000))[0]


def test_t4000_records_exist_for_table_split_only(stage_output):
    got = {(r["probe"], r["config"], r["embedder"]) for r in stage_output["instances"]}
    assert got == {
        ("table_split", "A_prime", "local:minilm"),
        ("control", "A_prime", "local:minilm"),
        ("table_split", "T4000", "local:minilm"),
        ("control", "A_prime", "ollama:mxbai-embed-large"),
    }
    # the secondary embedder never runs table_split, so it gets no 4000-character index
    indexed = {(s["embedder"], s["chunking"]) for s in stage_output["indexes"]}
    assert ("ollama:mxbai-embed-large", "recursive-4000-0") not in indexed
    assert ("local:minilm", "recursive-4000-0") in indexed


def test_t4000_retrieves_over_every_corpus_document(stage_output):
    # four documents, each under 4000 characters: one chunk apiece, every one indexed
    (stats,) = [
        s
        for s in stage_output["indexes"]
        if (s["embedder"], s["chunking"]) == ("local:minilm", "recursive-4000-0")
    ]
    assert stats["chunks"] == 4
    assert set(stage_output["chunk_offsets"]["recursive-4000-0"]) == {"t-1", "c-1", "f-1", "f-2"}
    by_config = {
        r["config"]: r
        for r in stage_output["instances"]
        if r["probe"] == "table_split" and r["embedder"] == "local:minilm"
    }
    wide = by_config["T4000"]
    assert len(wide["retrieved"]) == 3  # k=3 of the four documents
    assert len({hit["chunk_id"].split("#")[0] for hit in wide["retrieved"]}) == 3
    assert wide["table_together"] is True and wide["gold_in_context"] is True
    assert by_config["A_prime"]["table_together"] is False  # 1000 characters part them


# --- the report section and the Matrix page, from a hand-built results fragment ------------

REPLIES = {  # instance -> (verdict, branch, reply)
    "table_split-001": ("correct", "value_match:phrase:415", "The rated load is 415 kg [c1]."),
    "table_split-002": (
        "denied_record",
        "denial_of_record_then_value",
        "TA-31 is not listed in the table. The rated load of TA-30 is 250 kg [c1].",
    ),
    "table_split-003": ("wrong", "no_accepted_value", "The rated load is 340 kg [c1]."),
    "table_split-004": ("abstained", "abstention_pattern", "NOT_IN_CONTEXT"),
    "table_split-005": ("wrong", "no_accepted_value", "It is 120 kilograms [c2]."),
}


def _measure(count: int, n: int = 5) -> dict:
    return {"count": count, "n": n, "rate": count / n, "wilson": [0.0, 1.0]}


def _with_t4000(results: dict, replies: dict) -> dict:
    """`results` plus a T4000 config, its table_split cell and records, written by hand."""
    results = copy.deepcopy(results)
    results["configs"].append(
        {
            "name": "T4000",
            "splitter": "recursive",
            "chunk_size": 4000,
            "overlap": 0,
            "k": 3,
            "hybrid": False,
            "description": "recursive 4000/0, k=3: table_split at 4000 characters, outside "
            "the matrix (the originating study's check)",
            "probes": ["table_split"],
        }
    )
    n = len(replies)
    results["extra_measurements"] = {
        **(results.get("extra_measurements") or {}),
        "table_split_4000": {
            "chunking": "recursive-4000-0",
            "table_together": {"count": n, "n": n},
            "records": [],
        },
    }
    template = next(
        r for r in results["instances"] if r["embedder"] == "local:minilm" and r["generation"]
    )
    for instance_id, (verdict, branch, reply) in replies.items():
        record = copy.deepcopy(template)
        record.update(
            key=f"table_split/{instance_id}/T4000/local:minilm",
            instance_id=instance_id,
            probe="table_split",
            layer="architectural",
            config="T4000",
            embedder="local:minilm",
            table_together=True,
            gold_in_context=True,
            question=f"What is the rated load of the asset in {instance_id}?",
            gold_answer="415 kilograms",
        )
        record["generation"] = {**(record.get("generation") or {}), "status": "ok", "reply": reply}
        record["grade"] = {"verdict": verdict, "correct": verdict == "correct", "branch": branch}
        results["instances"].append(record)
    cell = copy.deepcopy(
        next(c for c in results["cells"] if c["embedder"] == "local:minilm" and c["generated"])
    )
    verdicts = [v for v, _, _ in replies.values()]
    cell.update(probe="table_split", layer="architectural", config="T4000", n=n)
    cell.update(generated=True, failure_basis="answer")
    cell.update(failures=n - verdicts.count("correct"), successes=verdicts.count("correct"))
    cell["measures"].update(gold_in_context=_measure(n, n), span_preserved=_measure(n, n))
    for verdict in ("correct", "wrong", "denied_record", "abstained", "empty", "failed_call"):
        cell["measures"][verdict] = _measure(verdicts.count(verdict), n)
    results["cells"].append(cell)
    return results


@pytest.fixture
def wide_results():
    """The report's analysed fixture plus T4000."""
    return _with_t4000(analysed_results(), REPLIES)


def test_the_report_section_prints_the_counts_and_quotes_every_wrong_reply(wide_results):
    text = render_markdown(wide_results)
    section = text.split(f"## {TITLE}\n", 1)[1].split("\n## ", 1)[0]
    for line in (
        "- Retrieval under local:minilm, over every corpus document cut at recursive-4000-0 "
        "(gold row among the 3 chunks retrieved): 100% 5/5.",
        "- Header and answer row in one chunk at recursive-4000-0 (model-free, every "
        "table_split instance): 100% 5/5.",
        "- Answers not correct: 80% 4/5.",
        "- Answers by verdict: correct 20% 1/5, wrong 40% 2/5, denied_record 20% 1/5, "
        "abstained 20% 1/5, empty 0% 0/5, failed_call 0% 0/5.",
        "- Denial of record: 20% 1/5 replies say the asked asset's record is not in the table",
        "Replies quoted: every reply not graded correct, in instance order.",
    ):
        assert line in section, line
    for instance_id in ("table_split-002", "table_split-003", "table_split-004", "table_split-005"):
        assert f"> {REPLIES[instance_id][2]}" in section
    assert "The rated load is 415 kg" not in section  # the correct reply is not quoted
    assert "table_split-002: denied_record (branch denial_of_record_then_value); header and " \
        "row in one chunk: yes." in section  # fmt: skip


def test_the_probe_tables_give_t4000_its_own_column_run_on_table_split_only(wide_results):
    text = render_markdown(wide_results)
    retrieval = text.split("## Retrieval: did the evidence reach the model", 1)[1]
    lines = retrieval.split("\n## ", 1)[0].splitlines()
    header = next(line for line in lines if line.startswith("| Probe | Layer |"))
    column = [c.strip() for c in header.split("|")].index("T4000")
    rows = {line.split("|")[1].strip(): line.split("|") for line in lines if line.startswith("| ")}
    assert rows["table_split"][column].strip() == "100% 5/5"
    assert rows["boundary"][column].strip() == "not run"


def test_at_n25_the_denials_and_the_first_three_other_wrong_replies_are_quoted():
    replies = {f"table_split-{i:03d}": REPLIES["table_split-003"] for i in range(1, 26)}
    replies["table_split-001"] = REPLIES["table_split-001"]
    replies["table_split-020"] = replies["table_split-024"] = REPLIES["table_split-002"]
    text = render_markdown(_with_t4000(analysed_results(), replies))
    section = text.split(f"## {TITLE}\n", 1)[1].split("\n## ", 1)[0]
    quoted = [
        line.split(":")[0] for line in section.splitlines() if line.startswith("table_split-")
    ]
    assert quoted == [
        "table_split-002",
        "table_split-003",
        "table_split-004",
        "table_split-020",
        "table_split-024",
    ]
    assert "- Denial of record: 8% 2/25 replies" in section
    assert "- Answers not correct: 96% 24/25." in section


def test_an_old_results_file_without_t4000_renders_without_the_section():
    results = analysed_results()
    assert all(c["name"] != "T4000" for c in results["configs"])
    text = render_markdown(results)
    assert TITLE not in text and "T4000" not in text


def _cell_label(at, probe: str, config: str) -> str:
    (spec,) = chart_specs(at)
    overlay = spec["data"][1]
    for x, y, label in zip(overlay["x"], overlay["y"], overlay["text"], strict=True):
        if (y, x) == (probe, config):
            return label
    raise AssertionError(f"no cell {probe} x {config}")


def test_the_matrix_page_shows_the_column_and_the_section(ragaudit_home):
    path = ragaudit_home / "results" / "wide.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(_with_t4000(build_results(n=5), REPLIES), allow_nan=False))
    at = open_app(path)
    assert not at.exception
    assert _cell_label(at, "table_split", "T4000") == "100%<br>5/5"
    assert _cell_label(at, "boundary", "T4000") == "not run"
    shown = texts(at)
    assert TITLE in shown
    assert "- Answers not correct: 80% 4/5." in shown
    assert "- Denial of record: 20% 1/5 replies" in shown
    assert REPLIES["table_split-002"][2] in shown


def test_the_matrix_page_of_an_old_file_has_no_section(ragaudit_home):
    path = ragaudit_home / "results" / "old.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(build_results(n=5), allow_nan=False))
    at = open_app(path)
    assert not at.exception and TITLE not in texts(at)
