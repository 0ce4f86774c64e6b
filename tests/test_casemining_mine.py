"""casemining.mine.mine_candidates on small documents written here in English, German,
French and Spanish: which facts are mined, their anchors, counts and order. Every expected
value is written by hand from the documents below."""

from __future__ import annotations

from ragaudit.casemining.mine import mine_candidates
from ragaudit.documents import Document

SERVER = """# Server guide

The server is started with a timeout of 90 seconds.

The `max_connections` setting defaults to 250.

```
timeout: 30 seconds
```

Copyright 5 March 2021 Example Corp.
"""
CLIENT = """# Client guide

The client retries a request after 90 seconds.
The `max_connections` setting defaults to 250.
"""
PROXY = "The proxy waits 190 seconds.\n"
GERMAN = """ZEITLIMIT(1)            Allgemeine Befehle            ZEITLIMIT(1)

OPTIONEN
       -t, --timeout=SEKUNDEN
              Wartezeit festlegen. Der Standardwert ist 30 Sekunden.
"""
FRENCH = "Le cache conserve les fichiers pendant trois jours.\n"
SPANISH = "El servidor espera cinco minutos.\n"
TABLE = "| Plan | Price |\n|------|-------|\n| Basic | 10 € |\n"
JUNK = """SYNOPSIS
       sleep 5 seconds

DESCRIPTION
2.3.1 Overview
       Run `sleep 5 seconds` first. It has 3 parts.
"""

DOCUMENTS = [
    Document("guide/server", SERVER),
    Document("guide/client", CLIENT),
    Document("guide/proxy", PROXY),
    Document("de/zeitlimit", GERMAN),
    Document("fr/cache", FRENCH),
    Document("es/servidor", SPANISH),
    Document("plans", TABLE),
    Document("junk", JUNK),
]
BY_ID = {d.doc_id: d for d in DOCUMENTS}


def facts(candidates) -> list[tuple]:
    return [(c.doc_id, c.answer, c.anchor, c.value_kind, c.answer_docs, c.pair_docs)
            for c in candidates]  # fmt: skip


def pairs(*documents: Document) -> set[tuple[str, str]]:
    """(answer, anchor) of each fact mined from `documents`."""
    return {(c.answer, c.anchor) for c in mine_candidates(list(documents))}


def test_each_fact_with_its_anchor_and_counts():
    mined = facts(mine_candidates(DOCUMENTS))
    unique = {
        ("de/zeitlimit", "30 Sekunden", "--timeout", "setting", 1, ("de/zeitlimit",)),
        ("fr/cache", "trois jours", "cache", "duration", 1, ("fr/cache",)),
        ("es/servidor", "cinco minutos", "servidor", "duration", 1, ("es/servidor",)),
        ("guide/proxy", "190 seconds", "proxy", "duration", 1, ("guide/proxy",)),
        ("plans", "10 €", "Basic", "table_cell", 1, ("plans",)),
        ("guide/server", "90 seconds", "server", "duration", 2, ("guide/server",)),
        ("guide/client", "90 seconds", "client", "duration", 2, ("guide/client",)),
    }
    assert set(mined[:7]) == unique
    # the one pair two documents state is mined once, the source first, after the others
    (shared,) = mined[7:]
    assert shared[1:5] == ("250", "max_connections", "setting", 2)
    other = "guide/client" if shared[0] == "guide/server" else "guide/server"
    assert shared[5] == (shared[0], other)


def test_rarer_answers_and_better_kinds_come_first():
    mined = facts(mine_candidates(DOCUMENTS))
    assert mined[0][1] == "30 Sekunden"  # held by one document, a setting
    assert mined[4][1] == "10 €"  # held by one document, a table cell
    assert {m[1] for m in mined[5:7]} == {"90 seconds"}  # held by two


