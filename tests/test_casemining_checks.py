"""The model-free checks of a mined case, on texts written here; every expected value is
worked out by hand."""

from __future__ import annotations

from ragaudit.casemining.checks import (
    answer_in_question,
    near_duplicate,
    parse_phrasings,
    source_paragraph,
)


def test_an_answer_written_in_its_question_is_caught_whole_and_by_its_digits():
    assert answer_in_question("5432", "Which port, 5432 or 5433?") == {
        "passed": False, "found": "5432"}  # fmt: skip
    # the digits of "30 seconds" stand in the question as a number of their own
    assert answer_in_question("30 seconds", "Is the timeout 30 s?")["found"] == "30"
    # "7" inside "HTTP/1.17"? no: 17 is another number, and "7 days" is not said
    assert answer_in_question("7 days", "How long, after release 17, is a tag kept?") == {
        "passed": True}  # fmt: skip
    assert answer_in_question("Größe", "Wie heißt die GRÖSSE?")["passed"] is False


def test_two_phrasings_that_share_most_tokens_are_near_duplicates():
    # tokens: {what, is, the, default, port} vs {what, is, the, default, port, number}: 5/6
    result = near_duplicate("What is the default port?", "What is the default port number?")
    assert result == {"passed": False, "jaccard": 0.833, "threshold": 0.8}
    # {what, is, the, default, port} vs {which, port, does, it, listen, on}: 1/10
    assert near_duplicate("What is the default port?", "which port does it listen on")[
        "jaccard"] == 0.1  # fmt: skip
    # Unicode tokens: "größe" is one token, not "gr" + "e"
    assert near_duplicate("Welche Größe?", "welche größe")["jaccard"] == 1.0


def test_a_reply_is_read_as_two_questions_without_numbering_labels_or_quotes():
    reply = (
        '1. Precise: "What is the default value of core.abbrev?"\n2) casual: core.abbrev default?\n'
    )
    assert parse_phrasings(reply) == ("What is the default value of core.abbrev?",
                                      "core.abbrev default?")  # fmt: skip
    assert parse_phrasings("Line 1: How long is the lock held?\n\nLine 2: lock time?") == (
        "How long is the lock held?", "lock time?")  # fmt: skip
    assert parse_phrasings("Only one question here?") is None
    assert parse_phrasings(None) is None


def test_the_oracle_is_given_the_paragraph_that_holds_the_answer():
    text = "Title\n\nFirst paragraph.\n\nThe port is 5432 by default.\nIt can be changed.\n\nLast."
    start = text.index("5432")
    assert source_paragraph(text, start, start + 4) == (
        "The port is 5432 by default.\nIt can be changed.")  # fmt: skip
    long = "\n".join(f"line {i:03d} of a long paragraph" for i in range(100))
    at = long.index("line 050")
    cut = source_paragraph(long, at, at + 8, limit=200)
    # 200 characters around the span, cut at line breaks: whole lines only, 050 among them
    assert "line 050" in cut and len(cut) <= 200
    assert all(line.startswith("line ") and line.endswith("paragraph") for line in cut.splitlines())


def test_a_bare_name_asks_nothing_and_a_short_question_does():
    from ragaudit.casemining.checks import asks_something

    # words / plain words (letters only, two or more): 1/0, 2/0, 4/1, 3/1 -> no question
    for name in ("gitcvs.dbDriver", "git-mailsplit -d", "git filter-branch --original <ref>",
                 "fallback_encoding in gitweb.conf"):  # fmt: skip
        assert asks_something(name)["passed"] is False, name
    # 4/4 and 4/3 (German: Wert, hat, laut; idle_wait is a name)
    assert asks_something("gitweb default project root")["passed"] is True
    assert asks_something("Welchen Wert hat idle_wait?")["plain_words"] == 3
    # a command line is no question: 4 words, 2 plain, an option other than the anchor, and
    # neither a question mark nor a question word (kept once among 40 git-doc cases)
    command = asks_something("git config --get sendemail.cccover", "sendemail.cccover")
    assert command == {"passed": False, "words": 4, "plain_words": 2, "command": True}
    assert asks_something("what does git config --get print?", "x")["passed"] is True
    # nothing but the page's and the anchor's names: what about them is not said
    named = asks_something("git am --show-current-patch", "--show-current-patch", "git-am")
    assert named["passed"] is False and named["command"] is True
    query = asks_something("gitweb default project root", "$projectroot", "gitweb")
    assert query["passed"] is True


def test_a_value_stated_as_a_bound_or_an_alternative_is_no_fact():
    from types import SimpleNamespace

    from ragaudit.casemining.stated import bounded

    text = "It is at least 2GiB. Clocks of 1 ns or 1 s. Usually 40 hex. The default is 5."

    def at(value: str) -> SimpleNamespace:
        start = text.index(value)
        return SimpleNamespace(start=start, end=start + len(value))

    assert bounded(text, at("2GiB")) and bounded(text, at("1 ns")) and bounded(text, at("40"))
    assert bounded(text, at("1 s"))  # the second of "1 ns or 1 s"
    assert not bounded(text, at("5"))


def test_a_phrasing_ending_in_a_full_stop_states_and_asks_nothing():
    from ragaudit.casemining.checks import asks_something

    # read out of sample (systemd.exec(5)): the casual phrasing asserted a value instead
    stated = asks_something('LogsDirectoryMode in systemd.exec.5 defaults to "append".',
                            "LogsDirectoryMode", "systemd.exec.5")  # fmt: skip
    assert stated["passed"] is False and stated["statement"] is True
    assert asks_something("default LogsDirectoryMode in systemd.exec?")["passed"] is True
    assert asks_something("What does LogsDirectoryMode default to.")["passed"] is True
