"""Generation: the prompt (NOT_IN_CONTEXT instruction, chunk citations) and the calls that
fill each instance record's `generation` and its `oracle` (the same prompt over only the
chunks holding the gold spans), every distinct prompt generated once."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator

from ragaudit.backends.concurrency import DEFAULT_WORKERS
from ragaudit.errors import ModelCallFailed, RagauditError
from ragaudit.stack.oracle import chunk_id_index, oracle_chunk_ids

ABSTAIN_TOKEN = "NOT_IN_CONTEXT"
# Kept short on purpose: every prompt token costs ~10 ms of evaluation on the 0.5B model.
SYSTEM_PROMPT = (
    "Answer the question using only the context. Give the exact value or items, and cite "
    "the chunk you used like [c1]. If the context does not contain the answer, reply "
    f"exactly {ABSTAIN_TOKEN}."
)
DEFAULT_GEN_PARAMS: dict = {"max_tokens": 128}
_LABEL_RE = re.compile(r"\[([^\[\]\n]{1,300})\]")


def citation_label(rank_index: int) -> str:
    """The short per-prompt label for the chunk at 0-based position `rank_index` (c1, c2...).

    Full chunk ids are long and a small model mangles them; the label -> id mapping is
    deterministic from rank order and stored on each generation record.
    """
    return f"c{rank_index + 1}"


DEFAULT_TEMPLATE = "Context:\n{context}\n\nQuestion: {question}"
DEFAULT_CHUNK_LABEL = "[c{n}]"


def prompt_used(prompt: dict | None) -> dict:
    """The prompt a generation runs with, as the results file records it: a stack file's
    `prompt:` entry over ragaudit's defaults (SYSTEM_PROMPT, DEFAULT_TEMPLATE, [c1]...)."""
    prompt = prompt or {}
    system = prompt.get("system")
    return {
        "system": SYSTEM_PROMPT if system is None else system,
        "template": prompt.get("template") or DEFAULT_TEMPLATE,
        "chunk_label": prompt.get("chunk_label") or DEFAULT_CHUNK_LABEL,
        "separator": prompt.get("separator", "\n\n"),
        "default": not prompt,
    }


def build_messages(question: str, chunks: list[dict], prompt: dict | None = None) -> list[dict]:
    """Chat messages for one question over `chunks` ({"chunk_id", "text"}, rank order),
    with ragaudit's prompt or a stack file's `prompt:` entry (its template, system message
    and chunk label; an empty system message sends none). The chunk label's {n} is the
    chunk's rank, which parse_citations reads back as [c<n>] or [<n>]."""
    if prompt is None:
        context = "\n\n".join(
            f"[{citation_label(i)}] {chunk['text'].strip()}" for i, chunk in enumerate(chunks)
        )
        user = f"Context:\n{context}\n\nQuestion: {question.strip()}"
        return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]
    used = prompt_used(prompt)
    context = used["separator"].join(
        f"{used['chunk_label'].format(n=i + 1)} {chunk['text'].strip()}"
        for i, chunk in enumerate(chunks)
    )
    user = used["template"].format(context=context, question=question.strip())
    system = [{"role": "system", "content": used["system"]}] if used["system"] else []
    return [*system, {"role": "user", "content": user}]


def parse_citations(reply: str, labels: dict[str, str]) -> list[str]:
    """Chunk ids cited in `reply`, in order, deduplicated. Accepts [c2], [c1, c3], [C2]
    and full chunk ids in brackets; a label that names no prompt chunk is kept verbatim,
    so the citation check can report it as unresolvable."""
    known_ids = set(labels.values())
    cited: list[str] = []
    for group in _LABEL_RE.findall(reply or ""):
        for part in re.split(r"[,;]|\band\b", group):
            token = part.strip()
            if not token:
                continue
            chunk_id = labels.get(token.lower()) or (token if token in known_ids else None)
            # Small models drop or pad the label: [1], [chunk 1], [Chunk c1] for [c1].
            loose = re.fullmatch(r"(?:chunk\s*)?c?\s*(\d+)", token, flags=re.IGNORECASE)
            if chunk_id is None and loose and int(loose.group(1)) > 0:
                label = citation_label(int(loose.group(1)) - 1)
                # A bare number that names no prompt chunk ([55]) is a value, not a citation.
                bare = token.isdigit()
                chunk_id = labels.get(label) or (None if bare else label)
            if chunk_id is not None and chunk_id not in cited:
                cited.append(chunk_id)
    return cited


