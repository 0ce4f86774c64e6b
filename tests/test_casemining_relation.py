"""A phrasing asks the fact its statement gives (casemining/relation.py), and a value is
stated plainly enough to ask for (casemining/stated.py). The phrasings and statements are
those of cases read by hand and found invalid (benchmarks/cases_precision/judged/), and
valid ones beside them; each expectation is what the rubric's reader decided."""

from __future__ import annotations

import pytest

from ragaudit.casemining.entries import defined_again
from ragaudit.casemining.prompts import template_phrasings
from ragaudit.casemining.relation import (
    asks_how_to,
    asks_the_fact,
    asks_yes_no,
    names_anchor,
    names_document,
    same_relation,
    stated_relation,
)
from ragaudit.casemining.stated import unplain


@pytest.mark.parametrize(
    ("question", "procedural"),
    [
        ("Wie kann ich den Standardwert für den LUKS2-Backend in homectl ändern?", True),
        ("Wie kann man --bus-path in systemd-stdio-bridge konfigurieren?", True),
        ("How do I set the width of git shortlog -w?", True),
        ("how to change core.abbrev", True),
        ("Comment configurer la taille du cache ?", True),
        ("¿Cómo puedo cambiar el puerto?", True),
        ("How many threads does git index-pack use at most?", False),
        ("How long is the base object name in git-pack-objects?", False),
        ("Wie hoch ist die Auflösung des --preview-Scans in sane-teco3?", False),
        ("Comment s'appelle le fichier de configuration ?", False),
        ("¿Cómo se llama el archivo?", False),
    ],
)
def test_a_question_asking_a_way_is_told_from_one_asking_a_value(question, procedural):
    assert asks_how_to(question)["passed"] is not procedural


@pytest.mark.parametrize(
    ("question", "whether"),
    [
        ("Is --show-config the default value for ctags?", True),
        ("Does git gc prune loose objects by default?", True),
        ("Ist --timeout in busctl standardmäßig gesetzt?", True),
        ("Est-ce que le cache est activé ?", True),
        ("What is the default of --show-config in ctags?", False),
        ("Wie ist idle_wait standardmäßig eingestellt?", False),
        ("Was ist der Standardwert von --timeout in busctl?", False),
    ],
)
def test_a_question_answered_yes_or_no_asks_no_value(question, whether):
    assert asks_yes_no(question)["passed"] is not whether


def test_a_minimum_asked_as_a_maximum_changes_the_relation():
    # git-pack-objects: '--max-pack-size ... The minimum size allowed is limited to 1 MiB.'
    sentence = "The minimum size allowed is limited to 1 MiB."
    asked = same_relation(
        "what is the maximum pack size with --max-pack-size", sentence, "1 MiB", "--max-pack-size"
    )
    assert asked == {"passed": False, "added": ["maximum"]}
    kept = same_relation(
        "what is the minimum size for --max-pack-size?", sentence, "1 MiB", "--max-pack-size"
    )
    assert kept["passed"] is True


def test_a_default_asked_of_a_cap_or_a_cap_asked_as_a_default_changes_it():
    # git-index-pack --threads: 'Specifying 0 ... use maximum 3 threads.' asked as a default
    sentence = (
        "Specifying 0 will cause Git to auto-detect the number of CPU's and use maximum 3 threads."
    )
    asked = same_relation(
        "What is the default number of --threads?", sentence, "3 threads", "--threads"
    )
    assert asked == {"passed": False, "added": ["default"]}
    # the option's name is no relation: '--max-pack-size' states no maximum
    assert stated_relation("--max-pack-size=<n>: the size is limited to 1 MiB", "1 MiB",
                           "--max-pack-size") is None  # fmt: skip


