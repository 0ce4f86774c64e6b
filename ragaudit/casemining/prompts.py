"""The fixed prompts `ragaudit cases` asks its generator, recorded in every cases file so a
reader knows what wrote and checked each question, and the template phrasings that stand in
for the generator under --no-generate.

A prompt is a `prompt:` entry as runner.generate.build_messages takes it. The phrasing
request is rendered into the question slot (its template is just `{question}`), so the
request's own text is what the prompt hash and the call cache see."""

from __future__ import annotations

from ragaudit.casemining.relation import page_name, stated_relation
from ragaudit.mutation.closed_book import CLOSED_BOOK_PROMPT

LANGUAGE_NAMES = {
    "en": "English", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian",
    "pt": "Portuguese", "nl": "Dutch", "pl": "Polish", "ru": "Russian", "ja": "Japanese",
    "zh": "Chinese",
}  # fmt: skip
"""The languages a phrasing request names; a document in another is asked in English words
with its language code."""

PHRASE_PROMPT = {
    "system": (
        "You write the questions a reader of technical documentation asks. "
        "Reply with exactly two lines and nothing else."
    ),
    "template": "{question}",
}

PHRASE_REQUEST = """Document: {title}
Section: {heading}
Statement: {sentence}
The statement gives "{answer}" for {anchor}.

Write two different questions in {language} whose answer is exactly "{answer}". Each must \
make clear that it asks about {anchor} in {title}, so that only this statement answers it.
Line 1: a precise question in the style of the manual.
Line 2: a different, casual question as a user would type it into a search box: short, \
lower case, in other words than line 1.
Never write "{answer}" or any of its digits in a question. Write only the two questions, one \
per line."""

CASUAL_REQUEST = """Rewrite this question in {language} as a user would type it into a \
search box: short, lower case, in other words. It must still ask for the same value, not \
how to set or change it, and still name {anchor} and {title}.{relation_rule} Reply with the \
rewritten question only.
Question: {question}"""
"""Asked only when the two phrasings of one reply are one question twice (the 1.5B model did
so for 74 of 176 git-doc facts), or the casual one would be dropped (phrasing.py): the
casual one is written again from the precise one."""

PRECISE_REQUEST = """Rewrite this question in {language} in the style of the manual. It must \
ask for the same value, not how to set or change it, name {anchor} exactly as written and \
name {title}.{relation_rule} Never write the value itself. Reply with the rewritten question \
only.
Question: {question}"""
"""Asked only when a reply's precise phrasing would be dropped (not a question, not naming
the anchor or the page, asking a way or another relation: relation.py)."""
RELATION_RULE = " It must ask for the {relation} of {anchor}."
"""Added to a rewrite request where the statement gives a default, maximum or minimum: the
checks drop a phrasing that leaves a stated default unsaid (relation.same_relation)."""

ORACLE_PROMPT = {
    "system": "Answer the question from the context alone. Give the exact value.",
    "template": "Context:\n{context}\n\nQuestion: {question}",
}
"""The oracle check: the generator given only the source paragraph."""

PROMPTS = {
    "phrase": PHRASE_PROMPT, "phrase_request": PHRASE_REQUEST,
    "casual_request": CASUAL_REQUEST, "precise_request": PRECISE_REQUEST,
    "oracle": ORACLE_PROMPT,
    "closed_book": CLOSED_BOOK_PROMPT,
}  # fmt: skip
"""Every prompt a cases file records (`generated_by.prompts`)."""

PHRASE_PARAMS = {"max_tokens": 96}
ANSWER_PARAMS = {"max_tokens": 48}
"""A value answer is a few words; 48 tokens hold one with its sentence, and cost a third of
the 128 a RAG answer gets."""

