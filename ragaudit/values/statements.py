"""Whether a value found in a document is stated there as a fact, and what section
it stands in: a reader of facts (case mining) leaves out values in code (fenced, listing
and literal blocks, indented listings, lines of code, shell prompts, a `key: value` line
among others like it, an inline code span that says more than the value), in a synopsis,
examples, see-also, copyright, bug-reporting, translation or colophon section, in a
copyright line or a man page's header or footer line, in a heading or a definition list's
term, a section number ('2.3.1 Options'), a value inside a URL, an e-mail or a path, and a
glob ('*.c').

Layouts read: Markdown, AsciiDoc (Git's manual) and man pages rendered as text (ALL-CAPS
section headings at the margin, options as terms above their deeper-set descriptions)."""

from __future__ import annotations

import re
from functools import cached_property

from ragaudit.values.plain import ValueMatch

_SKIPPED_SECTIONS = frozenset(
    "SYNOPSIS ÜBERSICHT SYNTAX SINOPSIS RESUMEN EXAMPLE EXAMPLES BEISPIEL BEISPIELE EXEMPLE "
    "EXEMPLES EJEMPLO EJEMPLOS SEE-ALSO SIEHE-AUCH VOIR-AUSSI VÉASE-TAMBIÉN VEA-TAMBIÉN "
    "COPYRIGHT LICENSE LICENCE LIZENZ ÜBERSETZUNG TRADUCTION TRADUCCIÓN COLOPHON KOLOPHON "
    "REPORTING-BUGS FEHLER-MELDEN SIGNALER-DES-BOGUES INFORMAR-DE-ERRORES GIT".split()
)
"""Sections whose values are commands, references or boilerplate, not facts (by heading,
spaces as hyphens; 'GIT' is git-doc's 'Part of the git(1) suite')."""
_NAME_SECTIONS = frozenset("NAME BEZEICHNUNG NOM NOMBRE".split())
_CAPS_HEADING = re.compile(
    r"\n([A-ZÄÖÜÉÈÀÇÑ][A-ZÄÖÜÉÈÀÇÑ0-9 ,/&()'’\-]*[A-ZÄÖÜÉÈÀÇÑ0-9)])[ \t]*(?=\n)"
)
_MD_HEADING = re.compile(r"\n#{1,6}[ \t]+([^\n]+)")
_UNDERLINE = re.compile(r"\n(?:={3,}|-{3,}|~{3,}|\^{3,})[ \t]*(?=\n|$)")
_DELIMITER = re.compile(r"\n[ \t]*(```|~~~|-{4,}|\.{4,})[^\n]*")
"""A fenced block's fence, or an AsciiDoc listing (----) or literal (....) block's."""
_LINE_JUNK = re.compile(
    r"(?i:copyright)|©|\([Cc]\)[ \t]*\d|[;{}][ \t]*$"
    r"|^[ \t]*(?:[$%>][ \t]|#[ \t]*(?:include|define)\b)"
    r"|\w\(\d\w*\)[ \t]*$|^[ \t]*\d+[:|][ \t]"
)
"""A line whose values are no facts: a copyright line, a line of code, a shell prompt, a
man page's header or footer (it ends 'SLEEP(1)'), a numbered listing's line."""
_KEY_LINE = re.compile(r"[ \t]*[\w.\-]+[ \t]*[:=]")
_PATTERN_SIGNS = frozenset("*|[]<>…")
"""What a pattern or a placeholder holds and a stated value does not ('*.c', 'a|b',
'[Rechner:]Port', '<UUID>', '/dev/disk/by-…')."""
_GROUP = re.compile(r"[ \t]*\[[\w .\-]+\][ \t]*")
"""A configuration file's group line ('[Install]'): the `key=value` lines under it are
a listing."""
_ATTRIBUTE = re.compile(r"\[(?:verse|source|literal|listing)\b[^\]\n]*\]")
"""An AsciiDoc attribute line that makes the paragraph under it code."""
_SEPARATOR = re.compile(r"={4,}|\+")
"""An example block's fence or a list continuation: a paragraph starts after it."""
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*•+]|\d{1,3}[.)]|[a-z][.)])[ \t]")
_SECTION_NUMBER = re.compile(
    r"[ \t#]*|.*(?<!\w)(?i:section|chapter|kapitel|abschnitt|chapitre|capítulo|sección|§)\s*"
)
"""What stands before a section number: nothing on its line, or the word for a section."""
_URLISH = re.compile(r"://|@|^/|^www\.|^\w:\\")


