"""Mining a corpus for candidate facts, LLM-free and deterministic: each document's values
and anchors (candidates.document_values), counted over the corpus, ranked and spread.

Counted: how many documents hold each answer string as a value of its own
(mutation.text.holds), and which state it of the same anchor (mutation.facts.find_facts:
the mutate issue's fact detector, one function for both). Counting is one inverted pass:
an index of the words of every answer, built in one read of the corpus, names the few
documents that can hold an answer, and only those are searched.

Ranked: facts whose anchor and answer pair is stated in no other document first; then
round by round, each document's best fact before any document's second (no more than
`max_per_document` from one document); within a round, answers held by fewer documents
first, then by kind (a setting or a quantity before a name), then by a seeded draw."""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from ragaudit.casemining.candidates import Candidate, MinedValue, document_values
from ragaudit.casemining.entries import defined_again, one_of_defaults
from ragaudit.casemining.relation import code_anchor
from ragaudit.casemining.stated import bounded, unplain
from ragaudit.documents import Document
from ragaudit.mutation.facts import find_facts
from ragaudit.mutation.text import holds

_KIND_ORDER = ("setting", "duration", "quantity", "percent", "money", "table_cell", "version",
               "date", "name")  # fmt: skip
"""Which kind of value makes the better question, first best."""
_WORD = re.compile(r"\w+")
COMMON_ANSWER_SHARE = 0.1
"""An answer held by more than this share of the documents (and more than
`COMMON_ANSWER_DOCS`) is no candidate: a value stated across a tenth of the corpus ('HEAD',
'1') says little about which document was retrieved, and counting its pairs costs most."""
COMMON_ANSWER_DOCS = 10
_TRIED_PER_DOCUMENT = 4
"""How many of a document's values past `max_per_document` are tried for a unique pair
before its facts are taken as they are (each try is a find_facts call)."""


TITLE_ANCHOR = 4
"""MinedValue.anchor_rank of a value named only by its document's title: left out. In a
how-to, a talk or design notes such a number ('142.6 hours', '10863 bytes') was phrased as
'how long did it take to fix bugs in the past?': a question many places fit (16 of 27
invalid git-doc cases read by hand were of this kind or a bound: stated.bounded)."""


def trusted_shape(kind: str, anchor: str) -> bool:
    """A setting's value whose anchor is written as code ('--limit ... (default 1000)',
    'RestartSec= ... Defaults to 100ms'): the one shape whose cases held up when read by
    hand on corpora nobody had read (benchmarks/cases_precision/judged/): 67 of 78 valid in
    three out-of-sample readings, 27 of 29 under the rules of the third. Every other shape
    was 22 of 42: a version, count or duration asked of the wrong thing or without its
    condition, a setting named in plain words asked so that another thing fits."""
    return kind == "setting" and code_anchor(anchor)


@dataclass(frozen=True)
class _Ranked:
    value: MinedValue
    answer_docs: int
    draw: bytes


def mine_candidates(
    documents: Sequence[Document],
    *,
    max_per_document: int = 3,
    max_candidates: int | None = None,
    seed: int = 0,
    trusted_only: bool = False,
) -> list[Candidate]:
    """The corpus's candidate facts, best first (module docstring): at most
    `max_per_document` from one document and `max_candidates` in all (None: no limit);
    `trusted_only`: values of `trusted_shape` alone.
    The same documents and seed give the same candidates in the same order."""
    values = [
        [
            v
            for v in document_values(doc)
            if v.anchor_rank < TITLE_ANCHOR
            and not bounded(doc.text, v)
            and (not trusted_only or trusted_shape(v.kind, v.anchor))
        ]
        for doc in documents
    ]
    holders = _AnswerHolders(documents, {v.answer for vs in values for v in vs})
    chosen: list[tuple[tuple, Candidate]] = []
    for doc_values in values:
        ranked = _ranked(doc_values, holders, seed)
        chosen += _document_choice(ranked, documents, holders, max_per_document)
    chosen.sort(key=lambda pair: pair[0])
    seen_pairs: set[tuple[str, str]] = set()
    out = []
    for _, candidate in chosen:
        pair = (candidate.answer, candidate.anchor.lower())
        if pair not in seen_pairs:  # a fact stated in two documents is mined once
            seen_pairs.add(pair)
            out.append(candidate)
    return out[:max_candidates] if max_candidates is not None else out


def _ranked(values: list[MinedValue], holders: _AnswerHolders, seed: int) -> list[_Ranked]:
    """One document's values, best first, one per answer string (an answer written twice
    in a document is one fact: the occurrence with the better anchor)."""
    common = max(COMMON_ANSWER_DOCS, COMMON_ANSWER_SHARE * len(holders.documents))
    ranked = [
        _Ranked(v, len(holders.of(v.answer)), _draw(seed, f"{v.doc_id}#{v.start}")) for v in values
    ]
    ranked = [r for r in ranked if r.answer_docs <= common]
    ranked.sort(key=lambda r: (r.answer_docs, _KIND_ORDER.index(r.value.kind),
                               r.value.anchor_rank, r.draw))  # fmt: skip
    seen: set[str] = set()
    out = []
    for r in ranked:
        if r.value.answer not in seen:
            seen.add(r.value.answer)
            out.append(r)
    return out