def test_an_anchor_never_starts_with_an_article():
    """'The server' as an anchor once became 'The The server module' in a near-duplicate."""
    mined = mine_candidates(DOCUMENTS)
    server = next(c for c in mined if c.doc_id == "guide/server")
    assert server.anchor == "server"
    articles = {"the", "a", "an", "der", "die", "das", "le", "la", "les", "el", "los", "las"}
    assert all(c.anchor.split()[0].lower() not in articles for c in mined)


def test_answers_anchors_and_statements_stand_verbatim_in_their_source():
    for c in mine_candidates(DOCUMENTS):
        text = BY_ID[c.doc_id].text
        assert text[c.start : c.end] == c.answer
        assert c.anchor in text
        assert text[c.sentence_start :].startswith(c.sentence)
        assert c.sentence_start <= c.start < c.sentence_start + len(c.sentence)
        assert c.candidate_id == f"{c.doc_id}#{c.start}"
    server = next(c for c in mine_candidates(DOCUMENTS) if c.doc_id == "guide/server")
    assert server.sentence == "The server is started with a timeout of 90 seconds."
    assert server.heading == "Server guide"


def test_code_synopsis_section_numbers_copyright_and_bare_numbers_are_left_out():
    mined = mine_candidates(DOCUMENTS)
    assert not [c for c in mined if c.doc_id == "junk"]
    assert "30 seconds" not in {c.answer for c in mined}  # in a fenced block
    assert not [c for c in mined if c.value_kind == "date"]  # the copyright line's


def test_at_most_max_per_document_and_max_candidates():
    one_each = mine_candidates(DOCUMENTS, max_per_document=1)
    assert len({c.doc_id for c in one_each}) == len(one_each) == 7
    assert [c.answer for c in one_each if c.doc_id == "guide/server"] == ["90 seconds"]
    assert mine_candidates(DOCUMENTS, max_candidates=2) == mine_candidates(DOCUMENTS)[:2]


def test_the_same_seed_gives_the_same_candidates_in_the_same_order():
    first = mine_candidates(DOCUMENTS, seed=7)
    assert mine_candidates(list(DOCUMENTS), seed=7) == first
    pairs = {(c.answer, c.anchor) for c in first}
    for seed in (0, 1, 2, 3):  # a seed breaks ties: which copy of a shared pair, whose turn
        assert {(c.answer, c.anchor) for c in mine_candidates(DOCUMENTS, seed=seed)} == pairs


def test_an_answer_is_counted_as_a_whole_value():
    """'190 seconds' does not hold '90 seconds' (as '27 days' does not hold '7 days')."""
    mined = mine_candidates(DOCUMENTS)
    ninety = [c for c in mined if c.answer == "90 seconds"]
    assert [c.answer_docs for c in ninety] == [2, 2]


def test_an_answer_held_by_a_tenth_of_a_large_corpus_is_no_candidate():
    many = [Document(f"page{i}", f"The cache keeps {i} MB.\nIt waits 7 days.\n") for i in range(40)]
    mined = mine_candidates(many)
    assert "7 days" not in {c.answer for c in mined}  # in 40 documents, more than 10
    assert {c.answer for c in mined} == {f"{i} MB" for i in range(40)}


def test_a_version_bound_and_a_compound_s_tail_are_no_facts():
    # bzip2(1), read out of sample: 'redundant in versions 0.9.5 and above' names no version
    # the flags came in; hardlink(1) in German: '»intro«-Puffer' holds no option '-Puffer'
    bzip2 = Document("bzip2", "--repetitive-best\n   These flags are redundant in versions "
                              "0.9.5 and above.\n")  # fmt: skip
    hardlink = Document("hardlink", "Für jede Datei wird auch ein »intro«-Puffer (32 bytes) "
                                    "zwischengespeichert.\n")  # fmt: skip
    mined = pairs(bzip2, hardlink)
    assert ("0.9.5", "--repetitive-best") not in mined
    assert all(anchor != "-Puffer" for _, anchor in mined)