class Page:
    """One document's layout as a reader of facts sees it: its headings, its title, its
    code blocks and the sections that state no facts."""

    def __init__(self, text: str) -> None:
        self.text = text

    @cached_property
    def blocks(self) -> list[tuple[int, int]]:
        """The (start, end) of each code block: fenced (```, ~~~), or an AsciiDoc listing
        (----) or literal (....) block."""
        spans = []
        opened: tuple[str, int] | None = None
        for m in _DELIMITER.finditer("\n" + self.text):
            fence, at = m[1], m.start()  # the fence line's start in the text
            if opened and fence == opened[0]:
                spans.append((opened[1], m.end() - 1))
                opened = None
            elif opened is None and self._opens_block(at, fence):
                opened = (fence, at)
        if opened:
            spans.append((opened[1], len(self.text)))
        return spans

    def _opens_block(self, at: int, fence: str) -> bool:
        """A ``` fence opens a block; a run of tildes, dashes or dots does only after a
        blank line, an attribute line ('[source,shell]'), a list continuation (+) or an
        open block's fence (--), else it underlines a heading."""
        if fence[0] == "`":
            return True
        before = self.text[: max(0, at - 1)].rsplit("\n", 1)[-1].strip()
        return not before or before.startswith("[") or before in ("+", "--")

    @cached_property
    def headings(self) -> list[tuple[int, int, str]]:
        """(line start, line end, title) of each heading outside code blocks: an ALL-CAPS
        line at the margin, a Markdown `#` line, a line underlined with === --- ~~~ or ^^^."""
        text, found = "\n" + self.text, []
        for m in _CAPS_HEADING.finditer(text):
            if sum(ch.isalpha() for ch in m[1]) >= 2 and not re.search(r"\(\d", m[1]):
                found.append((m.start(1) - 1, m.end(1) - 1, m[1]))
        for m in _MD_HEADING.finditer(text):
            found.append((m.start(), m.end() - 1, m[1].strip().strip("#").strip()))
        for m in _UNDERLINE.finditer(text):
            line_start = text.rfind("\n", 0, m.start()) + 1
            title = text[line_start : m.start()].strip()
            if _titled(title) and abs(len(title) - len(m.group().strip())) <= 2:
                found.append((line_start - 1, m.start() - 1, title))
        blocks = self.blocks
        return sorted(h for h in set(found) if not any(s <= h[0] < e for s, e in blocks))

    @cached_property
    def skipped(self) -> list[tuple[int, int]]:
        """The stretches whose values are not facts: code blocks and skipped sections."""
        spans = list(self.blocks)
        heads = self.headings
        for i, (start, _, title) in enumerate(heads):
            if re.sub(r"\s+", "-", title.strip().upper()) in _SKIPPED_SECTIONS:
                stop = heads[i + 1][0] if i + 1 < len(heads) else len(self.text)
                spans.append((start, stop))
        return spans

    @cached_property
    def title(self) -> str | None:
        """A man page's name (its NAME line's first name), else the first heading without
        its '(1)', verbatim in the text."""
        heads = self.headings
        for i, (_, end, title) in enumerate(heads):
            if title.strip().upper() in _NAME_SECTIONS:
                stop = heads[i + 1][0] if i + 1 < len(heads) else len(self.text)
                body = self.text[end:stop].strip()
                name = re.match(r"[\w.\-+]+", body)
                return name.group() if name else None
        if heads and len(heads[0][2]) <= 60:
            return re.sub(r"\(\d\w*\)$", "", heads[0][2]).strip("#*` ") or None
        return None

    def heading_at(self, offset: int) -> str | None:
        """The heading of the section holding `offset`."""
        above = [title for start, _, title in self.headings if start <= offset]
        return above[-1] if above else None

    def line(self, offset: int) -> tuple[int, int]:
        """(start, end) of the line holding `offset`, its line break left out."""
        start = self.text.rfind("\n", 0, offset) + 1
        end = self.text.find("\n", offset)
        return start, len(self.text) if end == -1 else end

    def junk(self, value: ValueMatch) -> bool:
        """`value` is no stated fact (module docstring)."""
        if any(s <= value.start < e for s, e in self.skipped):
            return True
        if any(s <= value.start < e for s, e, _ in self.headings):
            return True
        start, end = self.line(value.start)
        line = self.text[start:end]
        if "\n" in value.text or _PATTERN_SIGNS.intersection(value.text):
            return True  # a glob, alternatives, a placeholder: a pattern, not a value
        if _LINE_JUNK.search(line):
            return True
        if line.rstrip().endswith("::"):
            return True  # a definition list's term: its syntax, not a fact
        before = self.text[start : value.start]
        if value.kind == "version" and _SECTION_NUMBER.fullmatch(before):
            return True
        token_start = max(self.text.rfind(" ", start, value.start), start - 1) + 1
        token = self.text[token_start : value.end + 10].split(maxsplit=1)
        if token and _URLISH.search(token[0]):
            return True
        if value.kind == "setting" and _KEY_LINE.match(line) and self._among_key_lines(start, end):
            return True  # a line of a configuration listing, not a statement
        return self._in_code_span(before, value) or self._literal(start)

    def _among_key_lines(self, start: int, end: int) -> bool:
        above = self.text[: max(0, start - 1)].rsplit("\n", 1)[-1]
        below = self.text[end + 1 :].split("\n", 1)[0]
        return bool(_KEY_LINE.match(above) or _KEY_LINE.match(below) or _GROUP.fullmatch(above))

    def _literal(self, line_start: int) -> bool:
        """In a paragraph shown as code: one under an attribute line ('[verse]'), or one
        set deeper than the text above it after a blank line (an indented listing, 'like:'
        then '\tprotocol=https'), unless that text is its term or it is a list item."""
        first = line_start
        for _ in range(60):  # up to the paragraph's first line
            if first == 0:
                return False
            above_start = self.text.rfind("\n", 0, first - 1) + 1
            above = self.text[above_start : first - 1].strip()
            if not above or _SEPARATOR.fullmatch(above):
                break
            if _ATTRIBUTE.fullmatch(above):
                return True
            first = above_start
        paragraph = self.text[first : self.text.find("\n", first)]
        at = first
        while at > 0:  # the last text line above the blank
            at = self.text.rfind("\n", 0, at - 1) + 1
            above = self.text[at : self.text.find("\n", at)]
            if above.strip() and not _SEPARATOR.fullmatch(above.strip()):
                deeper = indent(paragraph) > indent(above)
                listed = _LIST_ITEM.match(paragraph)
                termed = above.rstrip().endswith("::") or term_like(above)
                return deeper and not listed and not termed
        return False

    def _in_code_span(self, before: str, value: ValueMatch) -> bool:
        """Inside a `code span` that holds more than the value ('`git log -5`')."""
        if before.count("`") % 2 == 0:
            return False
        opened = before.rfind("`")
        closing = self.text.find("`", value.end)
        inner = before[opened + 1 :] + self.text[value.start : max(closing, value.end)]
        return inner.strip() != value.text


def _titled(line: str) -> bool:
    """A line an underline makes a heading: words, no sentence ('which means it.' is the
    line above a listing block's fence, not a title)."""
    return (
        sum(ch.isalpha() for ch in line) >= 2
        and not line.startswith("[")
        and (
            not line.endswith((".", ",", ";", ":", ")"))
            or re.search(r"\(\d\w*\)$", line) is not None
        )
    )


def indent(line: str) -> int:
    """How deep a line is set, tabs as 8 columns."""
    return len(line.expandtabs(8)) - len(line.expandtabs(8).lstrip())


def term_like(line: str) -> bool:
    """An option list's term: short, an option ('-n, --lines=N'), or one name with its
    argument ('Timeout=', 'port (integer)', 'name <value>'), no sentence."""
    words = line.strip()
    return (
        len(words) <= 60
        and not words.endswith((".", ",", ";"))
        and bool(re.match(r"[-+]{1,2}\w|\w*[._=:/]\S*$|[A-Za-z_][\w.\-]*(?:=|\s*[(<\[])", words))
    )