def test_a_stated_default_must_be_asked_and_no_relation_added_in_either_language():
    # read by hand: 'what is the routing algorithm in systemd.netdev?' for 'Standardmäßig
    # »batman-v«' asks every allowed value, not the default; 'what is the maximum line width
    # that can be set with --width?' for '(default of 75 columns)' asks another value
    sentence = "Standardmäßig 85% des verfügbaren Plattenplatzes."
    assert same_relation("Was ist der Standardwert von --disk-size in homectl?", sentence, "85%",
                         "--disk-size")["passed"]  # fmt: skip
    unsaid = same_relation("Wie groß ist --disk-size in homectl?", sentence, "85%", "--disk-size")
    assert unsaid == {"passed": False, "added": [], "dropped": ["default"]}
    added = same_relation(
        "Was ist die Höchstgrenze von --disk-size?", sentence, "85%", "--disk-size"
    )
    assert added == {"passed": False, "added": ["maximum"], "dropped": ["default"]}
    width = "-w, --width=WIDTH maximum line width (default of 75 columns)"
    asked = same_relation("What is the maximum line width that can be set with --width in fmt?",
                          width, "75 columns", "--width")  # fmt: skip
    assert asked == {"passed": False, "added": [], "dropped": ["default"]}
    assert same_relation("How wide is the default line width of --width in fmt?", width,
                         "75 columns", "--width")["passed"]  # fmt: skip
    # English 'standard' is no default ('standard output'); German 'Standard...' is
    assert stated_relation("It writes 76 columns to standard output.", "76", "-w") is None


def test_how_often_is_asked_only_where_the_statement_gives_a_frequency():
    # git-gc: '--prune=<date> ... (default is "2 weeks ago")' asked as 'how often does gc prune'
    sentence = 'Prune loose objects older than date (default is "2 weeks ago").'
    asked = same_relation("how often does git gc prune by default", sentence, "2 weeks", "--prune")
    assert asked["added"] == ["frequency"]
    daily = "The job runs every 30 minutes."
    assert same_relation("how often does the job run?", daily, "30 minutes", "job")["passed"]


@pytest.mark.parametrize(
    ("question", "anchor", "named"),
    [
        ("What is the size of the base object name with --delta-base-offset?",
         "--delta-base-offset", True),
        ("how long is the delta base offset name", "--delta-base-offset", True),
        ("How big is the header of the first ref block in reftable?", "block_len", False),
        ("what width does git shortlog -w use", "-w", True),
        ("what width does git shortlog use", "-w", False),
        ("Was ist die maximalen Auflösung des JX-250?", "maximale Auflösung", True),
        ("Was ist der Standard-Modus für die Netzdevice?", "Mode=", False),
        # an option is named as itself even where its name is a plain word
        ("Wie lange dauert die Verbindung mit busctl?", "--timeout", False),
        ("Was ist der Standardwert von --timeout in busctl?", "--timeout", True),
        # read out of sample: 'size' in a question is no name of busctl's --size
        ("What is the default size for busctl operations?", "--size", False),
        ("default --size in busctl?", "--size", True),
        ("What is gc.reflogExpire by default?", "gc.reflogExpire", True),
        ("How long are reflog entries kept by default?", "gc.reflogExpire", False),
    ],
)  # fmt: skip
def test_a_phrasing_names_what_the_value_is_of(question, anchor, named):
    assert names_anchor(question, anchor)["passed"] is named


def test_a_page_is_named_by_its_title_its_section_number_and_separators_aside():
    assert names_document(
        "Wie hoch ist die Auflösung des --preview in sane-teco3?", "sane-teco3.5"
    )["passed"]
    assert names_document("size in git pack-objects", "git-pack-objects")["passed"]
    assert not names_document("Was ist die Auflösung des Scans in --preview?", "sane-sceptre.5")[
        "passed"
    ]


def test_a_phrase_anchor_may_be_named_by_its_page_instead():
    # 'release cycle start' (a sentence's subject) is paraphrased; the page names the fact
    facts = {
        "sentence": "The release cycle start with a 2 weeks long merge window.",
        "answer": "2 weeks",
        "anchor": "release cycle start",
        "title": "git-bisect-lk2009",
    }
    question = "How long is the merge window of the release cycle in git-bisect-lk2009?"
    checked = asks_the_fact(question, elsewhere=False, **facts)
    assert checked["passed"] and checked["anchor"]["by_page"] == "git-bisect-lk2009"
    assert not asks_the_fact("How long is the merge window?", elsewhere=False, **facts)["passed"]
    # an option is not: '--timeout' must be written
    option = {**facts, "anchor": "--timeout", "title": "git-credential-cache"}
    asked = "How long does git-credential-cache cache credentials?"
    assert asks_the_fact(asked, elsewhere=False, **option)["failed"] == "anchor"


