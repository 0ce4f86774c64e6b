"""The fixed prompts `ragaudit cases` asks its generator, recorded in every cases file so a
reader knows what wrote and checked each question, and the template phrasings that stand in
for the generator under --no-generate.

A prompt is a `prompt:` entry as runner.generate.build_messages takes it. The phrasing
request is rendered into the question slot (its template is just `{question}`), so the
request's own text is what the prompt hash and the call cache see."""

from __future__ import annotations

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
per line.

{example}"""

PHRASE_EXAMPLES = {
    "en": (
        'Example from another manual: the statement "The cache keeps entries for 15 minutes '
        'by default." in cache-server gives "15 minutes" for the cache:\n'
        "How long does cache-server keep a cache entry by default?\n"
        "cache-server entry lifetime"
    ),
    "de": (
        'Beispiel aus einem anderen Handbuch: die Aussage "Der Cache behält Einträge '
        'standardmäßig 15 Minuten." in cache-server ergibt "15 Minuten" für den Cache:\n'
        "Wie lange behält cache-server einen Cache-Eintrag standardmäßig?\n"
        "cache-server eintrag wie lange gültig"
    ),
    "fr": (
        "Exemple tiré d'un autre manuel : la phrase « Le cache conserve les entrées 15 "
        "minutes par défaut. » dans cache-server donne « 15 minutes » pour le cache :\n"
        "Combien de temps cache-server conserve-t-il une entrée par défaut ?\n"
        "durée de vie d'une entrée cache-server"
    ),
    "es": (
        'Ejemplo de otro manual: la frase "La caché conserva las entradas 15 minutos por '
        'defecto." en cache-server da "15 minutos" para la caché:\n'
        "¿Cuánto tiempo conserva cache-server una entrada por defecto?\n"
        "duración de una entrada en cache-server"
    ),
}
"""One worked example per language (English for any other), from a manual that is not the
user's: without it the 1.5B model wrote the same question twice for 74 of 176 git-doc facts."""

ORACLE_PROMPT = {
    "system": "Answer the question from the context alone. Give the exact value.",
    "template": "Context:\n{context}\n\nQuestion: {question}",
}
"""The oracle check: the generator given only the source paragraph."""

PROMPTS = {
    "phrase": PHRASE_PROMPT, "phrase_request": PHRASE_REQUEST,
    "phrase_examples": PHRASE_EXAMPLES, "oracle": ORACLE_PROMPT,
    "closed_book": CLOSED_BOOK_PROMPT,
}  # fmt: skip
"""Every prompt a cases file records (`generated_by.prompts`)."""

PHRASE_PARAMS = {"max_tokens": 96}
ANSWER_PARAMS = {"max_tokens": 48}
"""A value answer is a few words; 48 tokens hold one with its sentence, and cost a third of
the 128 a RAG answer gets."""

TEMPLATES = {
    "en": ("What is the value of {anchor}?", "{anchor} value?"),
    "de": ("Welchen Wert hat {anchor}?", "{anchor} Wert?"),
    "fr": ("Quelle est la valeur de {anchor} ?", "valeur de {anchor} ?"),
    "es": ("¿Cuál es el valor de {anchor}?", "¿valor de {anchor}?"),
}
"""--no-generate's phrasings, per language (English for any other): marked `template` in the
file, they ask for the anchor's value without a generator."""


def language_name(code: str) -> str:
    return LANGUAGE_NAMES.get(code, f"the language with code {code!r}")


def phrase_request(
    title: str, sentence: str, heading: str | None, answer: str, anchor: str, language: str
) -> str:
    """The phrasing request for one fact, the text the phrasing prompt asks."""
    return PHRASE_REQUEST.format(
        title=title, heading=heading or "(none)", sentence=" ".join(sentence.split()),
        answer=answer, anchor=anchor, language=language_name(language),
        example=PHRASE_EXAMPLES.get(language, PHRASE_EXAMPLES["en"]),
    )  # fmt: skip


def document_title(doc_id: str) -> str:
    """What a phrasing names the document by: its id's last part ('howto/setup' -> 'setup')."""
    return doc_id.rstrip("/").rsplit("/", 1)[-1]


def template_phrasings(anchor: str, language: str) -> tuple[str, str]:
    precise, casual = TEMPLATES.get(language, TEMPLATES["en"])
    return precise.format(anchor=anchor), casual.format(anchor=anchor)