def prompt_sha256(messages: list[dict], params: dict) -> str:
    """A stable id of one prompt (messages + generation parameters)."""
    payload = json.dumps({"messages": messages, "params": params}, sort_keys=True)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _record_chunks(record: dict, chunks_by_id: dict) -> list[dict]:
    hits = sorted(record.get("retrieved") or [], key=lambda hit: hit.get("rank", 0))
    texts = {hit["chunk_id"]: hit["text"] for hit in hits if hit.get("text") is not None}
    return _chunk_texts(record, [hit["chunk_id"] for hit in hits], chunks_by_id, texts)


def _chunk_texts(
    record: dict, chunk_ids: list[str], chunks_by_id: dict, texts: dict | None = None
) -> list[dict]:
    """{"chunk_id", "text"} for each id, in order; a chunk without text names the record."""
    chunks = []
    for chunk_id in chunk_ids:
        text = (texts or {}).get(chunk_id)
        if text is None:
            text = (chunks_by_id.get(chunk_id) or {}).get("text")
        if text is None:
            raise RagauditError(f"instance {record.get('key')}: chunk {chunk_id!r} has no text")
        chunks.append({"chunk_id": chunk_id, "text": text})
    return chunks


def _failed(generator_spec: str, sha: str | None, error: str) -> dict:
    return {
        "generator": generator_spec,
        "prompt_sha256": sha,
        "status": "failed_call",
        "reply": None,
        "error": error,
        "citations": [],
        "citation_labels": {},
        "replayed": False,
        "usage": None,
    }


def select_records(
    records: Iterable[dict], gen_configs: Iterable[str], gen_probes: Iterable[str] | None
) -> list[dict]:
    """The records generation runs on: config in `gen_configs`, probe in `gen_probes`."""
    configs = set(gen_configs)
    probes = set(gen_probes) if gen_probes is not None else None
    return [
        r
        for r in records
        if r.get("config") in configs and (probes is None or r.get("probe") in probes)
    ]


def generate_records(
    records: list[dict],
    chunks_by_id: dict,
    generator,
    *,
    gen_configs: Iterable[str],
    gen_probes: Iterable[str] | None = None,
    progress: Callable[[int, int, int], None] | None = None,
    params: dict | None = None,
    chunk_offsets: dict | None = None,
    workers: int = DEFAULT_WORKERS,
    prompt: dict | None = None,
) -> dict:
    """Fill record["generation"] and record["oracle"] for the selected records (see
    `select_records`), with ragaudit's prompt or `prompt` (a stack file's entry).

    Each record asks one prompt over its retrieved chunks and, when it has gold spans, one
    over its oracle context (stack.oracle, read from `chunk_offsets` and `chunks_by_id`),
    stored as record["oracle"] = {"chunk_ids", "generation", "grade": None}; else
    record["oracle"] is None. Both kinds go into one pool of distinct prompts, each
    generated once and shared (the call cache also replays across runs). A ModelCallFailed
    is recorded as status "failed_call" with its error, never dropped; a record whose
    retrieval failed is recorded the same way, with no oracle. A remote generator has up to
    `workers` prompts in flight (a local one runs them one by one, in prefix order); the
    records, the cache and the counts are the same either way. Returns counts: {"records",
    "prompts", "computed", "replayed", "failed", "oracle_records", "oracle_prompts",
    "tokens"} (token_totals).
    """
    params = dict(DEFAULT_GEN_PARAMS if params is None else params)
    spec = getattr(generator, "spec", type(generator).__name__)
    selected = select_records(records, gen_configs, gen_probes)
    pool = _prompt_pool(selected, chunks_by_id, chunk_offsets or {}, params, spec, prompt)
    prompts = [(sha, entry["messages"]) for sha, entry in pool.items()]
    ordered = prefix_order(prompts)
    outcomes = _run_prompts(generator, ordered, params, spec, progress, workers)
    for sha, entry in pool.items():
        for record, labels, slot in entry["uses"]:
            generation = dict(outcomes[sha])
            generation["citation_labels"] = labels
            if generation["status"] == "ok":
                generation["citations"] = parse_citations(generation["reply"], labels)
            if slot == "oracle":
                record["oracle"]["generation"] = generation
            else:
                record["generation"] = generation
    counts = {"records": len(selected), "prompts": len(pool)}
    counts.update(computed=0, replayed=0, failed=0)
    for outcome in outcomes.values():
        failed, replayed = outcome["status"] == "failed_call", outcome["replayed"]
        counts["failed" if failed else "replayed" if replayed else "computed"] += 1
    counts["oracle_records"] = sum(1 for r in selected if r.get("oracle"))
    counts["oracle_prompts"] = sum(
        1 for entry in pool.values() if any(slot == "oracle" for *_, slot in entry["uses"])
    )
    counts["tokens"] = token_totals(outcomes.values())
    return counts


