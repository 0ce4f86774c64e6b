"""results.mutation, the read side of a mutate file shared by the report and the inspector:
a hand-built `mutation` section as a generation run writes it (docs/results-schema.md, "The
mutation audit's file"), read into the words both surfaces print."""

from __future__ import annotations

from ragaudit.results.mutation import (
    control_phrasings,
    mutant_text,
    operator_mutants,
    score_row,
    survivors_by_mutant,
    why_not_paired,
)


def _mutant(name: str, status: str, reason: str | None = None, phrasings=None) -> dict:
    operator, intent = name.split("/")
    return {"mutant": name, "operator": operator, "intent": intent, "status": status,
            "reason": reason, "rule": "", "phrasings": phrasings or {}}  # fmt: skip


SECTION = {
    "mutants": [
        _mutant("control/rate", "control"),
        _mutant("supersede/rate", "killed", phrasings={
            "rate/1": {"handled": True, "control_passed": True},
            "rate/2": {"handled": None, "control_passed": False},
        }),
        _mutant("supersede/limit", "survived", phrasings={
            "limit/1": {"handled": False, "control_passed": True},
        }),
        _mutant("supersede/name", "not_applicable", "the answer cannot be changed"),
        _mutant("supersede/known", "closed_book", "every phrasing was answered right with no "
                                                  "context"),
        _mutant("boundary/rate", "robust", "robust: the splitter kept the sentence whole"),
    ],
    "survivors": [{"mutant": "supersede/limit", "operator": "supersede", "intent": "limit",
                   "phrasings": ["limit/1"], "rule": "'7' -> '9'",
                   "verdicts": {"limit/1": "trap_taken"},
                   "attributions": {"limit/1": "generation"}}],
}  # fmt: skip


def test_an_operators_mutants_are_grouped_by_status_survivors_first():
    grouped = operator_mutants(SECTION, "supersede")
    assert list(grouped) == ["survived", "killed", "not_applicable", "closed_book"]
    assert [m["mutant"] for m in grouped["killed"]] == ["supersede/rate"]
    assert "control" not in grouped and operator_mutants(SECTION, "dilute") == {}


def test_each_status_says_what_it_rests_on():
    grouped, survivors = operator_mutants(SECTION, "supersede"), survivors_by_mutant(SECTION)
    (survived,) = grouped["survived"]
    # with generation a surviving phrasing carries its verdict and attribution
    assert mutant_text(survived, survivors["supersede/limit"]) == (
        "let through by limit/1 [trap_taken, generation]"
    )
    # a phrasing that failed unmutated did not kill it: only the control's passers are named
    assert mutant_text(grouped["killed"][0]) == "handled by rate/1"
    assert mutant_text(grouped["not_applicable"][0]) == (
        "not applicable: the answer cannot be changed"
    )
    assert mutant_text(grouped["closed_book"][0]) == (
        "closed book: every phrasing was answered right with no context"
    )
    # a reason that already starts with its status does not say it twice
    (robust,) = operator_mutants(SECTION, "boundary")["robust"]
    assert mutant_text(robust) == "robust: the splitter kept the sentence whole"


def test_a_score_row_puts_robust_credits_beside_the_interval():
    # 0 killed of 0 applicable, 2 robust: no score, the credits counted beside it
    row = score_row({"operator": "boundary", "killed": 0, "applicable": 0, "score": None,
                     "score_reason": "no mutant of this operator applies", "wilson": None,
                     "robust": 2, "not_applicable": 1, "not_measured": 0, "excluded": 1,
                     "closed_book": 1})  # fmt: skip
    assert row.score is None
    assert row.shown == "— (every mutant it could make is robust: shown, not tried)"
    assert row.counts() == ["2 robust", "2 control row excluded", "1 not applicable"]
    # 3 of 4 killed: 75%, Wilson 95% [30–95%] as recorded
    row = score_row({"operator": "dilute", "killed": 3, "applicable": 4, "score": 0.75,
                     "score_reason": None, "wilson": [0.3006, 0.9544], "robust": 1,
                     "not_applicable": 0, "not_measured": 0, "excluded": 0,
                     "closed_book": 0})  # fmt: skip
    assert row.shown == "75% 3/4 [30–95%]" and row.counts() == ["1 robust"]


def _audit(sha: str, questions: dict[str, str]) -> dict:
    return {
        "corpus": {"sha256": sha},
        "instances": [{"probe": "control", "instance_id": c, "question": q,
                       "gold_in_context": True, "mutation": {"source_in_top_k": False}}
                      for c, q in questions.items()],
    }  # fmt: skip


def test_two_audits_pair_only_on_the_same_corpus_and_the_same_phrasings():
    asked = {"rate/1": "What rate?", "rate/2": "How much per km?"}
    assert why_not_paired(_audit("a" * 64, asked), _audit("a" * 64, dict(asked))) is None
    assert why_not_paired(_audit("a" * 64, asked), _audit("b" * 64, asked)).startswith(
        "other corpora (sha256 aaaaaaaaaaaa… and bbbbbbbbbbbb…)"
    )
    reworded = {"rate/1": "What rate?", "rate/2": "Per km?"}
    assert why_not_paired(_audit("a" * 64, asked), _audit("a" * 64, reworded)).startswith(
        "other cases (0 phrasings in one file only, 1 asked in other words)"
    )


def test_the_control_rows_phrasings_carry_both_measures():
    (row,) = control_phrasings(_audit("a" * 64, {"rate/1": "What rate?"}))
    # each measure read from its own field: the record says yes to one and no to the other
    assert row["answer span in context"] == "yes" and row["expected source in top k"] == "no"
    assert row["control"] == "not recorded" and "verdict" not in row
