"""The audit end to end with a real embedder (local:minilm) and a real Chroma, on a small
statute-like corpus built here: splitting moves a subsection-specific query's key source
up, the floor's backfill range decides a case, a phrasing that pushes the key source out
is red-flagged, and the results file carries every figure the table prints."""

from __future__ import annotations

import json
import os

import pytest

from ragaudit.cli.main import main

LEAD = (
    "Estate Tax Act, Article 16. The following items shall not be included in the total "
    "amount of the estate:"
)
TOPICS = [
    "Property bequeathed or donated to the national government, local governments or public "
    "schools.",
    "Property donated to a registered foundation for education, culture or charity in "
    "operation for at least one year.",
    "Cultural and historical artefacts or works of art registered with the competent "
    "authority and not transferred.",
    "Copyright, patent rights and other intellectual property created by the decedent during "
    "his or her lifetime.",
    "Ordinary household furniture and daily necessities of the family, up to the amount set "
    "by the tax authority.",
    "Professional tools used by the decedent for his or her occupation, up to the amount set "
    "by the tax authority.",
    "Claims legally established as uncollectible at the time of death.",
    "A life insurance benefit payable to a named beneficiary on the death of the insured.",
    "Land within a protected forest area designated as a conservation zone and used for no "
    "other purpose.",
    "Land opened by the decedent for unrestricted public passage, excluding building sites.",
    "Property inherited within five years before death on which estate tax was already paid.",
    "Property of the spouse or children registered in the decedent's name, where ownership "
    "can be proven.",
    "Property donated to a political party, up to the amount allowed by the Political "
    "Donations Act.",
]
# Statutes that must not be split, one per exclusion rule.
UNSPLITTABLE = {
    "income-14": "Income Tax Act, Article 14. Income falls into these categories.\n"
    "Category one, business profits:\n(1) Distributed company profits.\n(2) Partnership "
    "earnings allocated to each partner.\n(3) Earnings of a sole proprietorship.\n"
    "Category two, professional practice:\n(1) Fees of lawyers, accountants and physicians.\n"
    "(2) Fees of writers, painters and musicians.\n(3) Fees from private tuition.\n"
    "Category three, salaries:\n(1) Wages and bonuses.\n(2) Pensions.\n(3) Severance pay.\n",
    "gift-20": "Gift Tax Act, Article 20. The following gifts are not subject to gift tax:\n"
    "(1) Property donated to the government or public schools.\n(2) Property donated to a "
    "registered charitable foundation.\n(4) The amount paid by a parent for a child's "
    "wedding, up to one million.\n(5) Gifts between spouses, without limit.\n(6) Farm land "
    "donated to a child who continues to farm it, under the Agricultural Development Act.\n",
    "collection-12": "Tax Collection Act, Article 12. Where the same tax is owed by several "
    "persons, whether because the property is jointly owned, the taxable act was carried out "
    "jointly, or the obligation was inherited by several heirs who have not yet divided the "
    "estate, and the tax authority has served one notice of assessment on any of them with "
    "a copy to the others, the notice is deemed served on all of them and each is jointly "
    "liable for the full amount unless this Act provides otherwise:\n(1) An heir who "
    "renounced the inheritance is not liable.\n(2) An heir who accepted only up to the value "
    "of the estate is liable up to that value.\n(3) A co-owner who transferred the share "
    "before the tax year is not liable for that year.\n",
    "stamp-5": "Stamp Duty Act, Article 5. Stamp duty is levied on:\n(1) Receipts for "
    "payment.\n(2) Contracts for the sale of movable property.\n",
}
RULINGS = [
    "an 88-year-old hospitalised decedent paid a single premium on a life insurance policy "
    "naming a grandson and died three weeks later",
    "the insured borrowed against her house to pay premiums on policies naming her children "
    "while terminally ill",
    "the policyholder named himself as beneficiary of the death benefit",
    "the annuitant died during the guaranteed period and remaining payments passed to the "
    "beneficiary",
    "a father bought investment-linked insurance for his son two months before death",
    "the decedent changed the beneficiary of a life policy to his nephew on his deathbed",
    "premiums were paid by a company the decedent controlled",
    "a couple held cross-owned life insurance policies",
    "the decedent paid premiums in one lump sum at the age of 85",
    "an elderly insured with cancer bought a policy naming her daughter",
    "the insured had pledged the policy to a bank for a loan",
    "the beneficiary was the decedent's own estate",
]
CASES = """\
intents:
  - intent: death-benefit
    expect: [statutes/estate-16]
    phrasings:
      - id: formal
        q: Is a life insurance benefit payable to a named beneficiary excluded from the estate?
      - id: casual
        q: After the client dies, does the death benefit the beneficiary receives
          get taxed as estate?
  - intent: forest
    expect: [statutes/estate-16]
    phrasings:
      - q: Is land in a protected forest conservation zone part of the taxable estate?
      - q: Do we pay estate tax on forest land that is a conservation area?
"""


