"""Values known by a label beside them, in English, German, French and Spanish:
- `setting`: a default, a `key: value` line, a typed setting (settings.py);
- `name`: a name after a role phrase ('maintained by Ada Lovelace', 'Geschrieben von Jim
  Meyering', 'Autor: X', 'écrit par', 'escrito por'), labelled with the role phrase;
- `table_cell`: a Markdown table's cell, labelled with its column's header."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from ragaudit.values.heads import Heads
from ragaudit.values.plain import ValueMatch
from ragaudit.values.settings import settings

_SPACE = r"[ \t\u00a0\u202f]"
_ROLE_TAIL = re.compile(rf"(?:[ \t\u00a0]+(?:by|von|par|por)|{_SPACE}*:)[ \t\u00a0]+")
"""After a role word: 'by', 'von', 'par', 'por' or a colon, the name next ('written by',
'Geschrieben von', 'écrit par', 'escrito por', 'Author:', 'Autor:', 'Auteur :')."""
_NAME_WORD = re.compile(r"[ \t\u00a0]?([^\W\d_][\w'’\-]*\.?)")
_PARTICLES = frozenset("von van der den de da di du la le del dos y bin ibn".split())
_LEADING_ARTICLES = frozenset("The Der Die Das Le La Les El Los Las".split())
_TABLE_HEAD = re.compile(
    r"\n[ \t]*\|[^\n]*\n[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*(?=\n|$)"
)
"""A Markdown table's header line and the rule under it (found from the line break before)."""


def labelled_values(text: str, plain: Sequence[ValueMatch], heads: Heads) -> list[ValueMatch]:
    """The settings, names and table cells of `text`; `plain` are its plain values
    (plain.plain_values), which a setting's value may be; `heads` its heads."""
    return [*settings(text, plain, heads), *_names(text, heads), *_table_cells(text)]


def _names(text: str, heads: Heads) -> Iterator[ValueMatch]:
    for role_start, role_end in heads.get("role", ()):
        m = _ROLE_TAIL.match(text, role_end)
        if not m:
            continue
        words: list[re.Match] = []
        at = m.end()
        while len(words) < 5:
            word = _NAME_WORD.match(text, at)
            if not word:
                break
            token = word[1]
            if not token[0].isupper() and not (token in _PARTICLES and words):
                break
            if not words and token in _LEADING_ARTICLES:
                at = word.end()
                continue
            words.append(word)
            at = word.end()
        while words and words[-1][1] in _PARTICLES:
            words.pop()
        if len(words) >= 2 and not words[0][1].isupper():  # a name, not 'FIXME' or 'SVN'
            start, end = words[0].start(1), words[-1].end(1)
            if text[end - 1] == "." and not re.fullmatch(r"\w\.", words[-1][1]):
                end -= 1
            role = text[role_start : m.end()].strip(" \t\u00a0:")
            yield ValueMatch(start, end, text[start:end], "name", role, role_start)


def _table_cells(text: str) -> Iterator[ValueMatch]:
    """Each body cell of a Markdown table (past its first column, which names the row),
    labelled with its column's header; cells of more than six words are prose, not values."""
    for table in _TABLE_HEAD.finditer("\n" + text):
        head_start = table.start()  # the header line, in text's offsets ("\n" + text)
        head_end = text.find("\n", head_start)
        header = _cells(text[head_start:head_end], head_start)
        at = text.find("\n", head_end + 1) + 1  # past the rule
        while 0 < at < len(text) and text[at:].lstrip(" \t").startswith("|"):
            line_end = text.find("\n", at)
            line_end = len(text) if line_end == -1 else line_end
            for column, (start, end) in enumerate(_cells(text[at:line_end], at)):
                cell = text[start:end]
                if column == 0 or column >= len(header) or not cell or len(cell.split()) > 6:
                    continue
                h_start, h_end = header[column]
                if h_end > h_start:
                    yield ValueMatch(start, end, cell, "table_cell", text[h_start:h_end], h_start)
            at = line_end + 1


def _cells(line: str, offset: int) -> list[tuple[int, int]]:
    """The stripped spans of a `|` row's cells, in text offsets."""
    bars = [i for i, ch in enumerate(line) if ch == "|" and (i == 0 or line[i - 1] != "\\")]
    spans = []
    for left, right in zip(bars, bars[1:] + [len(line)], strict=False):
        cell = line[left + 1 : right]
        if right == len(line) and not cell.strip():
            break
        start = left + 1 + len(cell) - len(cell.lstrip())
        spans.append((offset + start, offset + start + len(cell.strip())))
    return spans
