"""A setting's value, known by the words beside it, in English, German, French and Spanish:
- a default: 'The default is 5432', 'Defaults to 30.', 'default: 5', '(default 10)',
  'Standardwert ist 5', 'Vorgabe: 5', 'par défaut : 5', 'la valeur par défaut est 5',
  'por defecto es 5', or after its value: '30 seconds by default';
- a `key: value` (or `key=value`) line: 'port: 5432';
- a setting's type after its name: 'max_connections (integer)'.
The value is a number (with its unit), a quoted token (its inside), or a word that is a
setting's value (`auto`, `unlimited`, `HEAD`, `UTF-8`): never the start of a sentence
('The default is to ...')."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from ragaudit.values.alternation import alternation, cased
from ragaudit.values.heads import Heads
from ragaudit.values.plain import ValueMatch, free_before
from ragaudit.values.words import ROLE_WORDS

_SPACE = r"[ \t\u00a0\u202f]"
_AFTER_DEFAULT = re.compile(
    r"(?:(?:\s+value|\s+setting)?(?:\s+(?:of|for)\s+(?P<of>`[^`\n]{1,40}`|[\w.$<>\-]*\w))?"
    r"\s+(?:is|was|will\s+be)(?:\s+set\s+to)?|\s+to|\s*[:=]|(?=\s+[\-\d]))\s*"
)
"""After English 'default(s)': '(value) (of X) is', 'to', ':', or a number ('default 10')."""
_AFTER_DEFAULT_OTHER = re.compile(r"(?:\s+(?:ist|lautet|auf|est|vaut|es|será))?\s*[:=,]?\s*")
_AFTER_STANDARD = re.compile(r"(?:\s+(?:ist|lautet)|\s*:)\s*")
_KEY = re.compile(rf"{_SPACE}*(?P<key>[A-Za-z_][\w.\-]*){_SPACE}*")
"""What stands before the colon or equals sign of a `key: value` line."""
_KEY_SIGN = re.compile(rf"(?<![:=])[:=](?![:=]){_SPACE}*(?=\S)")
"""A key's colon or equals sign, not half of '::' or '=='."""
_NOT_KEYS = frozenset(
    "note example examples see usage warning tip important hinweis beispiel achtung remarque "
    "exemple attention nota ejemplo aviso default defaults standard vorgabe http https ftp "
    "file mailto".split()
)
_TYPES = ("integer int boolean bool string str float double real enum list array number "
          "numeric text Ganzzahl Zeichenkette boolesch entier booléen chaîne entero booleano "
          "cadena").split()  # fmt: skip
_TYPED = re.compile(rf"\((?P<type>{alternation(cased(_TYPES))}|floating point)\)")
"""A setting's type in brackets after its name ('max_connections (integer)')."""
TYPE_NAMES = frozenset(t.lower() for t in _TYPES) | {"floating point"}
"""Every type `_TYPED` reads, lower case: a setting value that names what kind of value
the setting takes (case mining asks for its value, not this)."""
_TYPED_KEY = re.compile(r"(?<![\w.\-])([A-Za-z_][\w.\-]*\w)[ \t]+\Z")
_QUOTED = re.compile(
    r"`([^`\n]{1,40})`|'([^'\n\s][^'\n]{0,38})'|\"([^\"\n]{1,40})\"|»([^«\n]{1,40})«"
    r"|«\s?([^»\n]{1,40}?)\s?»|„([^“\n]{1,40})“|“([^”\n]{1,40})”|‘([^’\n]{1,40})’"
)
"""A quoted value, in any language's quotes: its inside is the value."""
_SIGNED = re.compile(r"[\-−+]?\d+(?:[.,]\d+)*(?!\w|[.,]\d)")
_TOKEN = re.compile(r"[^\s,;()\[\]{}\"'`«»“”„‘’]+")
_SETTING_WORDS = frozenset(
    "true false yes no on off none auto always never unlimited unset enabled disabled null "
    "empty ja nein wahr falsch aus ein an automatisch immer nie unbegrenzt aktiviert "
    "deaktiviert leer oui non vrai faux jamais toujours illimité activé désactivé vide "
    "sí si verdadero falso siempre nunca ilimitado activado desactivado vacío".split()
)
"""Plain words that are a setting's value ('Default: off'), not a sentence's next word."""