def token_totals(outcomes: Iterable[dict]) -> dict:
    """The tokens the distinct prompts cost where the generator measured them (each
    prompt once, a replayed one as it cost when computed): the prompts' tokens, those
    evaluated (the rest reused from the previous prompt's prefix), those generated and those
    evaluated to rebuild a reuse segment's prefix where a run resumed or a worker started
    mid-segment, with how many prompts were measured."""
    measured = [o["usage"] for o in outcomes if o.get("usage")]
    totals = {"prompts_measured": len(measured)}
    names = ("prompt_tokens", "prompt_tokens_evaluated", "generated_tokens")
    for name in (*names, "warm_up_tokens_evaluated"):
        totals[name] = sum(int(usage.get(name, 0)) for usage in measured)
    return totals


def _prompt_pool(
    selected: list[dict],
    chunks_by_id: dict,
    chunk_offsets: dict,
    params: dict,
    spec: str,
    prompt: dict | None = None,
) -> dict[str, dict]:
    """sha -> {"messages", "uses": [(record, citation labels, "generation"|"oracle")]}, in
    the order records first ask each prompt. Records whose retrieval failed get their
    failed generation here and ask nothing."""
    ids = chunk_id_index(chunks_by_id)
    pool: dict[str, dict] = {}

    def ask(record: dict, chunks: list[dict], slot: str) -> None:
        messages = build_messages(record["question"], chunks, prompt)
        labels = {citation_label(i): c["chunk_id"] for i, c in enumerate(chunks)}
        entry = pool.setdefault(prompt_sha256(messages, params), {"messages": messages, "uses": []})
        entry["uses"].append((record, labels, slot))

    for record in selected:
        record["oracle"] = None
        if record.get("retrieval_error"):
            error = f"retrieval failed, nothing to generate from: {record['retrieval_error']}"
            record["generation"] = _failed(spec, None, error)
            continue
        ask(record, _record_chunks(record, chunks_by_id), "generation")
        oracle_ids = oracle_chunk_ids(record, chunk_offsets, ids)
        if oracle_ids:
            record["oracle"] = {"chunk_ids": oracle_ids, "generation": None, "grade": None}
            ask(record, _chunk_texts(record, oracle_ids, chunks_by_id), "oracle")
    return pool


def distinct_prompts(
    records: list[dict], chunks_by_id: dict, chunk_offsets: dict, params: dict, spec: str
) -> list[tuple[str, list[dict]]]:
    """The distinct prompts (sha, messages), regular and oracle, that `records` ask, in the
    order they first ask them: what generate_records runs (after prefix_order)."""
    pool = _prompt_pool(records, chunks_by_id, chunk_offsets, params, spec)
    return [(sha, entry["messages"]) for sha, entry in pool.items()]


def prefix_order(prompts: list[tuple[str, list[dict]]]) -> list[tuple[str, list[dict]]]:
    """The prompts sorted by their text, so that each runs next to the one it shares the
    longest prefix with (a sorted list puts every string beside its longest-prefix
    neighbour). llama.cpp keeps the previous prompt's evaluated tokens and evaluates only
    what differs: after its question's k=3 prompt a k=8 one over the same ranking pays for
    five chunks, and an oracle prompt sorts just before the regular prompt whose first
    chunk is its gold chunk. The order depends only on the set of prompts (the sha breaks
    ties), so the same run gives the same sequence."""
    return sorted(prompts, key=lambda p: ("\x00".join(m["content"] for m in p[1]), p[0]))