def test_a_timestamp_s_date_a_version_and_earlier_and_a_word_broken_at_a_line_end():
    # read out of sample: '2000-01-01 00:00:00 UTC' is one value; '1.0.4 and earlier' a bound;
    # tc-red(8)'s 'De‐\n fault : 10Mbit' holds no setting 'fault'
    stamp = Document("networkd", "LinkLayerTime=\n   The default time value is "
                                 '"2000-01-01 00:00:00 UTC".\n')  # fmt: skip
    earlier = Document("crypt", "It gives bug-compatibility with crypt_blowfish 1.0.4 and "
                                "earlier.\n")  # fmt: skip
    broken = Document("tc-red", "bandwidth\n       Used for calculation. De\u2010\n       "
                                "fault : 10Mbit\n")  # fmt: skip
    mined = pairs(stamp, earlier, broken)
    assert not any(answer in ("2000-01-01", "1.0.4") for answer, _ in mined)
    assert all(anchor != "fault" for _, anchor in mined)


def test_trusted_only_keeps_a_setting_named_in_code():
    # read by hand out of sample, only such settings held up (mine.trusted_shape): of the
    # documents above, max_connections' 250 and --timeout's 30 Sekunden; not the server's
    # 90 seconds (a duration of 'server'), nor 'timeout: 30 seconds' (in code), nor a price
    # (the pair stated in both guides is mined once)
    mined = [(c.answer, c.anchor) for c in mine_candidates(DOCUMENTS, trusted_only=True)]
    assert sorted(mined) == [("250", "max_connections"), ("30 Sekunden", "--timeout")]


def test_an_option_whose_entry_gives_two_defaults_is_no_fact():
    # git-show(1), read out of sample: -B's m 'defaults to 60%' and its n 'defaults to 50%';
    # asked for the default of --break-rewrites, either fits
    entry = ("OPTIONS\n       -B[<n>][/<m>], --break-rewrites[=[<n>][/<m>]]\n"
             "\t   Break complete rewrite changes into pairs of delete and create.\n"
             "\t   The number m controls this aspect of the -B option (defaults to 60%).\n\n"
             "\t   The number n controls this aspect of the -B option (defaults to 50%).\n"
             "       --limit=N\n\t   Remove no more than N objects (default 1000).\n")  # fmt: skip
    one = entry.split("       --limit")[0].replace("(defaults to 50%)", "(see above)")
    mined = pairs(Document("git-show", entry))
    assert mined == {("1000", "--limit")}  # the next entry's one default still counts
    alone = pairs(Document("git-show", one))
    assert alone == {("60%", "--break-rewrites")}


def test_a_setting_s_type_is_no_value():
    # PostgreSQL's manual writes each parameter's type beside its name: 'boolean' is what
    # create_slot takes, its default is stated after
    page = Document(
        "create-subscription",
        "create_slot (boolean)\n    Specifies whether "
        "the command should create the replication slot. The default is true.\n",
    )
    mined = pairs(page)
    assert ("boolean", "create_slot") not in mined


def test_a_number_before_its_magnitude_or_beside_a_second_after_a_comma_is_no_fact():
    # PostgreSQL's manual: '150' of '150 million transactions' is a fragment; '256kB on
    # Linux, 0 elsewhere' states two values of checkpoint_flush_after
    # (as html_to_text renders its <dt> and <dd>)
    page = Document("runtime-config", "vacuum_freeze_table_age (integer)\n\n    The default is"
                    " 150 million transactions.\n\ncheckpoint_flush_after (integer)\n\n    The "
                    "default is 256kB on Linux, 0 elsewhere.\n\nwal_sender_timeout (integer)\n"
                    "\n    The default value is 60 seconds.\n")  # fmt: skip
    mined = pairs(page)
    assert mined == {("60 seconds", "wal_sender_timeout")}


