"""A fact mined from one document, without a model: a value a question can ask for
(values.find_values) and the anchor it belongs to, both verbatim in the document.

The anchor is, by preference: the value's own label (a setting's name: `port: 5432`,
'The default of core.abbrev is 7'; a table row's first cell); an option or setting name
written before the value in its sentence (`--depth`, `core.abbrev`, `PGPORT`); the term a
definition list or a man page's option list gives the value's paragraph (`--abbrev=<n>::`,
`-n, --lines=N`); the subject of its sentence ('The cache size is 5 MB' -> 'cache size');
the document's title (a man page's NAME line, a manual's first heading). An anchor never
starts with an article: it is put into phrasings and near-duplicates as words of their own,
and 'The server' became 'The The server module' when it did.

Left out as nothing a question should ask: a value not stated as a fact (in code, in a
synopsis or examples section, in a copyright line: values.statements)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ragaudit.documents import Document
from ragaudit.values.shapes import ValueMatch, find_values
from ragaudit.values.statements import Page, indent, term_like


@dataclass(frozen=True)
class Candidate:
    """A fact a case could be made of, mined from one document."""

    doc_id: str
    start: int
    """Where the answer starts in the document's text."""
    end: int
    answer: str
    """Verbatim: the document's text[start:end]."""
    anchor: str
    """What the answer is of: a setting or option name, a heading or a subject noun
    phrase, verbatim in the document and never starting with an article."""
    value_kind: str
    """One of values.shapes.KINDS."""
    sentence: str
    """The fact's statement (its sentence, table row or line, mutation.facts.find_facts)."""
    sentence_start: int
    heading: str | None
    """The heading of the section holding the answer; None before any heading."""
    answer_docs: int
    """How many documents hold the answer string as a value of its own (source included)."""
    pair_docs: tuple[str, ...]
    """The documents stating the answer of the anchor (find_facts), the source first."""
    candidate_id: str
    """Stable: `doc_id#start`."""
    label: str | None = None
    """What the document writes beside the value to say what it is: a column's header, a
    role phrase ('written by'), a setting's name; None when nothing does."""


@dataclass(frozen=True)
class MinedValue:
    """A value of one document with its anchor, before the corpus is counted (mine.py)."""

    doc_id: str
    start: int
    end: int
    answer: str
    kind: str
    anchor: str
    anchor_rank: int
    """How the anchor was found, best first: 0 the value's label, 1 a name before it in
    its sentence, 2 its paragraph's term, 3 its sentence's subject, 4 the title."""
    label: str | None
    heading: str | None


