"""Whether a mined value is stated plainly enough to ask for: the one value of its
statement, not an illustration, not hedged.

Read by hand, 40 git-doc and 15 German man-page cases lost most of their validity to
values that a plain question misreads (benchmarks/cases_precision/judged/):
- a statement with a second value leaves which one the anchor owns to the phrasing
  ('restart_count is 2-byte, each restart_offset 3-byte' was asked as restart_count's
  3 bytes; '30%-50%' as 30%);
- a value of an example ('This example shows that the index contained 3552 entries') is
  no fact of the thing it shows;
- a hedged value ('usually 40 hex characters', 'typically 100 MB') has no single answer,
  nor has one end of a range ('30%-50%'), one of alternatives ('either a 20-byte name or an
  offset'), a value under a condition ('or 80 columns if not connected to a terminal') or
  a bound ('smaller than 100%').
A table row is exempt from the first rule: its cells are told apart by their headers."""

from __future__ import annotations

import re

from ragaudit.casemining.candidates import MinedValue
from ragaudit.values.settings import TYPE_NAMES
from ragaudit.values.shapes import find_values

_ILLUSTRATIVE = re.compile(
    r"(?i)(?<!\w)(?:for\s+example|for\s+instance|e\.\s?g\.|examples?|sample|zum\s+Beispiel|"
    r"z\.\s?B\.|beispielsweise|Beispiels?|par\s+exemple|exemples?|por\s+ejemplo|ejemplos?|"
    r"p\.\s?ej\.)(?!\w)"
)
_HEDGED = re.compile(
    r"(?i)(?<!\w)(?:usually|typically|typical|normally|generally|roughly|approximately|"
    r"commonly|often|normalerweise|üblicherweise|typischerweise|typisch\w*|ungefähr|circa|"
    r"meistens|häufig|oft|généralement|habituellement|typiquement|environ|normalement|"
    r"souvent|couramment|generalmente|normalmente|típicamente|aproximadamente|"
    r"frecuentemente|a\s+menudo)(?!\w)"
)
_ALTERNATIVES = re.compile(r"(?i)(?<!\w)(?:either|entweder|soit|o\s+bien)(?!\w)")
_ALTERNATIVE_BEFORE = re.compile(r"(?i)(?<!\w)(?:or|oder|ou|o)\s+(?:\w+\s+)?$")
_ALTERNATIVE_AFTER = re.compile(r"(?i)^[`'\"»“]*\s*(?:[^\W\d_]+\s*)?(?:,\s*)?(?:or|oder|ou)\s")
"""'… or …' right after the value or its noun ('a 32 byte array or, if …, an empty array')."""
_LIST_AFTER = re.compile(r"^[`'\"»“”]*\s*,\s*[`'\"«„“]*(\S{3,})")
_SESSION = re.compile(r"(?m)(?:^|\s)[$#%>]\s+[a-z][\w.-]*\s")
"""A shell prompt before a command ('$ sqlite3 mydata.db'): an example session's output."""
_STAMP_AFTER = re.compile(r"^\s+\d{1,2}:\d{2}\b")
"""A date with a clock time after it ('2021-01-08 19:47 latin'): a listing's row."""
_BARE_NUMBER = re.compile(r"(?i)(?:(?<!\w)(?:is|are|of|=|to)|,)\s+(-?\d[\d.,]*)(?![\w.])")
_NAME_AFTER = re.compile(r"^\s*`?([A-Za-z_][\w.]*_[\w.]+|[a-z]+\.[a-z][\w.]*)`?")
"""A name written right after a size ('3-byte `restart_offset` values'): the value is that
name's, not the anchor's."""
_CUT_AFTER = re.compile(r"^(?:[;:=,/][^\s]|\((?!\s|default|see)[^)\s]*[|.])")
"""A value running on without a space ('ms=01' of 'ms=01;31:mc=01;31', 'username.tar' of
'username.tar(.gz|.bz2)'): a cut fragment."""
_SMALL_COUNT = re.compile(
    r"(?i)^(?:(?:zero|one|two|no|null|eins?|zwei|un|une|deux|cero|uno|una|dos)\b"
    r"|[012][\s-]+(?:lines?|files?|commits?|columns?|entr\w+|characters?|times?|items?|"
    r"arguments?|parents?|objects?|paths?|refs?|words?|Zeilen?|Dateien|Datei|lignes?|"
    r"fichiers?|líneas?|archivos?)\b)"
)
"""'one line', 'two files', 'zero bytes', '1 column' (a small count in words, or of
things rather than a measure: '1 MiB' is a fact): how a text counts in passing, a fact only
by accident (10 of 25 invalid git-doc cases read by hand were such counts)."""
_CONDITION_AFTER = re.compile(
    r"(?i)^\S*\s+(?:if|when|unless|wenn|falls|sofern|si|lorsque|quand|cuando)(?!\w)"
)
_BOUND_BEFORE = re.compile(
    r"(?i:\b(?:at\s+least|at\s+most|more\s+than|less\s+than|fewer\s+than|up\s+to|about|"
    r"around|approximately|roughly|usually|over|under|mindestens|höchstens|mehr\s+als|"
    r"weniger\s+als|bis\s+zu|etwa|ungefähr|au\s+moins|au\s+plus|plus\s+de|moins\s+de|"
    r"jusqu'à|environ|al\s+menos|más\s+de|menos\s+de|hasta|aproximadamente)"
    r"(?:\s+(?:a|an|one|ein|eine|einen|un|une|una))?\s*[`'\"]?\s*$)"
)
"""A bound written right before the value ('at least 2GiB'), read by `bounded` on the text."""
_COMPARISON_BEFORE = re.compile(
    r"(?i)(?<!\w)(?:smaller|larger|greater|less|fewer|more|higher|lower|kleiner|größer|"
    r"weniger|mehr|höher|niedriger|inférieur|supérieur|plus\s+petit|plus\s+grand|menor|"
    r"mayor)\s+(?:than|als|que|à)\s+\S*\s*$"
)
"""A comparison before the value in its statement ('smaller than 100%'), read by `unplain`."""
_OR_AFTER = re.compile(r"(?i:^\s*[`'\"]?\s*(?:or|oder|ou|o)\s+\S*\d)")
_OR_BEFORE = re.compile(r"(?i:\d[\w.,]*(?:\s*[^\W\d]+)?\s+(?:or|oder|ou|o)\s*[`'\"]?\s*$)")


