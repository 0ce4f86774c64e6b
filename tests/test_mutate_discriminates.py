"""Each operator discriminates (issue 27): a hand-built stack that handles the fault kills
its mutants, one that does not lets them survive. The stacks are real user code: a
retriever module written to tmp_path and named by a stack file beside it, run through
`ragaudit mutate --no-generate` (no model: the retrievers score by word overlap)."""

from __future__ import annotations

import json
import textwrap

import pytest

from ragaudit.cli.main import main

RETRIEVER = '''
import re

WORDS = re.compile(r"[a-z0-9]+")


def _words(text):
    return {w for w in WORDS.findall(text.lower()) if len(w) > 3 or w.isdigit() or w == "k2"}


def make(chunks, latest_first=False, min_overlap=0, anchor_blind=(), add_doc_head=False,
         only_best=False):
    """Rank chunks by the question words they share. latest_first: chunks of a document
    that says it supersedes earlier versions come first. min_overlap: return nothing when
    no chunk shares that many words (refuse without evidence). anchor_blind: words ignored,
    ties going to the later document. only_best: the best-scored chunks alone. add_doc_head:
    the best hit's document's first chunk (a table's header) right after it."""
    nodes = [(n.node_id, n.get_content(), n.metadata["doc_id"]) for n in chunks]
    revised = {d for _, text, d in nodes if "supersedes every earlier version" in text}
    first = {}
    for cid, _, d in nodes:
        first.setdefault(d, cid)
    order = {cid: i for i, (cid, _, _) in enumerate(nodes)}

    def retrieve(question):
        asked = _words(question) - set(anchor_blind)
        scored = []
        for cid, text, d in nodes:
            overlap = len(asked & _words(text))
            bonus = 100 if latest_first and d in revised and overlap else 0
            scored.append((overlap + bonus, order[cid] if anchor_blind else -order[cid], cid))
        scored.sort(reverse=True)
        if scored and scored[0][0] < min_overlap:
            return []
        best = scored[0][0] if scored else 0
        hits = [cid for score, _, cid in scored if score == best or not only_best]
        if add_doc_head and hits:
            doc = next(d for cid, _, d in nodes if cid == hits[0])
            hits = [hits[0], first[doc], *hits[1:]]
        return [(c, 1.0) for c in dict.fromkeys(hits)]
    return retrieve
'''

POLICY = (
    "Harbour staff handbook. The canteen opens at seven and closes after the late shift. "
    "Lockers are assigned by the site office on the opening day.\n\n"
    "Overtime on the quay is paid at 150 percent of the hourly wage for the first two hours. "
    "Night work on the quay is paid at 175 percent of the hourly wage.\n\n"
    "Visitors register at the gate and wear a vest at all times on the quay. The site office "
    "keeps the list of visitors for one month.\n"
)
TABLE = (
    "Crane register of the harbour.\n"
    "| Crane | Berth | Lifting capacity |\n| --- | --- | --- |\n"
    "| Crane K1 | Berth 3 | 41 tonnes |\n| Crane K2 | Berth 5 | 63 tonnes |\n\n"
    "Every crane is inspected by the harbour engineer before the season starts, and a crane "
    "that fails the inspection stays locked until the repairs are signed off. Operators hold "
    "a valid licence, take a refresher course every two years and report any fault in the "
    "crane log at the end of the shift. Wind above the limit on the gauge stops all lifting "
    "until the harbour master gives the all clear, and loads are never lifted over people.\n"
)
FILLER = [
    "The sports club meets every Thursday evening in the gym near the north entrance and "
    "welcomes new members who want to play football, volleyball or table tennis after work.",
    "The summer party takes place in the park beside the marina, with music, food stalls and "
    "games for children, and every employee may bring a partner and their children along.",
    "The library lends books, magazines and films for two weeks, and members can reserve "
    "titles online and collect them at the front desk during the opening hours posted there.",
]
CASES = """
intents:
  - intent: overtime-rate
    expect: [handbook]
    answer: 150 percent
    anchor: Overtime
    phrasings:
      - What is the overtime pay rate on the quay for the first two hours?
  - intent: crane-k2
    expect: [cranes]
    answer: 63 tonnes
    anchor: Crane K2
    phrasings:
      - How much can crane K2 lift?
"""


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "handbook.md").write_text(POLICY, encoding="utf-8")
    (corpus / "cranes.md").write_text(TABLE, encoding="utf-8")
    for i, text in enumerate(FILLER):
        (corpus / f"news-{i}.md").write_text(" ".join([text] * 3), encoding="utf-8")
    (tmp_path / "cases.yaml").write_text(CASES, encoding="utf-8")
    (tmp_path / "overlap_retriever.py").write_text(RETRIEVER, encoding="utf-8")
    return tmp_path