def settings(text: str, plain: Sequence[ValueMatch], heads: Heads) -> Iterator[ValueMatch]:
    """The setting values of `text` (module docstring), labelled with the setting's name
    where the text gives it ('The default of core.abbrev is 7', 'port: 5432'); `plain`:
    its plain values, which a setting's value may be; `heads`: its heads."""
    plain_at: dict[int, ValueMatch] = {}
    for value in plain:
        if value.start not in plain_at or value.end > plain_at[value.start].end:
            plain_at[value.start] = value
    yield from _defaults(text, plain_at, heads)
    ends = {v.end: v for v in plain}
    for start, _ in heads.get("default_after", ()):
        end = len(text[:start].rstrip().rstrip("(").rstrip())
        before = ends.get(end) or _number_ending(text, end)
        if before:
            yield ValueMatch(before.start, before.end, before.text, "setting")
    yield from _key_lines(text, plain_at)
    for m in _TYPED.finditer(text):
        key = _TYPED_KEY.search(text, max(0, m.start() - 80), m.start())
        if key:
            yield ValueMatch(m.start("type"), m.end("type"), m["type"], "setting", key[1],
                             key.start(1))  # fmt: skip


def value_at(text: str, at: int, plain_at: dict[int, ValueMatch]) -> tuple[int, int] | None:
    """The span of the setting value starting at `at`: a plain value, a quoted token (its
    inside), a number, or a token that reads as a setting's value; None otherwise."""
    if at in plain_at:
        return at, plain_at[at].end
    quoted = _QUOTED.match(text, at)
    if quoted:
        group = next(i for i in range(1, 9) if quoted.group(i) is not None)
        inner = quoted.group(group)
        start = quoted.start(group) + len(inner) - len(inner.lstrip())
        if not re.search(r"\w", inner) or re.search(r"\s[-+*/=<>|]\s", inner):
            return None  # punctuation, or an expression ('a + b'), not a value
        return start, start + len(inner.strip())
    number = _SIGNED.match(text, at)
    if number:
        return at, number.end()
    token = _TOKEN.match(text, at)
    word = token.group().rstrip(".:!?") if token else ""
    return (at, at + len(word)) if _setting_word(word) else None


def _setting_word(word: str) -> bool:
    """A word that is a value, not prose: a setting word, a short ALL-CAPS name (`HEAD`),
    a token with digits or code punctuation (`UTF-8`, `/etc/gitweb.conf`, `--mixed`)."""
    if not re.search(r"\w\w", word) or word[0] == "<" or ":" in word or word[-1] == "=":
        return False  # a placeholder ('<UUID>', 'n.n.n.n'), a path of names ('APT::Get')
    if word.lower() in _SETTING_WORDS:
        return True
    if word.isupper() and (len(word) <= 5 or any(ch.isdigit() or ch == "_" for ch in word)):
        return True  # 'HEAD', 'UTF-8', 'O_RDONLY'; a long capital word is a man page's
        # placeholder ('ANZAHL', 'ZEICHENKETTE')
    return word[0] in "-$/~%" or any(ch.isdigit() or ch in "_./=" for ch in word[1:])


def _defaults(text: str, plain_at: dict[int, ValueMatch], heads: Heads) -> Iterator[ValueMatch]:
    tails = (("default", _AFTER_DEFAULT), ("default_other", _AFTER_DEFAULT_OTHER),
             ("standard", _AFTER_STANDARD))  # fmt: skip
    for kind, tail in tails:
        for _, end in heads.get(kind, ()):
            m = tail.match(text, end)
            span = value_at(text, m.end(), plain_at) if m else None
            if span:
                of = m.groupdict().get("of")
                label_start = m.start("of") + (of[0] == "`") if of else -1
                yield ValueMatch(*span, text[span[0] : span[1]], "setting",
                                 of.strip("`") if of else None, label_start)  # fmt: skip


def _number_ending(text: str, end: int) -> ValueMatch | None:
    """The number ending at `end` ('-1 by default'), None when none does."""
    start = end
    while start > 0 and (text[start - 1].isdigit() or text[start - 1] in ".,-"):
        start -= 1
    number = _SIGNED.fullmatch(text, start, end)
    if number and free_before(text, start):
        return ValueMatch(start, end, text[start:end], "setting")
    return None


def _key_lines(text: str, plain_at: dict[int, ValueMatch]) -> Iterator[ValueMatch]:
    """The value of each `key: value` line whose value is the whole rest of its line.
    Found from each colon or equals sign: far fewer than the lines."""
    for m in _KEY_SIGN.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        key = _KEY.fullmatch(text, line_start, m.start())
        if not key or key["key"].lower() in _NOT_KEYS:
            continue
        if key["key"].split()[0].lower() in ROLE_WORDS:
            continue
        span = value_at(text, m.end(), plain_at)
        line_end = text.find("\n", m.end())
        line_end = len(text) if line_end == -1 else line_end
        rest = text[span[1] : line_end].strip().strip("`'\"»«“”.,;") if span else "-"
        nested = span and "=" in text[span[0] : span[1]]  # 'Environment=A=b': a listing's
        if span and not rest and not nested and text[m.end() : m.end() + 2] != "//":
            yield ValueMatch(*span, text[span[0] : span[1]], "setting", key["key"],
                             key.start("key"))  # fmt: skip