_SENTENCE_CUT = re.compile(
    r"\n[ \t]*\n|[.!?:][\"')\]]*\s+(?=[\"'`(]?[^\W\d_])|\n[ \t]*(?:[-*•]|\d+[.)])[ \t]+|::\s"
)
"""Where a sentence starts: after a blank line, a sentence's end, a list item's mark."""
_CODE_NAME = re.compile(
    r"(?<![^\s(\[`'\"„»«])(?:--?[A-Za-z][\w\-]*|\$[A-Za-z_]\w*|[A-Za-z_][\w\-]*(?:\.[A-Za-z_<*][\w\-<>*]*)+"
    r"|[A-Za-z][A-Za-z0-9]*_[\w]+|[A-Z][A-Z0-9]*_[A-Z0-9_]+)"
)
"""An option or setting name: `--depth`, `-n`, `$HOME`, `core.abbrev`, `max_connections`."""
_ELLIPSIS = re.compile(r"(?i:und|oder|bzw\.)\s$")
"""Before '-gruppen' in 'Systembenutzer und -gruppen': German's dropped word, no option."""
_HYPHENATED = re.compile(r"[^\W\d_][\u2010\u00ad-][ \t]*\n[ \t]*$")
"""A line ending in a word's first part and a hyphen: the next line opens with its rest."""
_COMPOUND_TAIL = re.compile(r"[«“]-[^\W\d_]")
"""'-Puffer' of '»intro«-Puffer': a German compound's second half after a closing quote,
no option."""
_TERM_NAME = re.compile(r"--[A-Za-z0-9][\w\-]*|-[A-Za-z0-9?]\b|[A-Za-z_][\w\-.]*\w|[A-Za-z]")
_WORD = re.compile(r"[^\W\d_][\w'’\-]*")
_ARTICLES = frozenset(
    "the a an this that these those its each every der die das den dem des ein eine einen "
    "einem einer dieser diese dieses jeder jede le la les l un une ce cet cette ces el los "
    "las lo una este esta estos estas".split()
)
_STOPS = frozenset(
    "is are was were be been has have had can could will would shall should may might must "
    "does do did uses use sets set defaults default takes gives returns specifies controls "
    "determines contains ist sind war waren wird werden hat haben kann können muss müssen "
    "soll sollte darf gibt legt enthält bestimmt beträgt est sont était sera a ont peut "
    "peuvent doit fait vaut contient définit indique es son era será ha han puede pueden "
    "debe tiene define indica contiene and or und oder et ou y o of in on at for by to with "
    "from von im am auf für mit bei zu de du des en dans sur pour par avec del en para por "
    "con which that when if wenn falls si cuando "
    # verbs that state a value of their subject ('The proxy waits 30 seconds')
    "waits keeps holds stores lasts expires retries runs listens accepts allows limits needs "
    "requires supports reads writes sends starts stops caches lists shows prints counts "
    "wartet hält speichert dauert läuft akzeptiert erlaubt begrenzt benötigt unterstützt "
    "liest schreibt sendet startet zeigt verwendet nutzt umfasst liegt attend garde "
    "conserve dure expire accepte permet limite nécessite utilise lit écrit envoie affiche "
    "espera guarda conserva dura expira acepta permite limita necesita usa utiliza lee "
    "escribe envía muestra".split()
)
"""Words a sentence's subject stops before: verbs, conjunctions and prepositions."""
_DEFINITE = frozenset("The Der Die Das Le La Les El Los Las".split())
"""A sentence's subject is read only after a definite article: without one, a sentence's
first words are as often an adverb or a clause ('Since we moved', 'Kurze Zeilen werden')."""
_NOT_SUBJECTS = frozenset(
    "since so now then further furthermore moreover however also thus therefore what which "
    "who how why when where if because although though while after before once as in on "
    "for with without at into instead otherwise here there it we you they i he she "
    "da weil wenn dann nun jedoch außerdem damit dazu hier dort auch wie was wo bei mit "
    "nach vor für ohne falls sonst es wir ihr sie man si quand alors donc puis ensuite ainsi "
    "cependant comme lorsque pour avec dans sans ici il elle nous vous ils cuando entonces "
    "luego así como para con sin aquí él ella nosotros ellos".split()
)
"""Words that make a sentence's opening no subject: conjunctions, adverbs, pronouns."""
_NOT_ANCHORS = frozenset(
    "it its this that they them their he she his her we our you your i my there here one "
    "default value values option options setting wert "
    "werte standardwert vorgabe voreinstellung option optionen es sie er dies il elle ils "
    "ce ceci cela valeur valeurs défaut ello esto valor valores defecto número number zahl "
    "nombre man sein seine ihr ihre wir sie du son sa ses leur nous vous on su sus "
    "nosotros usted".split()
)
"""Words that name nothing a question could ask about: pronouns, 'the default', 'value'."""


def document_values(doc: Document) -> list[MinedValue]:
    """The values of one document that a question can ask for, each with its anchor, in
    text order (module docstring)."""
    page = Page(doc.text)
    anchors = _Anchors(page)
    found = []
    for value in find_values(doc.text):
        if page.junk(value):
            continue
        anchored = anchors.anchor(value)
        if anchored:
            anchor, rank = anchored
            heading = page.heading_at(value.start)
            found.append(MinedValue(doc.doc_id, value.start, value.end, value.text, value.kind,
                                    anchor, rank, value.label, heading))  # fmt: skip
    return found