def mutate(workspace, name: str, operator: str, size: int, overlap: int, **args) -> dict:
    """`ragaudit mutate --no-generate` through a stack: a LangChain splitter at
    size/overlap and the overlap retriever with `args`; returns the mutation section."""
    stack = workspace / f"{name}.yaml"
    arguments = "".join(f"\n    {key}: {json.dumps(value)}" for key, value in args.items())
    stack.write_text(textwrap.dedent(f"""\
        name: {name}
        splitter:
          class: langchain_text_splitters.RecursiveCharacterTextSplitter
          args: {{chunk_size: {size}, chunk_overlap: {overlap}}}
        retriever:
          factory: overlap_retriever:make
          args: {{}}
        k: 2
        """).replace("args: {}", "args:" + arguments if arguments else "args: {}"),
        encoding="utf-8",
    )  # fmt: skip
    out = workspace / f"{name}.json"
    status = main(
        ["mutate", str(workspace / "corpus"), str(workspace / "cases.yaml"), "--stack",
         str(stack), "--operators", operator, "--no-generate", "--out", str(out)]
    )  # fmt: skip
    section = json.loads(out.read_text(encoding="utf-8"))["mutation"]
    assert status == (1 if section["survivors"] else 0)
    return section


def score(section: dict, operator: str) -> tuple[int, int]:
    entry = next(s for s in section["scores"] if s["operator"] == operator)
    return entry["killed"], entry["applicable"]


def test_a_retriever_preferring_the_latest_revision_kills_supersede(workspace):
    assert score(mutate(workspace, "latest", "supersede", 400, 0, latest_first=True),
                 "supersede") == (2, 2)  # fmt: skip
    plain = mutate(workspace, "plain", "supersede", 400, 0)
    assert score(plain, "supersede") == (0, 2)
    assert {s["mutant"] for s in plain["survivors"]} == {
        "supersede/overtime-rate",
        "supersede/crane-k2",
    }


def test_a_retriever_that_refuses_without_evidence_kills_remove_answer(workspace):
    # each question shares 2 or more long words with its answer's chunk, none with the rest
    refusing = mutate(workspace, "refusing", "remove_answer", 400, 0, min_overlap=2)
    assert score(refusing, "remove_answer") == (2, 2) and refusing["control"]["passed"] == 2
    # one that always retrieves cannot be graded without an answer: not measured, not a
    # survivor (tests/test_mutate_pipeline.py shows it fabricating with generation)
    always = mutate(workspace, "always", "remove_answer", 400, 0)
    assert score(always, "remove_answer") == (0, 0) and always["survivors"] == []
    assert always["scores"][0]["not_measured"] == 2


def test_an_overlap_that_holds_the_cut_sentence_kills_boundary(workspace):
    # 200 characters of overlap hold the ~90-character sentence whole; none cuts it in two
    assert score(mutate(workspace, "overlap", "boundary", 400, 200), "boundary")[0] >= 1
    section = mutate(workspace, "no_overlap", "boundary", 400, 0)
    killed, applicable = score(section, "boundary")
    assert applicable >= 1 and killed == 0


def test_an_anchor_blind_retriever_lets_the_near_duplicate_outrank_the_original(workspace):
    assert score(mutate(workspace, "anchored", "near_duplicate", 400, 0),
                 "near_duplicate") == (2, 2)  # fmt: skip
    blind = mutate(workspace, "blind", "near_duplicate", 400, 0,
                   anchor_blind=["overtime", "crane", "k2"])  # fmt: skip
    # blind to its anchor, the crane question keeps no word: it fails unmutated and is left
    # out of its mutant's denominator, and listed
    assert score(blind, "near_duplicate") == (0, 1)
    assert blind["excluded_cases"] == ["crane-k2/1"]


def test_a_retriever_adding_the_documents_head_kills_table_split(workspace):
    headed = mutate(workspace, "headed", "table_split", 120, 0, add_doc_head=True, only_best=True)
    assert score(headed, "table_split") == (1, 1)
    rows = mutate(workspace, "rowonly", "table_split", 120, 0, only_best=True)
    assert score(rows, "table_split") == (0, 1)