_CONDITION_OPENING = re.compile(
    r"(?i)^\W*(?:if|when|unless|for|wenn|falls|sofern|für|si|lorsque|quand|pour|cuando|para)"
    r"(?!\w)(?P<clause>.*?)"
    r"(?:[,;]|\b(?:then|dann|alors|entonces|defaults?|vorgabe|standardmäßig|défaut|defecto)\b|$)",
    re.S,
)
_OMITTED = frozenset(
    "is are was were be being not no none nothing any omitted unspecified specified given set "
    "unset used present absent missing provided supplied empty without this that option flag "
    "argument value the it its an a or when to "
    "ist sind wird wurde nicht kein keine nichts angegeben gesetzt fehlt fehlen weggelassen "
    "verwandt verwendet festgelegt dieser diese dieses schalter option argument wert der die "
    "das es er sie oder auf "
    "est sont n ne pas aucun aucune spécifié spécifiée précisé précisée indiqué indiquée "
    "donné donnée fourni absent absente cet cette ce option argument valeur le la l il elle ou "
    "no se especifica especificado está esta opción argumento el valor".split()
)
"""The words of a condition that only says the value is not given ('If omitted, ...',
'Falls er fehlt, ...', 'Si cet argument est absent, ...'): that states a default, no
condition on anything else."""
_IN_THAT_CASE = re.compile(
    r"(?i)(?<!\w)(?:in\s+(?:which|that|this|such\s+a)\s+case|in\s+(?:diesem|dem)\s+Fall|"
    r"dans\s+ce\s+cas|en\s+ce\s+cas|auquel\s+cas|en\s+(?:cuyo|ese|este)\s+caso)(?!\w)"
)
"""'..., in which case it defaults to HEAD': the value holds in a case the sentence set up."""
_NO_ARGUMENT = re.compile(
    r"(?i)\b(?:if|when|wenn|falls|si|lorsque|cuando)\b[^.;]{0,40}?\b(?:argument|arg|value|"
    r"wert|valeur|valor|paramètre|parameter)\b[^.;]{0,30}?\b(?:omitted|not\s+given|not\s+"
    r"specified|missing|absent|fehlt|weggelassen|nicht\s+angegeben|omise?|ausente)\b"
    r"|\b(?:wird|ist)\s+kein(?:e|en)?\s+(?:Wert|Argument)\s+(?:vorgegeben|angegeben)"
    r"|\b(?:without|ohne|sans|sin)\s+(?:an?\s+|un\s+|une\s+)?(?:argument|value|Wert|valeur|"
    r"valor)\b"
)
"""'If the when argument is omitted, it defaults to auto', 'Wird kein Wert vorgegeben, …',
'Si cet argument est absent, …': the value of an option given without its argument, not
what holds when the option is not given (read out of sample in German and French)."""
_BUT_AFTER = re.compile(r"(?i)^[`'\"»”]*\s*[,;]\s*(?:but|aber|jedoch|mais|pero|sin\s+embargo)\b")
"""'The built-in default is pg_catalog.simple, but initdb will initialize the configuration
file with a setting that corresponds to the chosen lc_ctype locale': which default a
question means is left open (read in PostgreSQL's manual)."""
_NEGATED = re.compile(r"^-{0,2}no-", re.I)
_SIZE_ADJECTIVE = re.compile(r"^\d[\d.,]*-[^\W\d_]+$")
"""'24-byte', '40-character': a size written as an adjective, of the noun after it."""
_SIZE_QUALIFIERS = frozenset(
    "hexadecimal binary unsigned signed sorted long wide value values number numbers integer "
    "integers field wert werte zahl zahlen valeur valeurs nombre entier valor valores".split()
)
"""Words after a size that name no other thing, or its own value ('a 3-byte value')."""
_PLACEHOLDER = re.compile(r"[A-Z][A-Z0-9_]*[A-Z][A-Z0-9_]*")
_EXAMPLE_ROW = re.compile(r"^\W{0,2}[+\-~]?\d+[A-Za-z]+\d*\S*\s|^\W{0,2}[+~]\d")
"""A statement opening with a literal of the syntax it explains ('+52w1d  Valid from now
to 52 weeks and one day from now'): a row of examples, its values the example's."""
_VERSION_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)+(?![\w.]*\d)")