def _document_choice(
    ranked: list[_Ranked], documents: Sequence[Document], holders: _AnswerHolders, most: int
) -> list[tuple[tuple, Candidate]]:
    """(sort key, candidate) of a document's chosen facts: its best `most`, those whose
    anchor and answer no other document states first."""
    unique: list[Candidate] = []
    shared: list[Candidate] = []
    for r in ranked[: most + _TRIED_PER_DOCUMENT]:
        if len(unique) >= most:
            break
        candidate = _counted(r, documents, holders)
        if candidate is not None:
            (unique if len(candidate.pair_docs) == 1 else shared).append(candidate)
    picked = [(c, True) for c in unique] + [(c, False) for c in shared[: most - len(unique)]]
    by_rank = {(r.value.doc_id, r.value.start): r for r in ranked}
    keys = []
    for round_, (candidate, alone) in enumerate(picked):
        r = by_rank[(candidate.doc_id, candidate.start)]
        kind = _KIND_ORDER.index(candidate.value_kind)
        keys.append(((not alone, round_, r.answer_docs, kind, r.draw), candidate))
    return keys


def _counted(
    r: _Ranked, documents: Sequence[Document], holders: _AnswerHolders
) -> Candidate | None:
    """The candidate of a value, its statement and pair documents from find_facts over the
    documents holding its answer; None when find_facts does not see the value stated, sees
    it stated other than plainly (stated.unplain), its anchor is defined more than once
    in its page (entries.defined_again) or its entry gives two defaults
    (entries.one_of_defaults)."""
    value = r.value
    holding = [documents[i] for i in holders.with_anchor(value.answer, value.anchor, value.doc_id)]
    facts = find_facts(holding, value.answer, value.anchor, value.doc_id, value.start)
    own = next((f for f in facts if f.doc_id == value.doc_id and f.start <= value.start < f.end),
               None)  # fmt: skip
    if own is None or unplain(value.start, own.start, own.text, value.kind, value.answer,
                              value.anchor) is not None:  # fmt: skip
        return None
    source = next(d for d in holding if d.doc_id == value.doc_id)  # `own` was found in it
    if defined_again(source.text, value.anchor) or one_of_defaults(source.text, value):
        return None
    pair_docs = [value.doc_id] + [f.doc_id for f in facts if f.doc_id != value.doc_id]
    return Candidate(
        doc_id=value.doc_id, start=value.start, end=value.end, answer=value.answer,
        anchor=value.anchor, value_kind=value.kind, sentence=own.text,
        sentence_start=own.start, heading=value.heading, answer_docs=r.answer_docs,
        pair_docs=tuple(dict.fromkeys(pair_docs)), candidate_id=f"{value.doc_id}#{value.start}",
        label=value.label,
    )  # fmt: skip


def _draw(seed: int, candidate_id: str) -> bytes:
    """A seeded draw breaking ties, the same on every machine and run."""
    return hashlib.blake2b(f"{seed}\0{candidate_id}".encode(), digest_size=8).digest()


class _AnswerHolders:
    """Which documents hold each answer string as a value of its own (mutation.text.holds),
    from an index of the answers' words and word pairs built in one read of the corpus.

    An answer that is one word ('5432', 'HEAD') is held exactly where that word is one of
    a document's words (a run of word characters is a value of its own). A longer answer
    is searched for only in the documents holding its words side by side ('30' then
    'seconds'): few, where the words alone would name most of a manual."""

    def __init__(self, documents: Sequence[Document], answers: set[str]) -> None:
        self.documents = documents
        words = {w for answer in answers for w in _WORD.findall(answer)}
        pairs = {p for answer in answers for p in _pairs(_WORD.findall(answer))}
        self.postings: dict[str | tuple[str, str], list[int]] = defaultdict(list)
        for i, doc in enumerate(documents):
            found = _WORD.findall(doc.text)
            for key in words.intersection(found):
                self.postings[key].append(i)
            for key in pairs.intersection(_pairs(found)):
                self.postings[key].append(i)
        self.found: dict[str, tuple[int, ...]] = {}
        self.lowered: dict[int, str] = {}

    def of(self, answer: str) -> tuple[int, ...]:
        """The indexes of the documents holding `answer`, in corpus order."""
        if answer not in self.found:
            words = _WORD.findall(answer)
            if words == [answer]:
                self.found[answer] = tuple(self.postings[answer])
                return self.found[answer]
            keys = sorted(set(_pairs(words)) or set(words), key=lambda k: len(self.postings[k]))
            maybe = set(self.postings[keys[0]]) if keys else set(range(len(self.documents)))
            for key in keys[1:]:
                maybe.intersection_update(self.postings[key])
            texts = self.documents
            self.found[answer] = tuple(i for i in sorted(maybe) if holds(texts[i].text, answer))
        return self.found[answer]

    def with_anchor(self, answer: str, anchor: str, source: str) -> tuple[int, ...]:
        """The documents holding `answer` that may state it of `anchor`: the source, and
        those holding the anchor's first word in any case. find_facts finds a pair only in
        a statement holding both, so it finds the same facts in these as in all."""
        first = anchor.split()[0].lower()
        kept = []
        for i in self.of(answer):
            if i not in self.lowered:
                self.lowered[i] = self.documents[i].text.lower()
            if self.documents[i].doc_id == source or first in self.lowered[i]:
                kept.append(i)
        return tuple(kept)


def _pairs(words: list[str]) -> zip:
    """Each word with the word after it."""
    return zip(words, words[1:], strict=False)