DENSITY_RETRIEVER = '''
import math
import re

WORDS = re.compile(r"[a-z0-9]+")


def make(chunks):
    """Score each chunk as a bag-of-words cosine does: the question words it shares over
    the square root of its length, so a longer chunk saying the same scores lower."""
    nodes = [(n.node_id, WORDS.findall(n.get_content().lower())) for n in chunks]

    def retrieve(question):
        asked = {w for w in WORDS.findall(question.lower()) if len(w) > 3 or w.isdigit()}
        scored = sorted(((len(asked & set(words)) / math.sqrt(len(words) or 1), cid)
                         for cid, words in nodes), reverse=True)
        return [(cid, score) for score, cid in scored]
    return retrieve
'''
ROSTER = (
    "Quay roster. Overtime on the quay is planned a week ahead by the site office, which "
    "posts the names of the crew on the board beside the canteen door every Friday morning, "
    "together with the berths, the cranes and the ships expected during the coming week."
)
"""Shares 'overtime' and 'quay' with the question, in a short text: under the handbook
whole, above it once the handbook is four times longer."""
NEWS = [
    "The choir rehearses on Monday evenings in the music room above the library, and singers "
    "of every voice are welcome to join for the winter concert in the town hall.",
    "The bicycle shed behind the office has room for forty bikes, with a pump and a small "
    "set of tools that anyone may borrow for a quick repair before riding home.",
    "The photography group walks along the river every second Sunday and shares the best "
    "pictures of birds, bridges and sunsets in the newsletter that goes out each month.",
    "The language café meets at lunchtime on Wednesdays, where colleagues practise Spanish, "
    "Dutch or Polish over coffee with native speakers from the accounting department.",
    "The garden club looks after the vegetable beds on the roof terrace, and the tomatoes, "
    "beans and herbs it grows are handed out to anyone who passes by in late summer.",
    "The chess club plays in the meeting room on Tuesday nights, keeps a ladder of results on "
    "the wall, and holds a friendly tournament against the neighbouring company in spring.",
]
DILUTE_CASES = """
intents:
  - intent: overtime-rate
    expect: [handbook]
    answer: 150 percent
    anchor: Overtime
    phrasings:
      - What is the overtime pay rate on the quay for the first two hours?
"""


def test_whole_document_chunks_let_dilution_survive_and_chunking_kills_it(tmp_path, monkeypatch):
    # Handbook whole: 4 shared words over 84 (4/sqrt(84) = 0.44) beats the roster's 2 over
    # 46 (0.29); made 4x longer it falls to about 0.44/2 = 0.22, under the roster. Cut at 300
    # characters, the overtime paragraph's chunk is the same before and after: it stays first.
    monkeypatch.setenv("RAGAUDIT_HOME", str(tmp_path / "home"))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "handbook.md").write_text(POLICY, encoding="utf-8")
    (corpus / "roster.md").write_text(ROSTER, encoding="utf-8")
    for i, text in enumerate(FILLER + NEWS):
        (corpus / f"news-{i}.md").write_text(text, encoding="utf-8")
    (tmp_path / "cases.yaml").write_text(DILUTE_CASES, encoding="utf-8")
    (tmp_path / "density_retriever.py").write_text(DENSITY_RETRIEVER, encoding="utf-8")
    sections = {}
    for name, size in (("whole", 100_000), ("chunked", 300)):
        stack = tmp_path / f"{name}.yaml"
        stack.write_text(textwrap.dedent(f"""\
            name: {name}
            splitter:
              class: langchain_text_splitters.RecursiveCharacterTextSplitter
              args: {{chunk_size: {size}, chunk_overlap: 0}}
            retriever:
              factory: density_retriever:make
              args: {{}}
            k: 1
            """), encoding="utf-8")  # fmt: skip
        out = tmp_path / f"{name}.json"
        argv = ["mutate", str(corpus), str(tmp_path / "cases.yaml"), "--stack", str(stack)]
        status = main([*argv, "--operators", "dilute", "--no-generate", "--out", str(out)])
        sections[name] = json.loads(out.read_text(encoding="utf-8"))["mutation"]
        assert status == (1 if sections[name]["survivors"] else 0)
    for section in sections.values():
        assert {k: section["control"][k] for k in ("cases", "passed")} == {"cases": 1, "passed": 1}
    assert score(sections["chunked"], "dilute") == (1, 1)
    assert score(sections["whole"], "dilute") == (0, 1)
    assert [s["mutant"] for s in sections["whole"]["survivors"]] == ["dilute/overtime-rate"]


def test_the_report_of_a_mutation_audit_holds_its_section(workspace):
    mutate(workspace, "plain", "supersede", 400, 0)
    assert main(["report", "--results", str(workspace / "plain.json"),
                 "--out", str(workspace / "report")]) == 0  # fmt: skip
    report = (workspace / "report" / "report.md").read_text(encoding="utf-8")
    assert "## Mutation score: plain (retrieval-side measures)" in report
    # 0 of 2 killed; Wilson 95% upper bound for 0/2: 1.96² / (2 + 1.96²) = 0.658
    assert "| supersede | 0% 0/2 [0–66%] |" in report
    assert "- supersede/overtime-rate:" in report and "- supersede/crane-k2:" in report
