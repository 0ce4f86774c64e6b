"""An answer's fact: the sentence, table row or line that states the answer about its
anchor. A short value ('3.11') stands in a third of a manual's pages; only a few of them
say it of the anchor, so removing an answer means deleting those statements, never the
pages that merely share the digits.

Two detectors on purpose: `find_facts` is strict (the statements to delete) and
`remaining_statements` is loose (the answer anywhere near the anchor, or in its section),
so a mutant is only trusted when the loose one finds nothing the strict one missed."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from ragaudit.documents import Document
from ragaudit.mutation.text import find_whole_value

NEAR_CHARACTERS = 200
"""The loose detector: an answer this close to its anchor (or to where its removed
sentence was) still states it."""

FactKind = Literal["sentence", "table_row", "line"]


@dataclass(frozen=True)
class Fact:
    """One statement of the answer: `text` is the document's text[start:end]."""

    doc_id: str
    start: int
    end: int
    text: str
    kind: FactKind
    """`sentence`; `table_row` (a Markdown `|` row, or a CSV, tab or aligned one); `line`
    (a line that is no sentence: a list item, a heading, a `key: value` line)."""


_LIST_MARKER = re.compile(r"[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]+")
_MD_HEADING = re.compile(r"[ \t]{0,3}#{1,6}(?:[ \t]+|$)")
_UNDERLINE = re.compile(r"[ \t]*(?:={3,}|-{3,})[ \t]*")
_CAPS_HEADING = re.compile(r"[ \t]*[A-Z][A-Z0-9_ ,/&()'-]*[A-Z0-9)][ \t]*")
_WIDE_GAP = re.compile(r"(?<=[^\s.!?:;,]) {2,}(?=\S)")
_CELL_COMMA = re.compile(r",(?!\s)(?!(?<=\d,)\d{3}(?!\d))")
_CODE = re.compile(r"(?:[{}]|\};|\*/|[\[\](){}=*][^\s]*;)[ \t]*$")
"""A line of code (a brace, a closing comment, a statement with brackets): a statement
of its own, never part of a wrapped sentence ('char sun_path[108]; /* Pathname */')."""
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*(\s+)")
_TRAILING_WORD = re.compile(r"(\S+)$")
ABBREVIATIONS = frozenset(
    "e.g i.e etc vs cf approx ca no nr vol fig figs p pp ch sec ver v mr mrs ms dr st jr sr "
    "inc ltd co corp dept est min max resp".split()
)
"""Words whose full stop ends no sentence ('e.g. the server')."""