def test_two_defaults_of_one_entry_are_told_by_their_values():
    # File::Listing(3pm), read out of sample: parse_dir's $type 'unix' and $error 'ignore';
    # tcp(7) states 7200 twice ('default: 7200', '7200 seconds'): one default
    pod = ("FUNCTIONS\n   parse_dir\n       The third parameter ($type) is the type of listing."
           " The\n       default value is 'unix'.\n\n       The fourth parameter ($error) says "
           "how lines are\n       treated. The default is\n       'ignore'.\n")  # fmt: skip
    tcp = (
        "       tcp_keepalive_time (integer; default: 7200; since Linux 2.2)\n\t      The "
        "seconds before probes.  The  default\n\t      value  is\t 7200 seconds (2 hours).\n"
    )
    mined = pairs(Document("File::Listing", pod))
    assert not {a for a, anchor in mined if anchor == "parse_dir"}
    kept = pairs(Document("tcp", tcp))
    assert ("7200", "tcp_keepalive_time") in kept


def test_the_value_of_an_option_given_without_its_argument_is_no_default():
    # man(1) in German and a French page, read out of sample: the value applies when the
    # option is given bare, not when it is left out
    german = Document("man", "--warnings[=Warnungen]\n    Aktiviert Warnmeldungen. Wird kein "
                      "Wert vorgegeben, wird die Voreinstellung »mac« angewendet.\n")  # fmt: skip
    english = Document("ls", "--color[=WHEN]\n    Colorize the output. If the when argument "
                       "is omitted, it defaults to auto.\n--width=COLS\n    If omitted, "
                       "defaults to 80 columns.\n")  # fmt: skip
    mined = pairs(german, english)
    assert ("mac", "--warnings") not in mined and ("auto", "--color") not in mined
    assert ("80 columns", "--width") in mined  # 'If omitted': the option left out


def test_a_default_qualified_after_it_and_a_list_of_capitals_are_no_facts():
    # PostgreSQL's manual, read out of sample: 'ISO' of 'ISO, MDY'; a built-in default that
    # initdb replaces ('but initdb will initialize …') leaves which default is meant open
    page = Document("runtime-config-client", "DateStyle (string)\n\n    The built-in default "
                    "is ISO, MDY, but initdb will set another.\n\ndefault_text_search_config "
                    "(string)\n\n    The built-in default is pg_catalog.simple, but initdb will"
                    " set another.\n\nextra_float_digits (integer)\n\n    The default is 1.\n"
                    "\nstatement_timeout (integer)\n\n    The default is 30 seconds.\n"
                    )  # fmt: skip
    mined = pairs(page)
    assert mined == {("1", "extra_float_digits"), ("30 seconds", "statement_timeout")}


def test_two_defaults_of_an_asciidoc_entry_joined_by_plus_lines():
    # git-doc's diff-options.txt, the same -B entry as git-show(1) in AsciiDoc: its
    # paragraphs are set at the margin and joined by '+'
    entry = ("-B[<n>][/<m>]::\n--break-rewrites[=[<n>][/<m>]]::\n\tBreak rewrites.\n+\n"
             "The number `m` controls this aspect (defaults to 60%).\n+\nThe number `n` "
             "controls that aspect (defaults to 50%).\n\n--limit=<n>::\n\tAt most n objects "
             "(default 1000).\n")  # fmt: skip
    mined = pairs(Document("diff-options", entry))
    assert mined == {("1000", "--limit")}


def test_a_value_after_two_options_in_its_sentence_has_no_anchor():
    # systemd-analyze(1) in German, read out of sample: 'sein Vorgabewert' is --threshold's,
    # not --offline's, the option nearest the value
    page = Document("systemd-analyze", "       --threshold=WERT\n\t   Erlaubt einen Wert. "
                    "--threshold= kann auch mit --offline=\n\t   verwandt werden und sein "
                    "Vorgabewert ist 100.\n\n       --root=PFAD\n\t   Standardmäßig 5 "
                    "Sekunden.\n")  # fmt: skip
    mined = pairs(page)
    assert ("100", "--offline") not in mined and ("100", "--threshold") not in mined
    assert ("5 Sekunden", "--root") in mined
