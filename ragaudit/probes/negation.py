"""negation: one item in two stores with opposite polarity.

The two planted sentences differ only by an opaque store code and the word "not"; the
documents around them differ as documents do, in their headers and filler. The question
asks about the store where the item is not permitted, so the gold sentence is the negated
one and the trap its affirmative twin.
"""

from __future__ import annotations

import random

from ragaudit.probes.base import BuiltInstance, Diagnostic, Instance, Probe
from ragaudit.probes.codes import store_code
from ragaudit.probes.common import instance_id, metadata, short_document
from ragaudit.probes.facts import allocate
from ragaudit.probes.pools import NEGATION_SUBJECTS
from ragaudit.probes.text import Planted

NAME = "negation"
SENTENCES = (
    "{Subject} are {polarity} in store {store}.",
    "Under the handling rules, {subject} are {polarity} in store {store}.",
    "In store {store}, {subject} are {polarity} on any shelf.",
)
TITLES = (
    "Store {store}: handling rules",
    "Store {store}: what may be kept here",
    "Store {store}: stock guidance",
    "Handling notes for store {store}",
)


def build(rng: random.Random, index: int, seed: int) -> BuiltInstance:
    """A negated sentence for the asked store, its affirmative twin for another store."""
    iid = instance_id(NAME, index)
    asked, other = store_code(seed, index, 0), store_code(seed, index, 1)
    subject = NEGATION_SUBJECTS[allocate(seed, "negation", index, len(NEGATION_SUBJECTS))]
    template = rng.choice(SENTENCES)

    def sentence(store: str, polarity: str) -> str:
        """The planted sentence: identical for both stores but for the code and "not"."""
        return template.format(
            Subject=subject[0].upper() + subject[1:],
            subject=subject,
            store=store,
            polarity=polarity,
        )

    docs, spans = {}, {}
    suffixes = ["a", "b"]
    rng.shuffle(suffixes)
    for suffix, store, polarity, role in (
        (suffixes[0], asked, "not permitted", "gold"),
        (suffixes[1], other, "permitted", "trap"),
    ):
        title = rng.choice(TITLES).format(store=store)
        doc, (span,) = short_document(
            rng,
            f"{iid}-{suffix}",
            title,
            [Planted(sentence(store, polarity), role)],
            metadata(NAME, iid, title, store=store),
        )
        docs[suffix], spans[role] = doc, span
    instance = Instance(
        probe=NAME,
        layer="embedding",
        instance_id=iid,
        question=f"Are {subject} permitted in store {asked}?",
        gold_answer="not permitted",
        gold_spans=(spans["gold"],),
        trap_spans=(spans["trap"],),
        answer_doc_ids=(spans["gold"].doc_id,),
        anchor=f"store {asked}",
        grading={
            "kind": "polarity",
            "expected": "not permitted",
            "subject": subject,
            "store": asked,
        },
        meta={
            "affirmative_store": other,
            "affirmative_doc": spans["trap"].doc_id,
            "negated_store": asked,
            "negated_doc": spans["gold"].doc_id,
            "subject": subject,
        },
    )
    return BuiltInstance((docs["a"], docs["b"]), instance)


PROBE = Probe(
    name=NAME,
    layer="embedding",
    description="opposite polarity in two stores",
    build=build,
    slot=10,
    answer_position=2,
    diagnostics=(
        Diagnostic("affirmative_first", "ragaudit.stack.measures:affirmative_first", column=5),
    ),
)