class _Anchors:
    """Where a document's values find their anchors (module docstring)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.text = page.text
        self.title = page.title
        self.line = page.line

    def anchor(self, value: ValueMatch) -> tuple[str, int] | None:
        """(the value's anchor, how it was found), None when nothing names what it is of."""
        sentence_start = self._sentence_start(value.start)
        names = self._names_before(sentence_start, value.start)
        if len({n.rstrip("=") for n in names if n.startswith("-")}) > 1 and names[-1][0] == "-":
            # '--threshold= kann auch mit --offline= verwandt werden und sein Vorgabewert ist
            # 100': which option the value is of is the grammar's
            return None
        found = [
            (self._label_anchor(value), 0),
            (names[-1] if names else None, 1),
            (self._term(value.start), 2),
            (self._subject(sentence_start, value.start), 3),
            (self.title, 4),
        ]
        for anchor, rank in found:
            anchor = _trimmed(anchor)
            if anchor and value.text not in anchor and anchor not in value.text:
                return anchor, rank
        return None

    def _label_anchor(self, value: ValueMatch) -> str | None:
        if value.kind == "table_cell":
            start, _ = self.line(value.start)
            cell = re.match(r"[ \t]*\|[ \t]*([^|\n]*?)[ \t]*\|", self.text[start : value.start])
            return cell[1] if cell else None
        if value.kind != "setting" or not value.label:
            return None
        at = self.text.find(value.label, self.line(value.start)[0], value.start)
        if at >= 0 and _HYPHENATED.search(self.text, max(0, at - 80), at):
            return None  # 'fault' of 'De‐\n   fault: 10Mbit': a word groff broke at a line end
        return value.label

    def _sentence_start(self, offset: int) -> int:
        """Where the sentence holding `offset` starts: after the last sentence end, blank
        line or list item before it in its paragraph (a cheap cut: the statement recorded
        is mutation.facts' own)."""
        window = max(0, offset - 400)
        head = self.text[window:offset]
        cut = 0
        for m in _SENTENCE_CUT.finditer(head):
            cut = m.end()
        return window + cut

    def _names_before(self, sentence_start: int, offset: int) -> list[str]:
        """The option and setting names written before the value in its sentence."""
        return [
            m.group()
            for m in _CODE_NAME.finditer(self.text, sentence_start, offset)
            if not all(len(p) <= 2 for p in m.group().split("."))  # 'e.g', 'z.B'
            and not _ELLIPSIS.search(self.text, max(0, m.start() - 6), m.start())
            and not _COMPOUND_TAIL.match(self.text, max(0, m.start() - 1))
        ]

    def _term(self, offset: int) -> str | None:
        """The term heading the value's paragraph in a definition list (`term::`) or a man
        page's option list (an option line less indented than its description)."""
        start, end = self.line(offset)
        depth = indent(self.text[start:end])
        passed_blank = False
        for _ in range(40):
            if start == 0:
                return None
            start = self.text.rfind("\n", 0, start - 1) + 1
            line = self.text[start : self.text.find("\n", start)]
            if not line.strip():
                passed_blank = True
                continue
            if line.rstrip().endswith("::"):
                return None if passed_blank and depth == 0 else _term_name(line)
            if indent(line) < depth:
                return _term_name(line) if term_like(line) else None
            if depth == 0 and passed_blank:
                return None
        return None

    def _subject(self, sentence_start: int, offset: int) -> str | None:
        """The words opening the value's sentence up to its verb ('The cache size is')."""
        words = []
        for m in _WORD.finditer(self.text, sentence_start, offset):
            if m.group().lower() in _STOPS:
                break
            between = self.text[words[-1].end() if words else sentence_start : m.start()]
            if len(words) >= 4 or (words and not re.fullmatch(r"[ \t]+", between)):
                return None
            words.append(m)
        else:
            return None
        first = words[0].group() if words else ""
        if not (first in _DEFINITE or first[:2] in ("L'", "L’")) or len(words) < 2 - (
            first[:1] == "L"
        ):
            return None  # only 'The ...', 'Der ...', 'Le ...', 'El ...' reads as a subject
        if words[-1].group().lower() in _ARTICLES:
            return None  # cut after 'the'
        if any(w.group().lower() in _NOT_SUBJECTS for w in words):
            return None  # 'The way we ...'
        return self.text[words[0].start() : words[-1].end()]


def _term_name(line: str) -> str | None:
    """The term's name: a quoted command ('git reset'), else its first long option, else
    its first option or name."""
    words = line.strip().removesuffix("::").strip()
    quoted = re.match(r"['`]([A-Za-z][\w\- ]{1,38})['`]", words)
    if quoted:
        return quoted[1]
    words = words.strip("`'* ")
    long = re.search(r"--[A-Za-z0-9][\w\-]*", words)
    first = long or _TERM_NAME.search(words)
    if not first or first.group().startswith("<"):
        return None
    return first.group()


def _trimmed(anchor: str | None) -> str | None:
    """The anchor without quotes, brackets or a leading article ('The server' -> 'server',
    "L'option" -> 'option'), None when nothing worth naming is left."""
    if not anchor:
        return None
    anchor = anchor.strip().strip("`'\"*_«»„“”()[]<>:=,. ")
    while True:
        first, _, rest = anchor.partition(" ")
        elided = re.match(r"(?i)(?:l|d)['’](?=\w)", anchor)
        if elided:
            anchor = anchor[elided.end() :]
        elif rest and first.lower() in _ARTICLES:
            anchor = rest.lstrip()
        else:
            break
    lowered = anchor.lower()
    if len(anchor) < 2 or lowered in _NOT_ANCHORS or lowered in _ARTICLES:
        return None
    return anchor if any(c.isalpha() for c in anchor) else None
