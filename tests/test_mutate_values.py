"""Coherent values and anchors (issue 38): a value written in two forms side by side
(`five minutes (5min)`, `1 GB (1024 MB)`) is shifted in every form by `supersede` and
`near_duplicate`, or the operator says "two forms: ..." why it cannot; a mutant whose two
forms disagree fails its `value_forms_agree` check; an anchor swapped into a sentence keeps
one determiner and the capitals a person would write. Documents are written here by hand,
and so is every expected text."""

from __future__ import annotations

import re

import pytest

from ragaudit.documents import Document
from ragaudit.mutation import near_duplicate, supersede
from ragaudit.mutation.cases import MutationIntent
from ragaudit.mutation.edits import Edit, apply_edits
from ragaudit.mutation.grouping import build_mutant
from ragaudit.mutation.operator import Context, NotApplicable, Plan, Target
from ragaudit.mutation.value_forms import disagreeing_forms

WORDS = {2: "two", 3: "three", 4: "four", 6: "six", 7: "seven", 8: "eight"}
SESSION = (
    "# Sessions\n\nThe web session ends after five minutes (5min) of idle time. "
    "A new session starts at the next sign-in.\n"
)
MAILBOX = "Each mailbox holds 1 GB (1024 MB) of mail. Larger files go to the file share.\n"


def intent(name: str, doc: Document, answer: str, anchor: str | None) -> MutationIntent:
    return MutationIntent(name, answer, anchor, (), doc.doc_id, doc.text.index(answer), None)


def context_of(docs: dict[str, str], intents: list[tuple], seed: int = 0) -> Context:
    """Documents by id, and intents as (name, doc id, answer, anchor)."""
    documents = tuple(Document(doc_id, text) for doc_id, text in docs.items())
    by_id = {d.doc_id: d for d in documents}
    resolved = tuple(intent(n, by_id[d], a, anchor) for n, d, a, anchor in intents)
    return Context(documents, resolved, seed, None)


def plan_of(operator, context: Context, name: str):
    chosen = next(i for i in context.intents if i.name == name)
    return operator.plan(Target(chosen, context.document(chosen.doc_id)), context)


def mutant_text(plan: Plan, context: Context) -> str:
    return apply_edits(context.document(plan.doc_id).text, plan.edits).text


def two_values(seed: int = 0) -> Context:
    docs = {"security/sessions": SESSION, "it/mail": MAILBOX}
    return context_of(
        docs,
        [("idle-timeout", "security/sessions", "5min", "web session"),
         ("mailbox-quota", "it/mail", "1 GB", "mailbox")],
        seed,
    )  # fmt: skip


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_supersede_shifts_five_minutes_in_words_and_in_digits_alike(seed):
    context = two_values(seed)
    plan = plan_of(supersede.OPERATOR, context, "idle-timeout")
    assert isinstance(plan, Plan), plan
    # five shifted by a whole 15-40% step, at least 1: one or two minutes up or down
    (new,) = plan.accept
    minutes = int(new.removesuffix("min"))
    assert new == f"{minutes}min" and minutes in (3, 4, 6, 7)
    revision = mutant_text(plan, context)
    body = revision.split("\n\n", 1)[1]  # after the revision line
    assert body == (
        f"# Sessions\n\nThe web session ends after {WORDS[minutes]} minutes ({minutes}min) of "
        "idle time. A new session starts at the next sign-in.\n"
    )
    assert plan.traps == ("5min",)


def test_the_issue_example_five_minutes_becomes_three_minutes_in_both_forms():
    # seed 3 steps five down by two (found by trying seeds; the text is the issue's)
    context = two_values(3)
    plan = plan_of(supersede.OPERATOR, context, "idle-timeout")
    assert plan.accept == ("3min",)
    assert "after three minutes (3min) of idle time" in mutant_text(plan, context)


def test_the_answer_may_be_the_form_in_words():
    docs = {"security/sessions": SESSION, "it/mail": MAILBOX}
    context = context_of(docs, [("idle-timeout", "security/sessions", "five minutes", None)])
    plan = plan_of(supersede.OPERATOR, context, "idle-timeout")
    (new,) = plan.accept
    minutes = next(n for n, w in WORDS.items() if new == f"{w} minutes")
    assert f"after {new} ({minutes}min) of idle" in mutant_text(plan, context)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_one_gigabyte_becomes_two_in_both_units_through_both_operators(seed):
    # 1 cannot step below 1, so it steps up by 1: 2 GB, which the document's pair writes
    # as 2048 MB (its own pair reads 1 GB as 1024 MB)
    context = two_values(seed)
    revision = plan_of(supersede.OPERATOR, context, "mailbox-quota")
    assert revision.accept == ("2 GB",)
    assert mutant_text(revision, context).endswith(
        "Each mailbox holds 2 GB (2048 MB) of mail. Larger files go to the file share.\n"
    )
    copy = plan_of(near_duplicate.OPERATOR, context, "mailbox-quota")
    assert copy.accept == ("1 GB",) and copy.traps == ("2 GB",)
    assert mutant_text(copy, context) == (
        "Each web session holds 2 GB (2048 MB) of mail. Larger files go to the file share.\n"
    )