def segment_key(messages: list[dict]) -> tuple[str, ...]:
    """What a prompt's reuse segment is named by: its messages up to the end of its first
    context chunk (build_messages: "Context:\n[c1] ...", then "\n\n[c2] " or the question)."""
    *before, last = [m["content"] for m in messages]
    first_chunk = last.split("\n\n[c2] ", 1)[0].split("\n\nQuestion: ", 1)[0]
    return (*before, first_chunk)


def reuse_chains(ordered: list[list[dict]]) -> list[tuple[list[dict], ...]]:
    """For each prompt of `ordered` (prefix order), the prompts before it in its reuse
    segment: the run of neighbours sharing its first context chunk. A segment's first
    prompt is evaluated whole and each next one reuses the prefix it shares with the one
    before (backends.qwen), so a reply depends on its segment only, never on where a run
    was resumed or which worker computed it; a segment's first prompt reuses nothing, at
    the cost of re-evaluating the short instruction before the context."""
    chains: list[tuple[list[dict], ...]] = []
    segment: tuple[list[dict], ...] = ()
    key = None
    for messages in ordered:
        if (named := segment_key(messages)) != key:
            segment, key = (), named
        chains.append(segment)
        segment = (*segment, messages)
    return chains


def _run_prompts(
    generator,
    prompts: list[tuple[str, list[dict]]],
    params: dict,
    spec: str,
    progress: Callable[[int, int, int], None] | None,
    workers: int = DEFAULT_WORKERS,
) -> dict[str, dict]:
    """Generate each distinct prompt (sha, messages) once, in the order given; returns
    sha -> outcome. Progress counts the whole pool: (done, total, replayed so far)."""
    outcomes: dict[str, dict] = {}
    replayed = 0
    for done, (sha, outcome) in enumerate(_replies(generator, prompts, params, workers), 1):
        outcomes[sha] = _outcome(outcome, spec, sha)
        replayed += bool(outcomes[sha]["replayed"])
        if progress is not None:
            progress(done, len(prompts), replayed)
    return outcomes


def _replies(
    generator, prompts: list[tuple[str, list[dict]]], params: dict, workers: int
) -> Iterator[tuple[str, object]]:
    """(sha, CallResult | ModelCallFailed | plain reply text) per prompt, in order. A
    cache-aware generator keeps up to `workers` calls in flight when its engine is remote
    (backends.concurrency), and stores, counts and fails them as a serial run does."""
    if hasattr(generator, "generate_each"):
        chains = reuse_chains([messages for _, messages in prompts])
        requests = [(m, params, after) for (_, m), after in zip(prompts, chains, strict=True)]
        replies = generator.generate_each(requests, workers=workers)
        yield from zip((sha for sha, _ in prompts), replies, strict=True)
        return
    for sha, messages in prompts:  # a plain Generator: one call at a time
        try:
            yield sha, generator.generate(messages, params)
        except ModelCallFailed as error:
            yield sha, error


def failed_calls(records: Iterable[dict], generator_spec: str) -> list[dict]:
    """The conditions' `failed_calls` entries for generation: one per kind ("generate",
    "generate_oracle") and distinct error, with the keys of the records it failed."""
    by_error: dict[tuple[str, str], list[str]] = {}
    for record in records:
        oracle = record.get("oracle") or {}
        for kind, generation in (
            ("generate", record.get("generation")),
            ("generate_oracle", oracle.get("generation")),
        ):
            if (generation or {}).get("status") == "failed_call":
                by_error.setdefault((kind, str(generation.get("error"))), []).append(record["key"])
    return [
        {"model": generator_spec, "kind": kind, "error": error, "instance_keys": keys}
        for (kind, error), keys in by_error.items()
    ]


def _outcome(reply, spec: str, sha: str) -> dict:
    """The generation entry for one prompt's reply (or the ModelCallFailed it cost)."""
    if isinstance(reply, ModelCallFailed):
        return _failed(spec, sha, str(reply))
    if isinstance(reply, str):
        text, replayed, usage = reply, False, None
    else:
        text, replayed, usage = reply.text, reply.replayed, reply.usage
    return {
        "generator": spec,
        "prompt_sha256": sha,
        "status": "ok",
        "reply": text,
        "error": None,
        "citations": [],
        "replayed": bool(replayed),
        "usage": usage,  # tokens, as measured when computed (None: not measured)
    }