TEMPLATES = {
    "en": {
        None: ("What is the value of {anchor} in {title}?", "value of {anchor} in {title}?"),
        "default": ("What is the default of {anchor} in {title}?", "default {anchor} in {title}?"),
        "maximum": ("What is the maximum of {anchor} in {title}?", "max {anchor} in {title}?"),
        "minimum": ("What is the minimum of {anchor} in {title}?", "minimum {anchor} in {title}?"),
    },
    "de": {
        None: ("Welchen Wert hat {anchor} in {title}?", "Wert von {anchor} in {title}?"),
        "default": ("Welchen Standardwert hat {anchor} in {title}?",
                    "Standardwert von {anchor} in {title}?"),
        "maximum": ("Welchen Höchstwert hat {anchor} in {title}?",
                    "Höchstwert von {anchor} in {title}?"),
        "minimum": ("Welchen Mindestwert hat {anchor} in {title}?",
                    "Mindestwert von {anchor} in {title}?"),
    },
    "fr": {
        None: ("Quelle est la valeur de {anchor} dans {title} ?",
               "valeur de {anchor} dans {title} ?"),
        "default": ("Quelle est la valeur par défaut de {anchor} dans {title} ?",
                    "{anchor} par défaut dans {title} ?"),
        "maximum": ("Quelle est la valeur maximale de {anchor} dans {title} ?",
                    "maximum de {anchor} dans {title} ?"),
        "minimum": ("Quelle est la valeur minimale de {anchor} dans {title} ?",
                    "minimum de {anchor} dans {title} ?"),
    },
    "es": {
        None: ("¿Cuál es el valor de {anchor} en {title}?", "¿valor de {anchor} en {title}?"),
        "default": ("¿Cuál es el valor por defecto de {anchor} en {title}?",
                    "¿{anchor} por defecto en {title}?"),
        "maximum": ("¿Cuál es el valor máximo de {anchor} en {title}?",
                    "¿máximo de {anchor} en {title}?"),
        "minimum": ("¿Cuál es el valor mínimo de {anchor} en {title}?",
                    "¿mínimo de {anchor} en {title}?"),
    },
}  # fmt: skip
"""--no-generate's phrasings, per language (English for any other) and per relation its
statement states (relation.stated_relation; None: the value itself): marked `template` in
the file, they ask for the anchor's value in its document without a generator."""


def language_name(code: str) -> str:
    return LANGUAGE_NAMES.get(code, f"the language with code {code!r}")


def phrase_request(
    title: str, sentence: str, heading: str | None, answer: str, anchor: str, language: str
) -> str:
    """The phrasing request for one fact, the text the phrasing prompt asks."""
    return PHRASE_REQUEST.format(
        title=title, heading=heading or "(none)", sentence=" ".join(sentence.split()),
        answer=answer, anchor=anchor, language=language_name(language),
    )  # fmt: skip


def casual_request(
    question: str, anchor: str, title: str, language: str, relation: str | None = None
) -> str:
    return CASUAL_REQUEST.format(question=question, anchor=anchor, title=title,
                                 language=language_name(language),
                                 relation_rule=_relation_rule(relation, anchor))  # fmt: skip


def precise_request(
    question: str, anchor: str, title: str, language: str, relation: str | None = None
) -> str:
    return PRECISE_REQUEST.format(question=question, anchor=anchor, title=title,
                                  language=language_name(language),
                                  relation_rule=_relation_rule(relation, anchor))  # fmt: skip


def _relation_rule(relation: str | None, anchor: str) -> str:
    return RELATION_RULE.format(relation=relation, anchor=anchor) if relation else ""


def document_title(doc_id: str) -> str:
    """What a phrasing names the document by: its id's last part ('howto/setup' -> 'setup')."""
    return doc_id.rstrip("/").rsplit("/", 1)[-1]


def template_phrasings(
    anchor: str, title: str, sentence: str, answer: str, language: str
) -> tuple[str, str]:
    relation = stated_relation(sentence, answer, anchor)
    precise, casual = TEMPLATES.get(language, TEMPLATES["en"])[relation]
    title = page_name(title)
    return precise.format(anchor=anchor, title=title), casual.format(anchor=anchor, title=title)
