"""Generating the planted-fault corpus: eleven probes' documents and instances, plus filler.

`build_corpus` runs every registered probe of the planted family for instances 0..n-1
(each from an RNG seeded by (seed, probe, index), so instance i is the same whatever n is),
then adds filler documents until the corpus reaches its chunk target at
REFERENCE_CHUNKING, recursive 1000/0 (each probe's `chunks_per_instance` share: 795 chunks
at n=25 with all eleven probes). Probes of other families are known to the registry but
build their own corpora elsewhere. `ragaudit.corpus.files` writes the result as files a
person can open and reads them back.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ragaudit.documents import Corpus, Document
from ragaudit.errors import RagauditError
from ragaudit.probes.base import BuiltInstance, Instance, Probe
from ragaudit.probes.catalogue import PROBES, planted, probe_registry, shipped
from ragaudit.probes.filler_docs import filler_document
from ragaudit.registry import Registry, unknown_name_message
from ragaudit.stack.chunking import Chunking, chunk_document

DEFAULT_SEED = 20261129
DEFAULT_N = 25
MAX_N = 700
REFERENCE_CHUNKING = Chunking("recursive", 1000, 0)
"""The chunking the corpus is sized at (and its anchor selectivity reported at)."""


def __getattr__(name: str) -> tuple[str, ...]:
    # PROBES_IN_ORDER is derived from the probes' declarations, so it is read on first use
    # (importing every probe module), not when this module is imported.
    if name == "PROBES_IN_ORDER":
        return tuple(probe.name for probe in shipped())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class PlantedCorpus(Corpus):
    """The planted-fault corpus: its documents (the one `Corpus` type, found by id the same
    way as a user's) and the instances planted in them, with the seed and n that made them."""

    instances: tuple[Instance, ...]
    seed: int
    n: int
    probes: tuple[str, ...]
    filler_count: int

    def instances_of(self, probe: str) -> list[Instance]:
        """The instances of one probe, in order ([] for a probe this corpus left out, or
        one of another family); a name that is no probe at all is refused, so a renamed
        probe cannot read as empty."""
        if probe not in PROBES and probe not in self.probes:
            known = list(dict.fromkeys([*PROBES, *self.probes]))
            raise RagauditError(unknown_name_message("probe", probe, known))
        return [i for i in self.instances if i.probe == probe]

    @property
    def filler(self) -> list[Document]:
        """The filler documents (no probe planted anything in them)."""
        return [d for d in self.documents if d.metadata.get("source_type") == "filler"]

    def subset(self, n: int) -> PlantedCorpus:
        """The first n instances of each probe, their documents, and a proportional,
        deterministic share of the filler (the first round(filler * n / self.n))."""
        _check_n(n)
        if n >= self.n:
            return self
        keep = {i.instance_id for p in self.probes for i in self.instances_of(p)[:n]}
        filler_count = round(self.filler_count * n / self.n)
        fillers = {d.doc_id for d in self.filler[:filler_count]}
        documents = tuple(
            d
            for d in self.documents
            if d.metadata.get("instance_id") in keep or d.doc_id in fillers
        )
        instances = tuple(i for i in self.instances if i.instance_id in keep)
        return PlantedCorpus(documents, instances, self.seed, n, self.probes, filler_count)


def _check_n(n: object) -> None:
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise RagauditError(f"n must be a whole number >= 1, got {n!r}")
    if n > MAX_N:
        # Team numbers (three digits, not multiples of five) run out first.
        raise RagauditError(f"n must be at most {MAX_N} (identifiers stay unique), got {n}")


def resolve_probes(
    probes: list[str] | tuple[str, ...] | None, registry: Registry[Probe] | None = None
) -> tuple[str, ...]:
    """The planted probes named, in probe order (none named: all of them). An unknown name
    fails with the valid names and a near miss; a probe of another family is accepted and
    left to the stage that builds it."""
    registry = registry if registry is not None else probe_registry()
    for name in probes or ():
        if name not in registry:
            raise RagauditError(unknown_name_message("probe", name, registry.names()))
    return tuple(p.name for p in planted(registry) if not probes or p.name in probes)


def build_corpus(
    seed: int = DEFAULT_SEED,
    n: int = DEFAULT_N,
    probes: list[str] | tuple[str, ...] | None = None,
    registry: Registry[Probe] | None = None,
) -> PlantedCorpus:
    """Generate the corpus: n instances of each chosen planted probe of `registry` (default:
    the shipped probes), then filler to the chunk target."""
    _check_n(n)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise RagauditError(f"seed must be a whole number, got {seed!r}")
    registry = registry if registry is not None else probe_registry()
    names = resolve_probes(probes, registry)
    chosen = [registry.get(name) for name in names]
    documents: list[Document] = []
    instances: list[Instance] = []
    for probe in chosen:
        name = probe.name
        for index in range(n):
            built = probe.build(random.Random(f"{seed}/{name}/{index}"), index, seed)
            _check_built(built, name)
            documents.extend(built.documents)
            instances.append(built.instance)
    # Filler until the chunk target: so the retrieval index is realistically crowded.
    chunks = sum(len(chunk_document(d, REFERENCE_CHUNKING)) for d in documents)
    target = round(n * sum(probe.chunks_per_instance for probe in chosen))
    filler_count = 0
    while chunks < target:
        doc = filler_document(seed, filler_count)
        documents.append(doc)
        chunks += len(chunk_document(doc, REFERENCE_CHUNKING))
        filler_count += 1
    corpus = PlantedCorpus(tuple(documents), tuple(instances), seed, n, names, filler_count)
    _check_corpus(corpus)
    return corpus


def _check_built(built: BuiltInstance, probe: str) -> None:
    instance = built.instance
    if instance.probe != probe:
        raise AssertionError(f"builder {probe} made an instance of {instance.probe}")
    texts = {d.doc_id: d.text for d in built.documents}
    for span in (*instance.gold_spans, *instance.trap_spans, *instance.extra_spans):
        if texts.get(span.doc_id, "")[span.start : span.end] != span.text:
            raise AssertionError(f"{instance.instance_id}: {span.role} span is not at its offsets")


def _check_corpus(corpus: PlantedCorpus) -> None:
    """Ids unique; no filler mentions a question's anchor or answer."""
    ids = [d.doc_id for d in corpus.documents]
    if len(ids) != len(set(ids)):
        raise AssertionError("duplicate document ids")
    filler_text = "\n".join(d.text.lower() for d in corpus.filler)
    for instance in corpus.instances:
        needles = [instance.anchor or ""]
        gold = instance.gold_answer
        needles += gold if isinstance(gold, list) else []
        needles += [instance.grading.get("subject", "")]
        needles += [str(instance.meta.get(k, "")) for k in ("subject", "rule", "zone")]
        for needle in filter(None, needles):
            if needle.lower() in filler_text:
                raise AssertionError(f"filler mentions {needle!r} of {instance.instance_id}")