def build_corpus(root):
    """The statute-like corpus: one splittable article, four that must not be split, and
    rulings about taxable insurance that crowd the insurance subsection's article."""
    (root / "statutes").mkdir(parents=True)
    (root / "rulings").mkdir()
    body = "\n".join(f"({n}) {topic}" for n, topic in enumerate(TOPICS, start=1))
    (root / "statutes" / "estate-16.md").write_text(f"{LEAD}\n{body}\n", encoding="utf-8")
    for name, text in UNSPLITTABLE.items():
        (root / "statutes" / f"{name}.md").write_text(text, encoding="utf-8")
    for number, facts in enumerate(RULINGS, start=1):
        (root / "rulings" / f"ruling-{number:02d}.md").write_text(
            f"Tax ruling {number}: {facts}. The tax authority included the death benefit in "
            "the taxable estate, and the court upheld the assessment.\n",
            encoding="utf-8",
        )
    (root / "rulings" / "scan.txt").write_bytes(b"\x00\x01binary scan")
    return root


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """One corpus, case file and home (so the embedding cache is shared by these tests)."""
    root = tmp_path_factory.mktemp("audit")
    build_corpus(root / "corpus")
    (root / "cases.yaml").write_text(CASES, encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAGAUDIT_HOME", str(root / "home"))
        yield root


def audit(workspace, settings: str, *extra: str, name: str = "s") -> tuple[int, dict, str]:
    """Run `ragaudit audit` with these settings; return status, results and stdout."""
    path = workspace / f"{name}.yaml"
    path.write_text(settings, encoding="utf-8")
    out = workspace / f"{name}.json"
    status = main(
        [
            "audit",
            str(workspace / "corpus"),
            str(workspace / "cases.yaml"),
            "--settings",
            str(path),
            "--out",
            str(out),
            *extra,
        ]
    )
    # an audit that lost a call writes NAME.failed.json and leaves NAME.json as it was
    written = out if out.exists() else workspace / f"{name}.failed.json"
    return status, json.loads(written.read_text(encoding="utf-8")), ""


def source(results: dict, case_id: str) -> dict:
    case = next(c for c in results["cases"] if c["case_id"] == case_id)
    return case["sources"][0]


DOCUMENT = "splitter: document\nk: 6\ncandidate_pool: 48\n"


def test_splitting_moves_a_subsection_specific_querys_key_source_up(workspace):
    _, whole, _ = audit(workspace, DOCUMENT + "split_subsections: false\n", name="whole")
    _, split, _ = audit(workspace, DOCUMENT + "split_subsections: true\n", name="split")
    before, after = source(whole, "death-benefit/formal"), source(split, "death-benefit/formal")
    # One vector for thirteen topics loses to the rulings; the subsection itself wins.
    assert before["rank"] > 6 and not before["in_top_k"]
    assert after["rank"] <= 3 and after["in_top_k"]
    assert after["best_chunk_id"] == "document+sub/statutes/estate-16#sub-8"
    assert split["index"]["split"]["split"] == 1
    assert split["index"]["split"]["excluded_by_rule"] == {
        "first_marker_repeats": 1,
        "non_consecutive_numbering": 1,
        "lead_in_too_long": 1,
        "too_few_subsections_or_too_short": 1,
    }
    assert split["index"]["children"] == 13 and split["index"]["parents"] == 1


def test_a_phrasing_that_pushes_the_key_source_out_is_red_flagged(workspace, capsys):
    status, results, _ = audit(workspace, DOCUMENT + "split_subsections: true\n", name="flag")
    out = capsys.readouterr().out
    assert status == 1  # a failing case fails the command, so it can gate CI
    intent = next(i for i in results["intents"] if i["intent"] == "death-benefit")
    row = intent["sources"][0]
    assert row["in_top_k"] == {"death-benefit/formal": True, "death-benefit/casual": False}
    assert row["red_flag"] and intent["red_flag"]
    assert row["spread"] == row["worst_rank"] - row["best_rank"] > 0
    forest = next(i for i in results["intents"] if i["intent"] == "forest")
    assert not forest["red_flag"] and forest["passed"] == 2
    assert "statutes/estate-16: ranks" in out and "RED FLAG" in out
    summary = results["summary"]
    assert (summary["passed"], summary["cases"]) == (3, 4)
    assert "summary: 75% 3/4 phrasings pass" in out


def test_the_floors_backfill_range_decides_the_case(workspace, capsys):
    # k=3 and one slot reserved for statutes: production reaches 5 deep, the test script 48.
    base = (
        "splitter: document\nk: 3\ncandidate_pool: 48\nfloor: {source_type: statutes, slots: 1}\n"
    )
    prod_status, prod, _ = audit(workspace, base + "backfill_range: 5\n", name="prod")
    printed = capsys.readouterr().out
    assert (
        "floor: 0 statutes within the first 5 candidates; 0 backfilled, 1 of 1 reserved "
        "slots left unfilled"
    ) in printed
    test_status, test, _ = audit(workspace, base + "backfill_range: 48\n", name="eval")
    formal_prod, formal_test = (
        source(prod, "death-benefit/formal"),
        source(test, "death-benefit/formal"),
    )
    assert formal_prod["rank"] == formal_test["rank"] > 5  # same ranking, different reach
    assert not formal_prod["in_top_k"]
    assert formal_test["in_top_k"] and formal_test["via_backfill"]
    assert prod_status == 1 and test_status == 0
    case = next(c for c in prod["cases"] if c["case_id"] == "death-benefit/formal")
    assert (
        case["policy"]["floor_unfilled"] == 1
        and case["policy"]["floor_type_in_backfill_range"] == 0
    )
    assert main(["drift", str(workspace / "prod.yaml"), str(workspace / "eval.yaml")]) == 1


def test_hybrid_fuses_bm25_and_keeps_the_dense_score_for_thresholds(workspace):
    _, dense, _ = audit(workspace, DOCUMENT, name="dense")
    _, hybrid, _ = audit(workspace, DOCUMENT + "hybrid: true\n", name="hybrid")
    top = [c for case in hybrid["cases"] for c in case["top_k"]]
    assert all(c["bm25_score"] is not None for c in top)
    assert all(c["bm25_score"] is None for case in dense["cases"] for c in case["top_k"])
    # the fused order differs from the dense one, the dense cosine is still what is recorded
    dense_order = [[c["chunk_id"] for c in case["top_k"]] for case in dense["cases"]]
    hybrid_order = [[c["chunk_id"] for c in case["top_k"]] for case in hybrid["cases"]]
    assert dense_order != hybrid_order
    for dense_case, hybrid_case in zip(dense["cases"], hybrid["cases"], strict=True):
        scores = {c["chunk_id"]: c["score"] for c in dense_case["top_k"]}
        shared = [c for c in hybrid_case["top_k"] if c["chunk_id"] in scores]
        assert shared and all(abs(c["score"] - scores[c["chunk_id"]]) < 1e-3 for c in shared)


def test_results_file_default_path_schema_and_dilution(workspace, capsys):
    settings = workspace / "d.yaml"
    settings.write_text(DOCUMENT + "per_source_cap: 2\nsplit_subsections: true\n", encoding="utf-8")
    status = main(
        ["audit", str(workspace / "corpus"), str(workspace / "cases.yaml"), "--settings",
         str(settings), "--dilution"]
    )  # fmt: skip
    out = capsys.readouterr().out
    path = workspace / "home" / "results" / "audit-latest.json"
    assert status == 1 and f"results: {path}" in out
    text = path.read_text(encoding="utf-8")
    results = json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in JSON"))
    assert results["schema_version"] == 4 and results["kind"] == "audit"  # the one version
    assert results["corpus"]["skipped"] == [
        {"path": "rulings/scan.txt", "reason": "binary (NUL bytes)"}
    ]
    assert "[skipped] rulings/scan.txt: binary (NUL bytes)" in out
    longest = results["dilution"]["longest_chunks"]
    assert longest[0]["source"] == "statutes/estate-16" and longest[0]["markers"] == 13
    assert {c["source"]: c["excluded_by"] for c in longest[:5]}["statutes/income-14"] == (
        "first_marker_repeats"
    )
    assert "excluded by lead_in_too_long: 1" in out
    assert "per-source cap: 2 slots per source" in out
    # the cap holds: no source takes more than two of the six slots
    for case in results["cases"]:
        sources = [c["source"] for c in case["top_k"]]
        assert max(sources.count(s) for s in sources) <= 2
    assert results["conditions"]["embedding_failures"] == []
    assert results["models"][0]["spec"] == "local:minilm"
    assert not list(path.parent.glob(".audit-latest.json.*"))  # atomic: no temp left over


def test_unknown_source_id_is_a_clear_error(workspace, capsys):
    cases = workspace / "bad-cases.yaml"
    cases.write_text(CASES.replace("statutes/estate-16]", "statutes/estate-61]", 1))
    assert main(["audit", str(workspace / "corpus"), str(cases)]) == 2
    err = capsys.readouterr().err
    assert (
        "expects unknown source id 'statutes/estate-61'; did you mean 'statutes/estate-16'?" in err
    )
    # a source whose file was skipped says so, rather than "unknown"
    cases.write_text(CASES.replace("statutes/estate-16]", "rulings/scan]", 1))
    assert main(["audit", str(workspace / "corpus"), str(cases)]) == 2
    err = capsys.readouterr().err
    assert "expects source 'rulings/scan', whose file was skipped (binary (NUL bytes))" in err


def run_against_ollama(workspace, server, name: str) -> tuple[int, dict]:
    os.environ["OLLAMA_HOST"] = server.url
    try:
        status, results, _ = audit(
            workspace, "embedder: ollama:mxbai-embed-large\nk: 6\ncandidate_pool: 10\n", name=name
        )
    finally:
        del os.environ["OLLAMA_HOST"]
    return status, results


def test_embedding_failures_are_counted_printed_and_kept_in_the_denominator(
    workspace, fake_ollama, monkeypatch, capsys
):
    monkeypatch.setenv("RAGAUDIT_RETRIES", "0")
    monkeypatch.setenv("RAGAUDIT_RETRY_DELAY", "0")
    # Every request fails: nothing can be embedded, and every case says so.
    status, results = run_against_ollama(workspace, fake_ollama("error500", -1), "down")
    out = capsys.readouterr().out
    summary = results["summary"]
    assert status == 1
    assert not (workspace / "down.json").exists()  # the failed audit went to down.failed.json
    assert (summary["cases"], summary["passed"], summary["failed_calls"]) == (4, 0, 4)
    assert all(c["status"] == "failed_call" and c["error"] for c in results["cases"])
    assert "summary: 0% 0/4 phrasings pass; 0 fail; 4 failed embedding calls" in out
    assert out.count("[failed call] query") == 4

    # The first three requests fail (the model list, the passage batch, the first passage
    # retried alone): exactly one chunk is left out, and the report says which.
    status, results = run_against_ollama(workspace, fake_ollama("error500", 3), "flaky")
    failures = results["conditions"]["embedding_failures"]
    assert [f["kind"] for f in failures] == ["passage"]
    assert results["summary"]["passage_embedding_failures"] == 1
    assert results["index"]["not_indexed"] == 1
    assert results["summary"]["failed_calls"] == 0
    assert results["conditions"]["calls"]["failed"] >= 1
