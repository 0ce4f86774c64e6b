"""The boundary operator pads with whole sentences of the corpus's other documents, right
before the answer's sentence inside its paragraph; a splitter that cuts that sentence makes
a mutant, one that keeps it whole under every padding up to twice its chunks is credited as
robust when the sentence sits inside the embedder's window (and only then), and the search
costs a logarithmic number of splitter calls. Splitters: a fixed-width one and a
sentence-grouping one written here, and ragaudit's own settings splitters."""

from __future__ import annotations

import math
import re

from langchain_text_splitters import RecursiveCharacterTextSplitter

from ragaudit.backends.base import InputWindow
from ragaudit.documents import Document
from ragaudit.mutation import boundary
from ragaudit.mutation.cases import MutationIntent
from ragaudit.mutation.column import Column
from ragaudit.mutation.cut_search import cuts_sentence
from ragaudit.mutation.edits import apply_edits
from ragaudit.mutation.grouping import build_mutants
from ragaudit.mutation.operator import Context, NotApplicable, Plan, Robust, Target
from ragaudit.mutation.window import InWindow, embedder_in_window

ANSWER_SENTENCE = (
    "Overtime on the quay is paid at 150 percent of the hourly wage for the first two hours."
)
BEFORE = "Harbour staff handbook.\n\nThe canteen opens at seven and closes after the late shift. "
HANDBOOK = (
    BEFORE + ANSWER_SENTENCE + " Night work on the quay is paid at a higher rate.\n\n"
    "Visitors register at the gate and wear a vest at all times.\n"
)
NEWS = [
    "The sports club meets every Thursday evening in the gym near the north entrance.",
    "The summer party takes place in the park beside the marina with music and food.",
    "The library lends books and films for two weeks to every member of the staff.",
    "New members of the choir are welcome at the rehearsal on Monday after work.",
    "The bicycle shed behind the office is locked every night at ten o'clock sharp.",
    "A new coffee machine was installed on the second floor of the main building.",
]


def news_documents(sentences: list[str], per_document: int = 2) -> list[Document]:
    return [
        Document(f"news-{i}", " ".join(sentences[i : i + per_document]))
        for i in range(0, len(sentences), per_document)
    ]


def intent_in(doc: Document, answer: str = "150 percent") -> MutationIntent:
    return MutationIntent("overtime", answer, None, (), doc.doc_id, doc.text.index(answer), None)


def context(doc: Document, splitter, in_window=None, news=NEWS) -> Context:
    documents = (doc, *news_documents(news))
    return Context(documents, (intent_in(doc),), 0, splitter, in_window=in_window)


def plan_of(doc: Document, splitter, in_window=None, news=NEWS):
    made = context(doc, splitter, in_window, news)
    return boundary.plan(Target(made.intents[0], doc), made)


def fixed_width(width: int):
    def split(doc: Document) -> list[tuple[int, int]]:
        return [(i, min(i + width, len(doc.text))) for i in range(0, len(doc.text), width)]

    return split


def sentence_groups(width: int):
    """Whole sentences grouped up to `width` characters: a boundary only after a sentence
    end and its spaces, so no sentence shorter than `width` is ever cut."""

    def split(doc: Document) -> list[tuple[int, int]]:
        text = doc.text
        ends = [m.end() for m in re.finditer(r"[.!?](\s+|$)", text)] + [len(text)]
        chunks, start, last = [], 0, 0
        for end in ends:
            if end - start > width and last > start:
                chunks.append((start, last))
                start = last
            last = end
        chunks.append((start, len(text)))
        return chunks

    return split


def test_the_padding_is_whole_sentences_of_other_documents_right_before_the_answers():
    doc = Document("handbook", HANDBOOK)
    outcome = plan_of(doc, fixed_width(150))
    assert isinstance(outcome, Plan)
    (edit,) = outcome.edits
    at = len(BEFORE)  # right where the answer's sentence starts, after "late shift. "
    assert (edit.start, edit.end) == (at, at)
    padding = edit.new
    chosen = padding[:-1].split(". ")
    chosen = [s if s.endswith(".") else s + "." for s in chosen]
    # whole sentences of the news documents, none of the handbook's, each once, no fragment
    assert all(s in NEWS for s in chosen) and len(set(chosen)) == len(chosen)
    assert padding == " ".join(chosen) + " " and "\n" not in padding
    mutated = apply_edits(doc.text, outcome.edits).text
    assert mutated == BEFORE + padding + HANDBOOK[at:]
    assert mutated[at - 12 : at] == "late shift. "
    assert mutated[at + len(padding) - 2 :].startswith(". " + ANSWER_SENTENCE + " Night work")
    count = len(chosen)
    assert outcome.rule == (
        f"{count} sentence{'s' if count != 1 else ''} ({len(padding)} characters) of the "
        "corpus's own text before the answer's sentence, inside its paragraph"
    )


