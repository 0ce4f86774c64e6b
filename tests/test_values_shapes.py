"""values.find_values: the value shapes mining and mutate share, on small texts in
English, German, French and Spanish. Every expected value is written here by hand from the
text beside it."""

from __future__ import annotations

import pytest

from ragaudit.values.shapes import find_values


def found(text: str) -> list[tuple[str, str]]:
    """(value, kind) of every value found, checking each one's span is verbatim."""
    values = find_values(text)
    for v in values:
        assert text[v.start : v.end] == v.text
    return [(v.text, v.kind) for v in values]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The cache holds 512 MB and expires after 30 seconds.",
         [("512 MB", "quantity"), ("30 seconds", "duration")]),
        ("Wait five minutes, then twenty-one seconds more.",
         [("five minutes", "duration"), ("twenty-one seconds", "duration")]),
        ("Warten Sie fünf Sekunden oder einundzwanzig Minuten.",
         [("fünf Sekunden", "duration"), ("einundzwanzig Minuten", "duration")]),
        ("Les journaux sont gardés trois jours, puis vingt et un jours.",
         [("trois jours", "duration"), ("vingt et un jours", "duration")]),
        ("Espere cinco minutos o treinta y dos segundos.",
         [("cinco minutos", "duration"), ("treinta y dos segundos", "duration")]),
        ("Die Zeile hat höchstens 80 Zeichen.", [("80 Zeichen", "quantity")]),
        ("Use 3 threads for 2 parts.", [("3 threads", "quantity")]),
    ],
)  # fmt: skip
def test_numbers_with_units_in_four_languages(text, expected):
    assert found(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Le tampon fait 1\u00a0024 octets.", "1\u00a0024 octets"),  # no-break space
        ("Le tampon fait 1\u202f024 octets.", "1\u202f024 octets"),  # narrow no-break space
        ("The buffer is 1\u2009024 bytes.", "1\u2009024 bytes"),  # thin space
        ("Le tampon fait 1 024 octets.", "1 024 octets"),  # a plain space before a unit
        ("The file is 1,024 bytes long.", "1,024 bytes"),
        ("Die Datei hat 1.000.000 Bytes.", "1.000.000 Bytes"),
        ("Der Puffer hat 2,5 MB.", "2,5 MB"),
    ],
)
def test_numbers_group_thousands_with_unicode_spaces_and_write_decimal_commas(text, expected):
    assert found(text) == [(expected, "quantity")]


def test_percent_and_money():
    assert found("Der Anteil beträgt 2,5 % oder fünf Prozent.") == [
        ("2,5 %", "percent"),
        ("fünf Prozent", "percent"),
    ]
    assert found("Es kostet 12,50 €, also $5 oder EUR 10, und 50% mehr.") == [
        ("12,50 €", "money"),
        ("$5", "money"),
        ("EUR 10", "money"),
        ("50%", "percent"),
    ]


@pytest.mark.parametrize(
    "date",
    ["5 March 2024", "March 5, 2024", "2024-03-05", "5. März 2024", "05.03.2024", "März 2024",
     "1er mars 2024", "5 de marzo de 2024", "enero de 2024"],
)  # fmt: skip
def test_dates_in_four_languages(date):
    assert found(f"It was released on {date} here.") == [(date, "date")]


def test_impossible_dates_are_no_dates():
    assert found("Build 2024-13-45 and 45.03.2024 and 5 March 1200.") == []


def test_versions_and_what_is_no_version():
    text = "Requires version 3.11, git 2.39.5 or v1.2; not 127.0.0.1 nor gpl-3.0.html."
    assert found(text) == [("3.11", "version"), ("2.39.5", "version"), ("v1.2", "version")]


@pytest.mark.parametrize(
    ("text", "value", "label"),
    [
        ("The default is 5432.", "5432", None),
        ("Defaults to 30.", "30", None),
        ("   default: 5\n", "5", None),
        ("The default value of core.abbrev is 7.", "7", "core.abbrev"),
        ("The default is `false`.", "false", None),
        ("Default: off).", "off", None),
        ("It defaults to HEAD.", "HEAD", None),
        ("The timeout is 30 seconds by default.", "30 seconds", None),
        ("max_connections (integer)\n", "integer", "max_connections"),
        ("port: 5432\n", "5432", "port"),
        ("Der Standardwert ist 5.", "5", None),
        ("Vorgabe: 10\n", "10", None),
        ("Die Anzeige wird erneuert (standardmäßig 1 s).", "1 s", None),
        ("La valeur par défaut est 3 jours.", "3 jours", None),
        ("Le délai (par défaut\u00a0: 10 secondes) suffit.", "10 secondes", None),
        ("El valor por defecto es cinco minutos.", "cinco minutos", None),
    ],
)
def test_settings(text, value, label):
    values = find_values(text)
    assert [(v.text, v.kind, v.label) for v in values] == [(value, "setting", label)]
    if label:
        assert text[values[0].label_start :].startswith(label)


def test_a_default_that_is_no_value_is_none():
    assert found("The default is to use the cache.") == []
    assert found("Par défaut, le fichier est lu.") == []
    assert found("The ANZAHL default is ZEICHENKETTE.") == []


@pytest.mark.parametrize(
    ("text", "name", "role"),
    [
        ("This tool was written by Ada Lovelace.", "Ada Lovelace", "written by"),
        ("Geschrieben von Jim Meyering und Paul Eggert.", "Jim Meyering", "Geschrieben von"),
        ("Autor: Max Mustermann\n", "Max Mustermann", "Autor"),
        ("Ce programme a été écrit par Jean-Luc Dupont.", "Jean-Luc Dupont", "écrit par"),
        ("El manual fue escrito por María López.", "María López", "escrito por"),
        ("It is maintained by Ludwig van Beethoven.", "Ludwig van Beethoven", "maintained by"),
    ],
)
def test_names_after_a_role_phrase(text, name, role):
    values = find_values(text)
    assert [(v.text, v.kind, v.label) for v in values] == [(name, "name", role)]


def test_a_role_phrase_without_a_name_is_none():
    assert found("The code was written by the GNU project.") == []  # a name is capitalised
    assert found("written by FIXME") == []
    assert found("written by someone") == []


def test_table_cells_carry_their_column_header():
    text = "| Plan | Price | Seats |\n|------|-------|-------|\n| Basic | 10 € | 5 |\n"
    values = find_values(text)
    assert [(v.text, v.kind, v.label) for v in values] == [
        ("10 €", "table_cell", "Price"),
        ("5", "table_cell", "Seats"),
    ]


def test_bare_numbers_and_number_words_alone_are_no_values():
    assert found("Chapter two has 3 parts and 42 of them are null characters.") == []
    assert found("Use option -5 or file2 or 1.2.3.4 here.") == []