class _Layout:
    """A document's lines and what each is (prose, table row, heading): where a statement
    begins and ends."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]
        # what each line is, worked out once: a paragraph asks it of every line per statement
        self._rows: dict[int, bool] = {}
        self._headings: dict[int, bool] = {}
        self._prose: dict[int, bool] = {}

    def __len__(self) -> int:
        return len(self.starts)

    def line(self, i: int) -> str:
        return self.text[self.starts[i] : self.line_end(i)]

    def line_end(self, i: int) -> int:
        """Where line i ends, before its line break."""
        return self.starts[i + 1] - 1 if i + 1 < len(self.starts) else len(self.text)

    def index(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset) - 1

    def table_row(self, i: int) -> bool:
        """A Markdown `|` row, or a row of a delimited table: as many cell commas or tabs
        (two or more) as the line before or after it, or cells starting at the same
        columns as it (an aligned table; a justified paragraph's wide gaps fall anywhere)."""
        if i not in self._rows:
            self._rows[i] = self._table_row(i)
        return self._rows[i]

    def _table_row(self, i: int) -> bool:
        if self.line(i).lstrip().startswith("|"):
            return True
        mine = _cells(self.line(i))
        neighbours = [j for j in (i - 1, i + 1) if 0 <= j < len(self)]
        return any(_same_table(mine, _cells(self.line(j))) for j in neighbours)

    def heading(self, i: int) -> bool:
        """A Markdown `#` heading, a man page's ALL-CAPS line, a line underlined with
        === or ---, or the underline itself."""
        if i not in self._headings:
            self._headings[i] = self._heading(i)
        return self._headings[i]

    def _heading(self, i: int) -> bool:
        line = self.line(i)
        if _MD_HEADING.match(line) or _UNDERLINE.fullmatch(line):
            return True
        if _CAPS_HEADING.fullmatch(line) and sum(ch.isalpha() for ch in line) >= 2:
            return True
        following = self.line(i + 1) if i + 1 < len(self) else ""
        return bool(line.strip()) and _UNDERLINE.fullmatch(following) is not None

    def prose(self, i: int) -> bool:
        if i not in self._prose:
            line = self.line(i)
            self._prose[i] = (
                bool(line.strip()) and not _CODE.search(line)
                and not self.table_row(i) and not self.heading(i)
            )  # fmt: skip
        return self._prose[i]

    def continues(self, i: int) -> bool:
        """Line i carries on the paragraph of line i-1 (a hard-wrapped sentence)."""
        return self.prose(i - 1) and self.prose(i) and not _LIST_MARKER.match(self.line(i))

    def content_start(self, i: int) -> int:
        """Where line i's words begin: after its indent, list marker or `#` marker."""
        line = self.line(i)
        marker = _LIST_MARKER.match(line) or _MD_HEADING.match(line)
        skip = marker.end() if marker else len(line) - len(line.lstrip())
        return self.starts[i] + skip

    def block(self, offset: int) -> tuple[int, int]:
        """The first and last line of the paragraph, list item or row holding `offset`."""
        first = last = self.index(offset)
        if self.table_row(first):
            return first, last
        while first > 0 and self.continues(first):
            first -= 1
        while last + 1 < len(self) and self.continues(last + 1):
            last += 1
        return first, last

    def statement(self, start: int, end: int) -> tuple[int, int, FactKind, tuple[int, int]]:
        """The sentence, row or line holding text[start:end]: its span, kind and block."""
        first, last = self.block(start)
        begin = self.content_start(first)
        stop = self.line_end(last)
        while stop > begin and self.text[stop - 1].isspace():
            stop -= 1
        if self.table_row(first):
            return begin, stop, "table_row", (first, last)
        s, e = begin, stop
        for match in _SENTENCE_END.finditer(self.text, begin, stop):
            if not self._ends_sentence(match):
                continue
            if match.end() <= start:
                s = match.end()
            elif match.start(1) >= end:
                e = match.start(1)
                break
        whole_line = first == last and (s, e) == (begin, stop)
        ended = self.text[s:e].rstrip("\"')]").endswith((".", "!", "?"))
        kind: FactKind = "line" if whole_line and not ended else "sentence"
        return s, e, kind, (first, last)

    def _ends_sentence(self, match: re.Match) -> bool:
        following = self.text[match.end() : match.end() + 1]
        if following.islower():
            return False
        # the word before the stop, searched from its line's start (a word never spans a
        # line break): from the text's start, a long page cost the square of its length
        line_start = self.text.rfind("\n", 0, match.start()) + 1
        word = _TRAILING_WORD.search(self.text, line_start, match.start())
        token = word.group(1).lstrip("(\"'").lower() if word else ""
        return token not in ABBREVIATIONS and not (len(token) == 1 and token.isalpha())


_LAYOUTS: dict[int, _Layout] = {}
_KEPT_LAYOUTS = 256


def _layout(text: str) -> _Layout:
    """The layout of `text`, reused while the same string is asked about again (mining asks
    find_facts of one document for each of its values); a few hundred kept at most."""
    layout = _LAYOUTS.get(id(text))
    if layout is None or layout.text is not text:
        if len(_LAYOUTS) >= _KEPT_LAYOUTS:
            _LAYOUTS.pop(next(iter(_LAYOUTS)))
        layout = _LAYOUTS[id(text)] = _Layout(text)
    return layout


def _cells(line: str) -> tuple[int, int, frozenset[int]]:
    """How a line is cut into cells: its cell commas (no space after, not in '1,000'), its
    tabs when nothing else pads it (a TSV row; a man page pads with tabs and spaces), and
    the columns where a cell starts after a wide gap (not the spaces after a full stop)."""
    words = line.strip()
    tabs = words.count("\t") if "  " not in words else 0
    columns = frozenset(m.end() for m in _WIDE_GAP.finditer(line.expandtabs(8)))
    return len(_CELL_COMMA.findall(words)), tabs, columns


def _same_table(a: tuple[int, int, frozenset[int]], b: tuple[int, int, frozenset[int]]) -> bool:
    if a[0] == b[0] >= 2 or a[1] == b[1] >= 2:
        return True
    fewer, more = sorted((a[2], b[2]), key=len)
    return len(fewer) >= 2 and fewer <= more


def _occurrences(text: str, value: str) -> Iterator[int]:
    """Every offset where `value` stands as a value of its own."""
    at = find_whole_value(value, text)
    while at != -1:
        yield at
        at = find_whole_value(value, text, at + len(value))


def _words_pattern(phrase: str) -> re.Pattern[str]:
    """`phrase` case-insensitively, any run of spaces or line breaks between its words."""
    words = [re.escape(w) for w in phrase.split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(words), re.IGNORECASE)


def _normal(text: str) -> str:
    return " ".join(text.split())


def find_facts(
    documents: Sequence[Document],
    answer: str,
    anchor: str | None,
    expected_doc_id: str,
    answer_start: int,
) -> list[Fact]:
    """Every statement of `answer` about `anchor` in `documents`, in corpus order.

    The answer's own statement (its sentence, row or line at `answer_start` in the
    expected document) always counts, even when the anchor was named a sentence before
    ('It runs 3.11.'). With an anchor, so does every sentence, row or line of any document
    holding both the answer (as a value of its own) and the anchor (case-insensitively);
    without one, every verbatim copy of the answer's own statement. Nothing else: a page
    that only shares the digits keeps them. [] when the expected document does not state
    the answer at `answer_start`."""
    order = {d.doc_id: i for i, d in enumerate(documents)}
    expected = next((d for d in documents if d.doc_id == expected_doc_id), None)
    if expected is None or find_whole_value(answer, expected.text, answer_start) != answer_start:
        return []
    s, e, kind, _ = _layout(expected.text).statement(answer_start, answer_start + len(answer))
    own = Fact(expected_doc_id, s, e, expected.text[s:e], kind)
    anchored = _words_pattern(anchor) if anchor else None
    found = {own}
    for doc in documents:
        if doc.text.find(answer) == -1:
            continue
        layout = None
        for at in _occurrences(doc.text, answer):
            layout = layout or _layout(doc.text)
            s, e, kind, _ = layout.statement(at, at + len(answer))
            text = doc.text[s:e]
            same = anchored.search(text) if anchored else _normal(text) == _normal(own.text)
            if same:
                found.add(Fact(doc.doc_id, s, e, text, kind))
    return sorted(found, key=lambda f: (order[f.doc_id], f.start))


def removal_spans(text: str, facts: Sequence[Fact]) -> list[tuple[int, int]]:
    """The stretches of `text` to delete so its `facts` go and the rest reads cleanly: a
    sentence with the space between it and its neighbour; a statement that is its whole
    paragraph, row or list item with its line break (and a blank line it would leave
    doubled). Neighbouring facts of one paragraph go as one stretch; no two overlap."""
    layout = _Layout(text)
    runs: list[list[int]] = []  # [start, end, first line, last line]
    for fact in sorted(facts, key=lambda f: f.start):
        _, _, _, (first, last) = layout.statement(fact.start, fact.end)
        previous = runs[-1] if runs else None
        if previous and previous[2] == first and not text[previous[1] : fact.start].strip():
            previous[1] = max(previous[1], fact.end)
        else:
            runs.append([fact.start, fact.end, first, last])
    stretches: list[tuple[int, int]] = []
    for start, end, first, last in runs:
        stretch = _stretch(layout, start, end, first, last)
        if stretches and stretch[0] < stretches[-1][1]:
            stretches[-1] = (stretches[-1][0], max(stretch[1], stretches[-1][1]))
        else:
            stretches.append(stretch)
    return stretches


def _stretch(layout: _Layout, start: int, end: int, first: int, last: int) -> tuple[int, int]:
    text = layout.text
    begin = layout.content_start(first)
    stop = len(text[: layout.line_end(last)].rstrip())
    if start <= begin and end >= stop:  # its whole block: the lines go
        s, e = layout.starts[first], layout.line_end(last)
        if e < len(text):
            e += 1
            blank_before = s == 0 or text[:s].endswith("\n\n")
            after = re.match(r"[ \t]*\n", text[e:])
            if blank_before and after:
                e += after.end()
        elif s > 0:
            s -= 1
        return s, e
    if end < stop:  # a sentence with more after it: the space before the next goes
        following = len(text[end:]) - len(text[end:].lstrip())
        return start, end + following
    preceding = len(text[:start]) - len(text[:start].rstrip())
    return start - preceding, end


def sections(text: str) -> list[int]:
    """Where each section of `text` begins: offset 0 and every heading line (a `#`
    heading, an ALL-CAPS line, a line underlined with === or ---)."""
    layout = _Layout(text)
    starts = [0]
    for i in range(len(layout)):
        if layout.heading(i) and not _UNDERLINE.fullmatch(layout.line(i)):
            starts.append(layout.starts[i])
    return sorted(set(starts))


def _section(starts: list[int], offset: int) -> int:
    return bisect.bisect_right(starts, offset) - 1


def remaining_statements(
    documents: Sequence[Document],
    answer: str,
    anchor: str | None,
    *,
    near: Sequence[tuple[str, int]] = (),
    sentences: Sequence[str] = (),
) -> list[str]:
    """What still states `answer` in `documents`, one line per document; [] when nothing.

    Looser than `find_facts`, so it catches what the strict detector missed. With an
    anchor: the answer (as a value of its own) within `NEAR_CHARACTERS` of the anchor
    (case-insensitive) or in the same section. Without one: the answer within
    `NEAR_CHARACTERS` of, or in the section of, each (doc_id, offset) in `near` (where a
    removed sentence was), and any of `sentences` still written in any document."""
    left: list[str] = []
    if anchor:
        anchored = _words_pattern(anchor)
        for doc in documents:
            if doc.text.find(answer) == -1:
                continue
            places = [(m.start(), m.end()) for m in anchored.finditer(doc.text)]
            where = _near(doc.text, answer, places)
            if where:
                left.append(f"{doc.doc_id}: {answer!r} {where} {anchor!r}")
    by_id = {d.doc_id: d for d in documents}
    for doc_id, offset in near:
        doc = by_id.get(doc_id)
        where = _near(doc.text, answer, [(offset, offset)]) if doc else ""
        if where:
            left.append(f"{doc_id}: {answer!r} {where} where the removed sentence was")
    patterns = [(s, _words_pattern(s)) for s in dict.fromkeys(sentences) if s.split()]
    for doc in documents:
        for sentence, pattern in patterns:
            if pattern.search(doc.text):
                left.append(f"{doc.doc_id}: the removed sentence {sentence!r}")
                break
    return left


def _near(text: str, answer: str, places: Sequence[tuple[int, int]]) -> str:
    """How the first occurrence of `answer` near any of `places` is near it, or ''."""
    if not places:
        return ""
    starts = sections(text)
    for at in _occurrences(text, answer):
        end = at + len(answer)
        gap = min(max(0, s - end, at - e) for s, e in places)
        if gap <= NEAR_CHARACTERS:
            return f"{gap} characters from"
        if any(_section(starts, s) == _section(starts, at) for s, _ in places):
            return "in the same section as"
    return ""