def test_the_document_is_required_only_where_the_anchor_is_written_elsewhere_too():
    facts = {"sentence": "--preview uses 30 DPI.", "answer": "30 DPI", "anchor": "--preview",
             "title": "sane-sceptre.5"}  # fmt: skip
    question = "Was ist die Auflösung des Scans in --preview?"
    alone = asks_the_fact(question, elsewhere=False, **facts)
    assert alone["passed"] and "document" not in alone
    shared = asks_the_fact(question, elsewhere=True, **facts)
    assert (shared["passed"], shared["failed"]) == (False, "document")


def test_templates_ask_the_relation_the_statement_states_and_name_the_page():
    assert template_phrasings("listen_port", "server", "listen_port defaults to 5432.", "5432",
                              "en") == ("What is the default of listen_port in server?",
                                        "default listen_port in server?")  # fmt: skip
    assert template_phrasings("-l", "scanimage.1", "-l: höchstens 218 mm", "218 mm", "de") == (
        "Welchen Höchstwert hat -l in scanimage?", "Höchstwert von -l in scanimage?")  # fmt: skip


@pytest.mark.parametrize(
    ("sentence", "answer", "kind", "reason"),
    [
        ("GREP_COLORS defaults to ms=01;31:mc=01;31:sl=:cx=.", "ms=01", "setting",
         "a fragment of a longer value"),
        ("Exactly `restart_count` 3-byte `restart_offset` values precede it.", "3-byte",
         "quantity", "a value of another name ('restart_offset')"),
        ("Defaults to `diff.submodule` or the 'short' format if unset.", "diff.submodule",
         "setting", "one of alternatives"),
        ("The standard input of the hook will be one line for each ref.", "one line",
         "quantity", "a count in passing"),
        ("The release cycle starts with a 2 weeks long merge window.", "2 weeks", "duration",
         None),
        ("This example shows that the index contained 3552 entries.", "3552 entries", "quantity",
         "an example's value"),
        ("An object name is usually 40 hexadecimal characters.", "40 hexadecimal characters",
         "quantity", "a hedged value"),
        ("restart_count is 2-byte, and each restart_offset a 3-byte value.", "3-byte",
         "quantity", "a second value in its statement ('2-byte')"),
        ("The index is 30%-50% smaller with version 4.", "30%", "percent",
         "one end of a range"),
        ("Ports 8000 to 8080 are tried.", "8080", "setting", "one end of a range"),
        ("A delta's base is either a 20-byte object name or an offset.", "20-byte", "quantity",
         "one of alternatives"),
        ("Maximum width defaults to terminal width, or 80 columns if not connected to a "
         "terminal.", "80 columns", "quantity", "one of alternatives"),
        ("The job stops after 30 seconds if nothing was read.", "30 seconds", "duration",
         "a value under a condition"),
        ("a fudge factor that should be smaller than 100%.", "100%", "percent", "a bound"),
        ("Eine häufig für Wechselmedien verwendete Option ist 5 MB.", "5 MB", "quantity",
         "a hedged value"),
        ("The default is 7 characters.", "7 characters", "setting", None),
        # curl: the default holds only with two other options given
        ('If --tlsuser and --tlspassword are specified but --tlsauthtype is not, then this '
         'option defaults to "SRP".', "SRP", "setting", "a value under a condition"),
        # gcloud --schema-file: the default of a column's mode inside the file, not the flag's
        ("If mode is omitted the default is 'NULLABLE'.", "NULLABLE", "setting",
         "a value under a condition"),
        # a condition that only says the value is not given states a default
        ("If omitted, defaults to 5.", "5", "setting", None),
        ("If `<mode>` is omitted, defaults to `--mixed`.", "--mixed", "setting", None),
        ("Falls er fehlt, ist die Vorgabe »idle:sleep:shutdown«.", "idle:sleep:shutdown",
         "setting", None),
        # cfdisk --lock[=mode], read out of sample: yes is a bare --lock's value; left out,
        # no lock is used
        ("Si cet argument est absent, sa valeur par défaut est yes.", "yes", "setting",
         "a value of the option given without its argument"),
        # dd: the synopsis' metavariable, not what conv takes
        ("conv=CONVS convert the file as per the comma separated symbol list", "CONVS",
         "setting", "a placeholder"),
        # time(1): the first word of the default format, not the format
        ("Le format par défaut est : %Uuser %Ssystem %Eelapsed %PCPU", "%Uuser", "setting",
         "a fragment of a longer value"),
        # ssh-keygen -V: a row of syntax examples
        ("+52w1d Gültig von jetzt bis 52 Wochen und ein Tag von jetzt.", "52 Wochen",
         "duration", "an example's value"),
        # apt-transport-mirror: available since one version, documented since another
        ("Die Grundfunktionalität ist seit APT 0.7.24 verfügbar, war jedoch bis APT 1.6 nicht "
         "dokumentiert.", "0.7.24", "version", "a second value in its statement ('1.6')"),
        # read out of sample (judged/en-manuals.80.v11.unread.yaml): the idx entries' size,
        # not the header's; a scope; the opposite option's default; a case set up before
        ("The header is followed by sorted 24-byte entries, one entry per object in the pack.",
         "24-byte", "quantity", "a value of another name ('entries')"),
        ("For non plumbing commands this defaults to UTF-8.", "UTF-8", "setting",
         "a value under a condition"),
        ("You can leave out at most one of `A` and `B`, in which case it defaults to `HEAD`.",
         "HEAD", "setting", "a value under a condition"),
        # read out of sample (judged/en-man-b.v12.yaml): a list's first item, a file name's
        # stem, a banner of an example session, the bare number beside the value
        ("The default is ~/.ssh/id_rsa, ~/.ssh/id_ecdsa and ~/.ssh/id_dsa.", "~/.ssh/id_rsa",
         "setting", "one of a list"),
        ("The backup file defaults to username.tar(.gz|.bz2) in the directory.", "username.tar",
         "setting", "a fragment of a longer value"),
        ("$ sqlite3 mydata.db SQLite version 3.8.8 Enter .help", "3.8.8", "version",
         "an example's value"),
        ("The minimum tlen is 0 and the maximum is 128 KiB.", "128 KiB", "quantity",
         "a second value in its statement ('0')"),
        ("The default is 5 (see below).", "5", "setting", None),
    ],
)  # fmt: skip
def test_a_value_is_asked_for_only_where_it_is_stated_plainly(sentence, answer, kind, reason):
    anchor = "conv" if answer == "CONVS" else "restart_count"  # a name a value after it is not
    assert unplain(sentence.index(answer), 0, sentence, kind, answer, anchor) == reason


