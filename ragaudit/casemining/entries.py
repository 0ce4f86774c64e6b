"""A value's entry in an option or setting list, read as a whole: an anchor defined in
more than one entry of its page, or an entry that gives two defaults, leaves which value a
question means to a section or a part its phrasings do not name."""

from __future__ import annotations

import re

from ragaudit.casemining.candidates import MinedValue
from ragaudit.values.shapes import find_values
from ragaudit.values.statements import indent


def defined_again(text: str, anchor: str) -> bool:
    """The anchor opens a definition line more than once in its document ('Mode=' in five
    sections of systemd.netdev, '-mabi=' per target in as, 'iocharset=' per filesystem in
    mount): which one a question means needs its section, which neither phrasing names (4
    of 15 invalid cases in the English and German hand readings)."""
    opens = _definition_lines(anchor)
    return opens is not None and len(opens.findall(text)) > 1


_DEFAULT_WORD = re.compile(
    r"(?i)(?<!\w)(?:defaults?|Standardwert\w*|standardmäßig|Vorgabe\w*|voreingestellt|"
    r"défaut|predeterminad\w*|por\s+defecto)(?!\w)"
)


_SWITCH_WORDS = frozenset(
    "yes no true false on off enabled disabled ja nein wahr falsch an aus aktiviert "
    "deaktiviert oui non vrai faux activé désactivé sí verdadero falso".split()
)


def one_of_defaults(text: str, value: MinedValue) -> bool:
    """The value's entry in an option list gives two defaults ('-B[<n>][/<m>] ... the
    number m ... (defaults to 60%) ... the number n ... (defaults to 50%)'): a question
    for the option's default fits either (read out of sample twice, in git-show and
    diff-options)."""
    entry = _entry(text, value.anchor, value.start)
    if entry is None:
        return False
    given = set()
    for word in _DEFAULT_WORD.finditer(entry):
        # read from the word on: a bare word is a value only after its label ('default is')
        found = find_values(entry[word.start() : word.end() + 30])
        if found:
            given.add(re.sub(r"\W", "", found[0].text.lower()))
    if given <= _SWITCH_WORDS:
        return False  # 'standardmäßig ja' and 'ist standardmäßig aktiviert' say one thing
    # '7200' and '7200 seconds' are one value written twice
    return any(not (a.startswith(b) or b.startswith(a)) for a in given for b in given)


def _entry(text: str, anchor: str, at: int) -> str | None:
    """The option list entry holding `at`: from the anchor's term line before it to the
    next line set no deeper than that one; None when no line before it is the anchor's."""
    name = _term_name(anchor)
    if name is None:
        return None
    # the anchor first on its line, or after the entry's other spellings ('-B[<n>], --break-…')
    opens = re.compile(rf"(?m)^[ \t]*(?:-[^\n]*?[\s,])?-{{0,2}}{re.escape(name)}(?=[=:\s\[<,]|$)")
    starts = [m.start() for m in opens.finditer(text, 0, at)]
    if not starts:
        return None
    lines = text[starts[-1] :].split("\n")
    if lines[0].rstrip().endswith("::"):
        return "\n".join(_definition_body(lines))
    depth = indent(lines[0])
    body = [lines[0]]
    for line in lines[1:]:
        if line.strip() and indent(line) <= depth:
            break
        body.append(line)
    return "\n".join(body)


def _definition_body(lines: list[str]) -> list[str]:
    """An AsciiDoc definition list's entry (`--break-rewrites[=…]::` and the paragraphs
    joined to it by `+`, set at the margin): up to the next term after its text, or a
    heading's underline."""
    body, started = [lines[0]], False
    for line in lines[1:]:
        term = line.rstrip().endswith("::")
        if (term and started) or re.fullmatch(r"[-=~^]{3,}", line.strip()):
            break
        started = started or bool(line.strip() and not term)
        body.append(line)
    return body


def _definition_lines(anchor: str) -> re.Pattern | None:
    """Lines opening with the anchor as a term ('--depth=<n>', 'Mode=', '-mabi=')."""
    name = _term_name(anchor)
    if name is None:
        return None
    return re.compile(rf"(?m)^[ \t]*-{{0,2}}{re.escape(name)}(?=[=:\s\[<,]|$)")


def _term_name(anchor: str) -> str | None:
    """The anchor as a term line writes it, its dashes and '=' aside ('-mabi' is anchored
    as 'mabi' too); None for a name of one letter, which opens too many lines."""
    name = anchor.strip().lstrip("-").rstrip("=:")
    return name if len(name) >= 2 else None