def _condition_opening(sentence: str, own: int, anchor: str) -> bool:
    """The statement opens with a condition naming something besides its anchor before
    the value ('If --tlsuser and --tlspassword are specified ... defaults to SRP', 'If mode
    is omitted the default is NULLABLE' under --schema-file): the value holds only then,
    or is another thing's."""
    found = _CONDITION_OPENING.match(sentence[:own])
    if not found:
        return False
    clause = re.sub(r"<[^>]*>|\[[^\]]*\]", " ", found.group("clause"))  # '<mode>': its own
    clause = clause.replace(anchor.strip(), " ")
    named = anchor.lower()
    return any(w.lower() not in _OMITTED and w.lower()[:5] not in named
               for w in re.findall(r"[^\W\d_][\w\-]*", clause))  # fmt: skip


_RANGE_AFTER = re.compile(r"^\s*(?:-|–|—|to|bis|à|a)\s*\d", re.I)
_RANGE_BEFORE = re.compile(r"\d\S*\s*(?:-|–|—|to|bis|à|a)\s*$", re.I)


_BOUND_AFTER = re.compile(
    r"(?i:^[`'\"]?\s*(?:and|or|und|oder|et|ou|y|o)\s+(?:above|later|newer|higher|greater|more|"
    r"earlier|older|lower|less|below|höher|neuer|später|größer|mehr|früher|älter|niedriger|"
    r"weniger|plus|moins|supérieure?s?|ultérieure?s?|antérieure?s?|inférieure?s?|superior|"
    r"posterior|anterior|inferior|más|menos)\b)"
)
"""'in versions 0.9.5 and above': a bound, read by `bounded` on the text after the value."""


def bounded(text: str, value: MinedValue) -> bool:
    """A value the text states as a bound or one of numbers ('at least 2GiB', 'more than
    one second', '1 ns or 1 s'): a question for the bare value asks something the text does
    not say. Read on the text around the value, before its statement is found (mine.py)."""
    before = text[max(0, value.start - 30) : value.start]
    after = text[value.end : value.end + 20]
    return bool(
        _BOUND_BEFORE.search(before)
        or _OR_AFTER.search(after)
        or _OR_BEFORE.search(before)
        or _BOUND_AFTER.search(after)
    )


def unplain(
    answer_start: int, sentence_start: int, sentence: str, kind: str, answer: str, anchor: str
) -> str | None:
    """Why `answer`, at `answer_start`, is not stated plainly of `anchor` in its `sentence`
    (which starts at `sentence_start` in the same text), or None when it is."""
    if kind == "quantity" and _SMALL_COUNT.match(answer):
        return "a count in passing"
    if kind == "setting" and answer.lower() in TYPE_NAMES:  # 'create_slot (boolean)'
        return "a type, not a value"
    if _ILLUSTRATIVE.search(sentence):
        return "an example's value"
    if _HEDGED.search(sentence):
        return "a hedged value"
    own = answer_start - sentence_start
    end = own + len(answer)
    before, after = sentence[max(0, own - 40) : own], sentence[end : end + 40]
    if (_ALTERNATIVES.search(sentence) or _ALTERNATIVE_BEFORE.search(before)
            or _ALTERNATIVE_AFTER.search(after)):  # fmt: skip
        return "one of alternatives"
    if _CUT_AFTER.match(after) or _runs_on(answer, after):
        return "a fragment of a longer value"
    misread = _misread(own, sentence, kind, answer, anchor)
    if misread:
        return misread
    named = _NAME_AFTER.match(after)
    if named and named.group(1) != anchor.strip("`$-"):
        return f"a value of another name ({named.group(1)!r})"
    if _CONDITION_AFTER.search(after):
        return "a value under a condition"
    if _COMPARISON_BEFORE.search(before):
        return "a bound"
    if _RANGE_AFTER.search(sentence[end : end + 8]) or _RANGE_BEFORE.search(sentence[:own][-12:]):
        return "one end of a range"
    if kind != "table_cell":
        others = [v.text for v in find_values(sentence) if not v.start <= own < v.end]
        others += [
            m.group(1) for m in _BARE_NUMBER.finditer(sentence) if not m.start(1) <= own < m.end(1)
        ]  # 'The minimum tlen is 0 and …'
        if kind == "version":  # 'since APT 0.7.24, undocumented until APT 1.6'
            others += [m.group() for m in _VERSION_NUMBER.finditer(sentence)
                       if not m.start() <= own < m.end()]  # fmt: skip
        if others:
            return f"a second value in its statement ({others[0]!r})"
    return None