def test_a_decimal_pair_reads_a_gigabyte_as_1000_megabytes_when_the_document_does():
    docs = {"it/mail": MAILBOX.replace("1024 MB", "1000 MB")}
    context = context_of(docs, [("mailbox-quota", "it/mail", "1000 MB", None)])
    plan = plan_of(supersede.OPERATOR, context, "mailbox-quota")
    assert plan.accept == ("2000 MB",)
    assert "holds 2 GB (2000 MB) of mail" in mutant_text(plan, context)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_near_duplicate_shifts_five_minutes_in_both_forms(seed):
    context = two_values(seed)
    plan = plan_of(near_duplicate.OPERATOR, context, "idle-timeout")
    assert isinstance(plan, Plan), plan
    (trap,) = plan.traps
    minutes = int(trap.removesuffix("min"))
    assert mutant_text(plan, context) == (
        f"# Sessions\n\nThe mailbox ends after {WORDS[minutes]} minutes ({minutes}min) of "
        "idle time. A new session starts at the next sign-in.\n"
    )


def test_five_minutes_is_three_hundred_seconds_in_every_shift():
    docs = {"api/tokens": "Tokens expire after 5 minutes (300 seconds) without use.\n"}
    context = context_of(docs, [("token-expiry", "api/tokens", "300 seconds", None)])
    plan = plan_of(supersede.OPERATOR, context, "token-expiry")
    (new,) = plan.accept
    seconds = int(new.removesuffix(" seconds"))
    assert seconds % 60 == 0 and seconds != 300  # shifted in whole minutes
    assert f"after {seconds // 60} minutes ({new}) without" in mutant_text(plan, context)


def test_a_year_in_brackets_is_not_a_second_form():
    docs = {"hr/leave": "Staff receive 27 days (2024) of leave.\n"}
    context = context_of(docs, [("leave", "hr/leave", "27 days", None)])
    plan = plan_of(supersede.OPERATOR, context, "leave")
    (new,) = plan.accept
    assert re.fullmatch(r"\d+ days", new) and new != "27 days"
    assert mutant_text(plan, context).endswith(f"Staff receive {new} (2024) of leave.\n")


@pytest.mark.parametrize("operator", [supersede.OPERATOR, near_duplicate.OPERATOR])
@pytest.mark.parametrize(
    ("sentence", "answer", "reason"),
    [
        ("Logs are kept for 2 fortnights (28 days) on the server.", "28 days",
         "two forms: unknown unit 'fortnights' in '2 fortnights (28 days)'"),
        ("Each disk holds 2 GB (1907 MiB) of logs on the server.", "2 GB",
         "two forms: '2 GB (1907 MiB)' agrees only rounded: no shift keeps both exact"),
        ("Logs are kept for 5 days (6 days) on the server.", "5 days",
         "two forms: '5 days (6 days)' states two different quantities"),
    ],
)  # fmt: skip
def test_a_pair_that_cannot_be_shifted_consistently_is_not_applicable(
    operator, sentence, answer, reason
):
    docs = {"ops/logs": sentence + "\n", "ops/other": "The proxy restarts within 9 seconds.\n"}
    context = context_of(
        docs, [("logs", "ops/logs", answer, "server"), ("proxy", "ops/other", "9 seconds", "proxy")]
    )
    outcome = plan_of(operator, context, "logs")
    assert outcome == NotApplicable(operator.name, "logs", reason)


def test_forms_that_state_two_quantities_are_found_and_agreeing_ones_are_not():
    text = "The session ends after five minutes (3min). Each mailbox holds 1 GB (1024 MB)."
    three = text.index("3min")
    assert disagreeing_forms(text, [(three, three + 4)]) == ["five minutes (3min)"]
    one = text.index("1 GB")
    assert disagreeing_forms(text, [(one, one + 4)]) == []
    agreeing = "The session ends after three minutes (3min)."
    at = agreeing.index("3min")
    assert disagreeing_forms(agreeing, [(at, at + 4)]) == []
    wrong_unit = "Each mailbox holds 2 GB (1024 MB)."
    at = wrong_unit.index("2 GB")
    assert disagreeing_forms(wrong_unit, [(at, at + 4)]) == ["2 GB (1024 MB)"]


def test_a_revision_changing_one_form_only_fails_value_forms_agree():
    # the planted fault of the issue, planned by hand: '5min' -> '3min', the words left
    context = two_values()
    target = Target(context.intents[0], context.document("security/sessions"))
    at = SESSION.index("5min")
    sentence = target.sentence
    one_form = Plan(
        "supersede", "idle-timeout", "added", "security/sessions", rule="by hand",
        expect="answer", accept=("3min",), traps=("5min",),
        edits=(Edit(0, 0, "Revision 2.\n\n", "revision", "idle-timeout"),
               Edit(at, at + 4, "3min", "value", "idle-timeout")),
        gold=(("mutant", *sentence, "gold"),), trap=(("original", *sentence, "trap"),),
        checks={"old": "5min", "new": "3min"},
    )  # fmt: skip
    mutant = build_mutant(one_form, target, context)
    checks = {c["check"]: c for c in mutant.validity}
    assert not checks["value_forms_agree"]["passed"]
    assert checks["value_forms_agree"]["detail"] == "'five minutes (3min)'"
    assert not mutant.applied and "value_forms_agree" in mutant.reason
    planned = build_mutant(plan_of(supersede.OPERATOR, context, "idle-timeout"), target, context)
    checks = {c["check"]: c for c in planned.validity}
    assert checks["value_forms_agree"] == {
        "check": "value_forms_agree", "passed": True, "detail": "every value's forms agree"
    }  # fmt: skip


