"""Text matching shared by the graders and the citation check: normalisation, whole-phrase
and whole-number search, and the abstention / denial-of-record patterns."""

from __future__ import annotations

import re

# Abstentions: the prompt's NOT_IN_CONTEXT token and the usual paraphrases of it.
ABSTENTION_PATTERNS: tuple[str, ...] = (
    r"not[_ ]in[_ ]context",
    r"\bnot (?:found |mentioned |stated |given |provided |present |available |specified )?"
    r"(?:in|within) the (?:provided |given )?(?:context|documents?|chunks?|text|passages?)",
    r"\b(?:context|documents?|chunks?|passages?|text) (?:does not|doesn't|do not|don't)"
    r" (?:contain|mention|provide|include|specify|state|say|list|give)",
    r"\b(?:cannot|can't|can not|unable to|not able to) (?:be )?(?:answer|determine|find|tell)",
    r"\bno (?:relevant )?(?:information|mention|data|details) (?:about|on|regarding|of|is|in)",
    r"\bthere is no (?:information|mention)",
    # Plain-language refusals: a user's pipeline whose prompt has no NOT_IN_CONTEXT token
    # declines in its own words (issue 26). None of the shipped reference run's replies
    # matches one without matching the patterns above.
    r"\bI (?:do not|don['\u2019]?t) know\b",
    r"\bthere['\u2019]s no (?:information|mention|answer)",
    r"\b(?:context|documents?|sources?|passages?|text) (?:does not|doesn['\u2019]t|do not|"
    r"don['\u2019]t) (?:tell|answer|cover|address)",
    r"\bnot (?:in|within|part of) (?:any of )?(?:the |these |my )?(?:provided |given )?"
    r"(?:context|documents?|sources?|passages?)",
    r"\b(?:I have|I['\u2019]ve) no (?:information|way (?:of|to) know)",
)

# Denial of record: the reply says the asked-about record is absent (and may then answer
# anyway, from another record). Graded as a wrong answer of its own kind.
DENIAL_OF_RECORD_PATTERNS: tuple[str, ...] = (
    r"\b(?:is|are) not (?:listed|mentioned|included|present|found|shown|given|recorded)"
    r" (?:in|on|within) (?:the |any )?(?:provided |given )?"
    r"(?:tables?|context|documents?|chunks?|rows?)",
    r"\b(?:does not|doesn't|do not|don't) appear (?:in|on) (?:the |any )?(?:tables?|context|rows?)",
    r"\bthere (?:is|are) no (?:row|rows|entry|entries|record|records|data) for\b",
    r"\bno (?:row|entry|record) (?:for|matching|exists)",
    r"\b(?:is|are) not in the (?:tables?|context|rows?)\b",
)

_ABSTENTION_RE = [re.compile(p, re.IGNORECASE) for p in ABSTENTION_PATTERNS]
_DENIAL_RE = [re.compile(p, re.IGNORECASE) for p in DENIAL_OF_RECORD_PATTERNS]
# Citation marks: [c2], [c1, c3], [chunk 2], a one-digit [2] (k is at most 9), or a full
# chunk id ([recursive-1000-0/doc#3]). A bracketed value such as [55] is kept.
_LABEL = r"\s*(?:(?:chunk\s*)?c\s*\d+|chunk\s*\d+|\d|[^\[\]\s,;]*[#/][^\[\]\s,;]*)\s*"
_CITATION_MARK_RE = re.compile(r"\[" + _LABEL + r"(?:[,;]" + _LABEL + r")*\]", re.IGNORECASE)
_NUMBER_RE = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w]|[.,]\d)")


def normalise(text: str) -> str:
    """Lower case, unify quotes and dashes, drop thousands separators, collapse spaces."""
    text = text.lower()
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"')
    text = text.replace("\u201d", '"').replace("\u2013", "-").replace("\u2014", "-")
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    return re.sub(r"\s+", " ", text).strip()


def strip_citations(text: str) -> str:
    """The reply without its [c1]-style citation marks (their digits are not values)."""
    return _CITATION_MARK_RE.sub(" ", text)


def _loose(word: str) -> str:
    # A crude singular: "stations" and "station" match; short words are left alone.
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _phrase_pattern(phrase: str) -> re.Pattern[str]:
    words = [re.escape(_loose(w)) + r"s?" if w.isalpha() else re.escape(w) for w in phrase.split()]
    return re.compile(r"(?<![\w])" + r"[\s\-]+".join(words) + r"(?![\w]|[.,]\d)")


def find_phrase(phrase: str, text: str) -> int | None:
    """Where `phrase` occurs in `text` as whole words (case, spacing, plural 's' ignored),
    or None. Both sides are normalised first."""
    phrase_n = normalise(phrase)
    if not phrase_n:
        return None
    match = _phrase_pattern(phrase_n).search(normalise(text))
    return match.start() if match else None


def numbers_in(text: str) -> list[str]:
    """Whole numbers and decimals in `text` (thousands separators dropped), in order."""
    return [m.group(0).replace(",", "") for m in _NUMBER_RE.finditer(normalise(text))]


def find_number(number: str, text: str) -> int | None:
    """Where `number` occurs as a whole number in `text` (not inside 380 or 4417-B's
    digits followed by a letter), or None."""
    pattern = re.compile(r"(?<![\w.])" + re.escape(number) + r"(?![\w]|[.,]\d)")
    match = pattern.search(normalise(text))
    return match.start() if match else None


def find_in_reply(value: str, reply: str) -> tuple[int, str] | None:
    """Find an expected value in a reply, loosely: the whole phrase first (`find_phrase`),
    then (for a value with exactly one number, like "38 days") the bare number. Returns
    (position in the normalised reply, how), or None."""
    at = find_phrase(value, reply)
    if at is not None:
        return at, "phrase"
    value_numbers = numbers_in(value)
    if len(value_numbers) == 1:
        at = find_number(value_numbers[0], reply)
        if at is not None:
            return at, "number"
    return None


def abstains(text: str) -> bool:
    """True when the reply declines for want of evidence (NOT_IN_CONTEXT and variants)."""
    return any(p.search(text) for p in _ABSTENTION_RE)


def denies_record(text: str) -> bool:
    """True when the reply says the asked-about record is absent."""
    return any(p.search(text) for p in _DENIAL_RE)
