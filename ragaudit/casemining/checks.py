"""The checks a mined case passes without a model: its answer is not in its question, its
two phrasings are not one question twice, its generator reply holds two questions, and the
paragraph the oracle check is given.

Each check returns its recorded result (a dict with `passed`), so a cases file shows why a
case was kept as plainly as why one was dropped."""

from __future__ import annotations

import re

from ragaudit.auditing.cases import normalise_question
from ragaudit.corpus.stats import NEAR_DUPLICATE, jaccard

_DIGITS = re.compile(r"\d+")
_NUMBERING = re.compile(
    r"^\s*(?:line\s*\d+\s*[:.)-]|\d+\s*[.):-]|[-*•]|\(?[a-z]\)|q\d*[:.])\s*", re.I
)
_LABEL = re.compile(r"^\s*\**\s*(?:precise|casual|question)\s*(?:\d+)?\s*\**\s*[:：-]\s*", re.I)
MAX_QUESTION_CHARACTERS = 240
PARAGRAPH_CHARACTERS = 1200
"""The oracle check's context: the paragraph around the fact, at most this long (a man
page's paragraph can run for pages; the fact's neighbourhood is what states it)."""


def answer_in_question(answer: str, question: str) -> dict:
    """The answer, or any digit run of it standing as a number of its own, in the question:
    a question that gives its answer away tests nothing."""
    folded = normalise_question(question)
    said = normalise_question(answer)
    if said and re.search(rf"(?<!\w){re.escape(said)}(?!\w)", folded):
        return {"passed": False, "found": answer}
    for digits in _DIGITS.findall(answer):
        if re.search(rf"(?<!\d){digits}(?!\d)", question):
            return {"passed": False, "found": digits}
    return {"passed": True}


_PLAIN_WORD = re.compile(r"[^\W\d_]{2,}")
_QUESTION_WORD = re.compile(
    r"(?i)^\W*(?:what|which|how|when|where|who|whom|whose|why|is|are|does|do|can|"
    r"was|welche\w*|wie|wann|wo|wer|wem|wen|warum|wieviel\w*|gibt|ist|sind|"
    r"que|qu'|quel\w*|comment|combien|où|quand|qui|pourquoi|est-ce|"
    r"qué|cuál\w*|cómo|cuánt\w*|dónde|cuándo|quién\w*|por\s+qué)(?!\w)"
)
MIN_WORDS = 3
MIN_PLAIN_WORDS = 2


def asks_something(question: str, anchor: str | None = None, title: str | None = None) -> dict:
    """A phrasing of at least MIN_WORDS words, MIN_PLAIN_WORDS of them words of the language
    (not an option, a path or a setting name): 'gitcvs.dbDriver' or 'git-mailsplit -d' is a
    name, not a question (three such were kept among 40 git-doc cases read by hand). A
    search-box query ('gitweb default project root') asks; one holding an option other than
    the anchor, or no word but the anchor's and the page's, with neither a question mark nor
    a question word, is a command line ('git config --get sendemail.cccover', 'git am
    --show-current-patch'); one ending in a full stop is a statement."""
    words = question.split()
    plain = sum(1 for w in words if _PLAIN_WORD.fullmatch(w.strip("?¿!,.:;\"'()")))
    asked = question.rstrip().endswith(("?", "？")) or bool(_QUESTION_WORD.match(question))
    options = [w for w in words if w.startswith("-") and len(w) > 1 and w.rstrip("=") != anchor]
    names = set(re.findall(r"[^\W\d_]+", f"{anchor or ''} {title or ''}".lower()))
    says = [w for w in re.findall(r"[^\W\d_]{2,}", question.lower()) if w not in names]
    command = not asked and (bool(options) or not says)
    # a sentence ending in a full stop, neither asked nor a search-box query, states
    # something ('LogsDirectoryMode in systemd.exec.5 defaults to "append".')
    statement = not asked and question.rstrip().endswith(".")
    return {"passed": len(words) >= MIN_WORDS and plain >= MIN_PLAIN_WORDS and not command
            and not statement, "words": len(words), "plain_words": plain,
            **({"command": True} if command else {}),
            **({"statement": True} if statement else {})}  # fmt: skip


def question_tokens(text: str) -> set[str]:
    """Unicode word tokens of a question, case and width folded ('Größe' is one token)."""
    return set(re.findall(r"\w+", normalise_question(text)))


def near_duplicate(first: str, second: str, threshold: float = NEAR_DUPLICATE) -> dict:
    """Two phrasings whose token Jaccard is above `threshold` ask one question twice."""
    overlap = jaccard(question_tokens(first), question_tokens(second))
    return {"passed": overlap <= threshold, "jaccard": round(overlap, 3), "threshold": threshold}


def parse_phrasings(reply: str | None) -> tuple[str, str] | None:
    """The two questions of a phrasing reply (numbering, labels and quotes stripped), or
    None when it holds fewer than two usable lines."""
    questions = []
    for raw in (reply or "").splitlines():
        line = _LABEL.sub("", _NUMBERING.sub("", raw)).strip().strip('"“”„«»`*').strip()
        if len(line) < 8 or len(line) > MAX_QUESTION_CHARACTERS:
            continue
        questions.append(line)
    return (questions[0], questions[1]) if len(questions) >= 2 else None


def source_paragraph(text: str, start: int, end: int, limit: int = PARAGRAPH_CHARACTERS) -> str:
    """The paragraph (between blank lines) holding text[start:end], cut to `limit`
    characters around the span at line breaks where it is longer."""
    begin = text.rfind("\n\n", 0, start)
    begin = 0 if begin == -1 else begin + 2
    stop = text.find("\n\n", end)
    stop = len(text) if stop == -1 else stop
    if stop - begin > limit:
        half = (limit - (end - start)) // 2
        begin = max(begin, start - half)
        stop = min(stop, end + half)
        line = text.find("\n", begin, start)
        begin = line + 1 if line != -1 else begin
        line = text.rfind("\n", end, stop)
        stop = line if line != -1 else stop
    return text[begin:stop].strip()