CLIENT = (
    "The client module restarts every night. Operators restart the client module by hand "
    "after an update, and each reply is cached for 30 seconds.\n"
)
SERVER = "The server keeps its own cache. Requests to the server time out after 12 seconds.\n"


def copy_of(docs: dict[str, str], intents: list[tuple], name: str) -> tuple[str, str]:
    """(the near-duplicate's text, its trap value)."""
    context = context_of(docs, intents)
    plan = plan_of(near_duplicate.OPERATOR, context, name)
    assert isinstance(plan, Plan), plan
    return mutant_text(plan, context), plan.traps[0]


def test_an_anchor_after_a_determiner_brings_no_second_one():
    docs = {"ops/client": CLIENT, "ops/server": SERVER}
    intents = [("client-cache", "ops/client", "30 seconds", "client"),
               ("server-timeout", "ops/server", "12 seconds", "The server")]  # fmt: skip
    copy, trap = copy_of(docs, intents, "client-cache")
    assert "The The" not in copy and "the The" not in copy and "the the" not in copy
    assert copy == (
        "The server module restarts every night. Operators restart the server module by hand "
        f"after an update, and each reply is cached for {trap}.\n"
    )
    # 'The server' for 'client' keeps its determiner: 'client' alone would read 'client keeps'
    copy, trap = copy_of(docs, intents, "server-timeout")
    assert copy == (
        f"The client keeps its own cache. Requests to the client time out after {trap}.\n"
    )


def test_a_capitalised_determiner_is_lower_case_inside_a_sentence_and_code_stays_as_written():
    docs = {
        "dev/cache": "lru_cache keeps the last results. The handler uses lru_cache for "
        "lookups of up to 128 entries.\n",
        "dev/client": "The client module sends at most 20 requests. Errors in the client "
        "module are logged.\n",
    }
    intents = [("cache-size", "dev/cache", "128 entries", "lru_cache"),
               ("client-requests", "dev/client", "20 requests", "The client module")]  # fmt: skip
    copy, trap = copy_of(docs, intents, "cache-size")
    assert copy == (
        "The client module keeps the last results. The handler uses the client module for "
        f"lookups of up to {trap}.\n"
    )
    copy, trap = copy_of(docs, intents, "client-requests")
    assert copy == f"lru_cache sends at most {trap}. Errors in lru_cache are logged.\n"


def test_a_sentence_start_is_capitalised_and_a_name_keeps_its_capitals():
    docs = {
        "ops/proxy": "Proxy settings live in one file. Restart the proxy after a change; it "
        "reloads within 9 seconds.\n",
        "ops/queue": "The worker queue holds up to 500 jobs.\n",
    }
    intents = [("proxy-reload", "ops/proxy", "9 seconds", "proxy"),
               ("queue-size", "ops/queue", "500 jobs", "worker queue")]  # fmt: skip
    copy, trap = copy_of(docs, intents, "proxy-reload")
    assert copy == (
        "Worker queue settings live in one file. Restart the worker queue after a change; it "
        f"reloads within {trap}.\n"
    )
    docs = {
        "it/backups": "Backups run every night. The team checks them each morning and keeps "
        "them for 35 days.\n",
        "people/desk": "The help desk is run by Helen Marsh. Calls are answered within 4 hours.\n",
    }
    intents = [("backup-days", "it/backups", "35 days", "Backups"),
               ("desk-hours", "people/desk", "4 hours", "Helen Marsh")]  # fmt: skip
    copy, trap = copy_of(docs, intents, "backup-days")
    assert copy.startswith("Helen Marsh run every night.")
    # 'Backups' opens its sentence only: inside another it is written 'backups'
    copy, trap = copy_of(docs, intents, "desk-hours")
    assert copy == f"The help desk is run by backups. Calls are answered within {trap}.\n"


def test_a_and_an_agree_with_the_anchor_put_after_them():
    docs = {
        "ops/a": "Each request goes through a proxy first, which answers within 9 seconds.\n",
        "ops/b": "An index is rebuilt every 6 hours.\n",
    }
    intents = [("proxy-answer", "ops/a", "9 seconds", "proxy"),
               ("index-rebuild", "ops/b", "6 hours", "An index")]  # fmt: skip
    copy, trap = copy_of(docs, intents, "proxy-answer")
    assert copy == f"Each request goes through an index first, which answers within {trap}.\n"
    copy, trap = copy_of(docs, intents, "index-rebuild")
    assert re.fullmatch(r"A proxy is rebuilt every \d+ hours\.\n", copy), copy