def _misread(own: int, sentence: str, kind: str, answer: str, anchor: str) -> str | None:
    """Why a value at `own` in its statement is not the anchor's own plain value in the
    ways read out of sample (the second English corpus): a metavariable, a list's first
    item, an example's line, a condition, a negated option, a size of another noun."""
    after = sentence[own + len(answer) : own + len(answer) + 40]
    if _placeholder(answer, anchor, sentence):
        return "a placeholder"
    listed = _LIST_AFTER.match(after)
    if listed and _alike(listed.group(1).strip("`'\"»“”").rstrip(",.;:"), answer):
        return "one of a list"  # '~/.ssh/id_rsa, ~/.ssh/id_ecdsa, …', 'ISO, MDY'
    if _BUT_AFTER.match(after):
        return "a value qualified after it"  # 'The built-in default is X, but initdb …'
    if (_SESSION.search(sentence) or (kind == "date" and _STAMP_AFTER.match(after))
            or (_EXAMPLE_ROW.match(sentence)
                and not sentence.lstrip().startswith(anchor.strip()))):  # fmt: skip
        return "an example's value"
    if _condition_opening(sentence, own, anchor) or _IN_THAT_CASE.search(sentence[:own]):
        return "a value under a condition"
    if _NO_ARGUMENT.search(sentence[:own]):
        return "a value of the option given without its argument"
    if _NEGATED.match(anchor.strip()):
        return "a value of the option it negates"  # '--no-ahead-behind ... Defaults to true'
    described = _described(answer, after)
    if described and described[:4].lower() not in anchor.lower():
        return f"a value of another name ({described!r})"
    return None


_CAPITALS = re.compile(r"[A-Z][A-Z0-9_]*")


def _alike(item: str, answer: str) -> bool:
    """The next item of a list is of the answer's kind: the same opening ('~/.ssh/id_')
    or both a word in capitals ('ISO, MDY')."""
    return item[:3] == answer[:3] or bool(_CAPITALS.fullmatch(item) and _CAPITALS.fullmatch(answer))


_MAGNITUDE_AFTER = re.compile(
    r"(?i)^\s+(?:thousand|million|billion|trillion|tausend|millionen|million|milliarden|"
    r"milliarde|mille|millions|milliards?|mil|millón|millones)(?!\w)"
)
"""'150' of 'The default is 150 million transactions': a number's magnitude in words."""


def _runs_on(answer: str, after: str) -> bool:
    """The value is the first word of a longer one written with the same marks ('%Uuser'
    of 'The default format is: %Uuser %Ssystem %Eelapsed ...') or a number whose
    magnitude follows in words ('150' of '150 million')."""
    if _MAGNITUDE_AFTER.match(after):
        return True
    marks = set(re.sub(r"[\w\s]", "", answer)) & set("%$@{}<>")
    following = after.split()[:1] if after[:1].isspace() else []  # '30%-50%': a range
    return bool(marks and following and marks & set(following[0]))


def _placeholder(answer: str, anchor: str, sentence: str) -> bool:
    """The value is the metavariable of its anchor's synopsis ('conv=CONVS', '<FILE>'):
    the name of what a user writes, not a value."""
    if not _PLACEHOLDER.fullmatch(answer):
        return False
    name = re.escape(anchor.strip().rstrip("=:"))
    return bool(re.search(rf"{name}\s*=\s*\[?{re.escape(answer)}\b|<{re.escape(answer)}>",
                          sentence))  # fmt: skip


def _described(answer: str, after: str) -> str | None:
    """The noun a size written as an adjective describes ('24-byte entries' of 'The header
    is followed by sorted 24-byte entries'): its value, not the sentence's subject's."""
    if not _SIZE_ADJECTIVE.match(answer):
        return None
    words = re.findall(r"[^\W\d_][\w\-]*", after[:40])
    nouns = [w for w in words[:3] if w.lower() not in _SIZE_QUALIFIERS]
    return nouns[0] if nouns else None