def test_a_value_under_a_negated_option_and_a_size_of_its_own_noun():
    # git-status: '--no-ahead-behind ... Defaults to true' means the counts are shown
    assert unplain(12, 0, "Defaults to true.", "setting", "true", "--no-ahead-behind") == (
        "a value of the option it negates")  # fmt: skip
    # gpg: '--no-auto-key-locate ... The default is "local,wkd"': --auto-key-locate's list
    assert unplain(16, 0, 'The default is "local,wkd".', "setting", "local,wkd",
                   "--no-auto-key-locate") == "a value of the option it negates"  # fmt: skip
    assert unplain(12, 0, "Defaults to true.", "setting", "true", "--ahead-behind") is None
    # a size of the noun the anchor names is the anchor's
    assert unplain(10, 0, "Each is a 24-byte entry.", "quantity", "24-byte", "entry") is None


def test_an_anchor_defined_in_several_sections_of_its_page_is_no_fact():
    # systemd.netdev(5): Mode= in [MACVLAN], [IPVLAN] and [Bond], each with its own default
    page = (
        "[MACVLAN]\n   Mode=\n      Default bridge.\n[Bond]\n   Mode=\n      Default balance-rr.\n"
    )
    assert defined_again(page, "Mode=") is True
    # as(1): '-mabi=abi' under AArch64 and '-mabi=ABI' under MIPS, the anchor without its dash
    assert defined_again("       -mabi=abi\n x\n       -mabi=ABI\n", "mabi") is True
    # one definition, mentioned again in prose: one fact
    once = "   --timeout=SEC\n      Default 25s.\nSee --timeout=SEC above.\n"
    assert defined_again(once, "--timeout") is False