def test_a_fixed_width_splitter_cuts_the_sentence_inside_it():
    doc = Document("handbook", HANDBOOK)
    outcome = plan_of(doc, fixed_width(150))
    assert isinstance(outcome, Plan)
    mutated = apply_edits(doc.text, outcome.edits).text
    start = len(BEFORE) + len(outcome.edits[0].new)
    end = start + len(ANSWER_SENTENCE)
    assert mutated[start:end] == ANSWER_SENTENCE  # the sentence reads whole
    # a multiple of 150 (a chunk boundary) strictly inside the sentence
    assert any(start < k * 150 < end for k in range(1, len(mutated) // 150 + 1))


def test_ragaudits_fixed_splitter_cuts_it_and_the_mutant_passes_its_checks(tmp_path):
    settings = tmp_path / "fixed.yaml"
    settings.write_text("name: f\nsplitter: fixed\nchunk_size: 120\noverlap: 0\nk: 3\n")
    doc = Document("handbook", HANDBOOK)
    made = context(doc, Column(settings, None).splitter())
    (mutant,) = build_mutants(boundary.OPERATOR, made).mutants
    assert mutant.applied, mutant.reason
    gold = mutant.gold_spans[0]
    assert gold.text == ANSWER_SENTENCE
    assert any(gold.start < k * 120 < gold.end for k in range(1, gold.end // 120 + 1))
    checks = {c["check"]: c["passed"] for c in mutant.validity}
    assert checks["cut_by_splitter"] is True and all(checks.values())


def test_a_splitter_that_never_cuts_a_sentence_is_robust_only_with_a_known_window():
    doc = Document("handbook", HANDBOOK)
    robust = plan_of(doc, sentence_groups(300), in_window=lambda text, offset: True)
    assert isinstance(robust, Robust)
    # the handbook is one 283-character chunk: the padding goes up to the 8,000 floor
    assert len(HANDBOOK) == 283
    assert robust.reason.startswith(
        "the splitter kept the answer's sentence whole under every padding tried up to "
        "8,000 characters ("
    )
    assert robust.reason.endswith(
        "over 2x its longest chunk here, 283 characters), and the sentence sits inside the "
        "embedder's window in its chunk"
    )
    unknown = plan_of(doc, sentence_groups(300))
    assert isinstance(unknown, NotApplicable)
    assert unknown.reason.startswith("the splitter never cut the sentence under every padding")
    assert unknown.reason.endswith("the embedder's window is unknown, so no robust credit")


def test_the_window_decides_the_credit_counted_in_words():
    doc = Document("handbook", HANDBOOK)

    def words(texts):
        return [len(t.split()) for t in texts]

    # a chunk is at most 300 characters, so at most 60 words: inside a 100-word window
    wide = plan_of(doc, sentence_groups(300), in_window=InWindow(words, 100))
    assert isinstance(wide, Robust) and "the embedder's 100-token window" in wide.reason
    # the answer's sentence ends 32 words into the handbook: past a 20-word window
    assert len((BEFORE + ANSWER_SENTENCE).split()) == 32
    narrow = plan_of(doc, sentence_groups(300), in_window=InWindow(words, 20))
    assert isinstance(narrow, NotApplicable)
    assert narrow.reason.endswith(
        "in the document as it is its chunk holds it past the embedder's 20-token window: a "
        "different fault (dilute plants it)"
    )


def test_ragaudits_recursive_splitter_keeps_sentences_whole():
    # recursive 1000/0 cuts a long paragraph at ". " before " ": a sentence is never cut
    doc = Document("handbook", HANDBOOK)
    outcome = plan_of(doc, Column(None, None).splitter(), in_window=lambda text, offset: True)
    assert isinstance(outcome, Robust), outcome


def langchain(size: int, separators: list[str] | None = None):
    """LangChain's recursive splitter, as a user's stack runs it, with its chunks' offsets."""
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=size, chunk_overlap=0, separators=separators, add_start_index=True
    )

    def split(doc: Document) -> list[tuple[int, int]]:
        pieces = splitter.create_documents([doc.text])
        return [(p.metadata["start_index"], p.metadata["start_index"] + len(p.page_content))
                for p in pieces]  # fmt: skip

    return split


def test_langchains_word_splitter_cuts_and_its_sentence_splitter_does_not():
    doc = Document("handbook", HANDBOOK)
    words = plan_of(doc, langchain(300), in_window=lambda text, offset: True)
    assert isinstance(words, Plan)
    mutated = apply_edits(doc.text, words.edits).text
    start = len(BEFORE) + len(words.edits[0].new)
    inside = [b for b in sorted({b for c in langchain(300)(Document("m", mutated)) for b in c})
              if start < b < start + len(ANSWER_SENTENCE)]  # fmt: skip
    assert inside and mutated[start : inside[0]].strip() and mutated[inside[0] : start + 87] != "."
    # keeping ". " with the next chunk, it starts a chunk at a sentence's final period:
    # that leaves the sentence's words whole, so it is no cut
    separators = ["\n\n", "\n", ". ", " ", ""]
    assert langchain(20, separators)(Document("d", "One two three. Four five six.")) == [
        (0, 13),
        (13, 29),
    ]
    kept = plan_of(doc, langchain(300, separators), in_window=lambda text, offset: True)
    assert isinstance(kept, Robust), kept


def test_a_cut_leaves_words_of_the_sentence_on_both_sides():
    text = "Ab. Overtime is paid. Next"
    start, end = 4, 21  # "Overtime is paid."
    assert cuts_sentence(text, [(0, 19), (19, 26)], start, end)  # inside "paid"
    assert cuts_sentence(text, [(0, 5), (5, 26)], start, end)  # after "O"
    assert not cuts_sentence(text, [(0, 20), (20, 26)], start, end)  # before its period
    assert not cuts_sentence(text, [(0, 4), (4, 26)], start, end)  # at its start


def test_a_splitter_cutting_other_sentences_but_dodging_the_answers_gets_no_credit():
    cut = fixed_width(150)

    def dodging(doc: Document) -> list[tuple[int, int]]:
        # fixed width, except that a boundary inside the answer's sentence moves to its start
        start = doc.text.index(ANSWER_SENTENCE)
        end = start + len(ANSWER_SENTENCE)
        moved = [(a if not start < a < end else start, b if not start < b < end else start)
                 for a, b in cut(doc)]  # fmt: skip
        return [(a, b) for a, b in moved if a < b]

    doc = Document("handbook", HANDBOOK)
    outcome = plan_of(doc, dodging, in_window=lambda text, offset: True)
    assert isinstance(outcome, NotApplicable)
    assert outcome.reason.startswith("the splitter cuts sentences, but none of the ")


def test_the_search_costs_a_logarithmic_number_of_splitter_calls():
    # 500 filler sentences of exactly 99 characters each (100 with the space after it)
    filler = [f"Filler sentence number {i:04d} says nothing at all".ljust(98, "x") + "."
              for i in range(500)]  # fmt: skip
    assert {len(s) for s in filler} == {99}
    appendix = "Appendix line about nothing in particular here. " * 400
    doc = Document("handbook", HANDBOOK + "\n" + appendix)
    split = sentence_groups(10_000)
    calls = []

    def counted(d: Document) -> list[tuple[int, int]]:
        calls.append(len(d.text))
        return split(d)

    longest = max(b - a for a, b in split(doc))
    limit = max(2 * longest, 8000)
    assert limit > 19_000  # so the supply reaches it with ceil(limit / 100) sentences
    sentences = math.ceil(limit / 100)
    outcome = plan_of(doc, counted, in_window=lambda text, offset: True, news=filler)
    assert isinstance(outcome, Robust), outcome
    assert f"up to {limit:,} characters" in outcome.reason
    # the original cut, doubling to the supply's end, one bisection, and two aims of two
    # tuning trials each (after the bisection, after the doubling): 22 calls for 200
    steps = math.ceil(math.log2(sentences))
    assert sentences == 200 and steps == 8
    assert len(calls) <= 1 + (steps + 1) + steps + 2 * 2 == 22
    # and the longest padding tried held every sentence the limit needs
    assert max(calls) >= len(doc.text) + limit


def test_list_items_tables_one_word_sentences_and_pipelines():
    item = "Rules of the quay:\n- Overtime on the quay is paid at 150 percent of the wage.\n"
    outcome = plan_of(Document("rules", item), fixed_width(60))
    assert isinstance(outcome, Plan)
    padding = outcome.edits[0].new
    at = len("Rules of the quay:\n")
    assert outcome.edits[0].start == at and padding.endswith(".\n")  # a line of its own
    assert apply_edits(item, outcome.edits).text == item[:at] + padding + item[at:]
    table = Document("rates", "| Rate | Value |\n| --- | --- |\n| Overtime | 150 percent |\n")
    assert plan_of(table, fixed_width(20)).reason.startswith("the answer is in a table row")
    word = Document("short", "Overtime rate:\n150\n")
    made = Context((word, *news_documents(NEWS)), (intent_in(word, "150"),), 0, fixed_width(5))
    one_word = boundary.plan(Target(made.intents[0], word), made)
    assert one_word.reason == "the answer's sentence is one word: too short to cut"
    assert plan_of(table, None).reason.startswith("the answer is in a table row")  # a pipeline's


def test_the_window_helper_reads_an_embedders_window_and_counter():
    def words(texts):
        return [len(t.split()) for t in texts]

    in_window = InWindow(words, 3)
    assert in_window("one two three four", 13) is True  # "one two three"
    assert in_window("one two three four", 18) is False
    assert InWindow(lambda texts: None, 3)("one", 3) is None

    class Embedder:
        def __init__(self, tokens, counter):
            self.tokens, self.count_tokens = tokens, counter

        def input_window(self):
            return InputWindow(self.tokens, "tokenizer", "truncated", "test")

    assert embedder_in_window(Embedder(3, words)) == InWindow(words, 3)
    assert embedder_in_window(Embedder(None, words)) is None
    assert embedder_in_window(Embedder(3, lambda texts: None)) is None
