"""Prefix reuse along segments: prompts sharing their first context chunk form a segment,
evaluated in prefix order from its first prompt evaluated whole, so a reply does not depend
on where a run was resumed or which engine computed it. The real 0.5B model: a second engine
that computes only a segment's third prompt first rebuilds the segment and then reuses
exactly the tokens the uninterrupted engine reused, with the same reply."""

from __future__ import annotations

import pytest

from ragaudit.backends.qwen import QwenEngine
from ragaudit.runner.generate import build_messages, prefix_order, reuse_chains, segment_key

POLICY = "Current policy for site EB-4: inspect every 38 days, and log it in the site book."
ROTA = "The canteen rota changes every Monday; the night shift keeps its own list."
AUDIT = "Site EB-9 is audited every 14 days by the regional office."
QUESTION = "How often is site EB-4 inspected?"


def _prompt(*texts: str, question: str = QUESTION) -> list[dict]:
    return build_messages(question, [{"chunk_id": str(i), "text": t} for i, t in enumerate(texts)])


def test_a_segment_is_the_run_of_prompts_sharing_their_first_chunk():
    k1, k2, k3 = _prompt(POLICY), _prompt(POLICY, ROTA), _prompt(POLICY, ROTA, AUDIT)
    other = _prompt(AUDIT, POLICY)
    ordered = [m for _, m in prefix_order([("a", k3), ("b", other), ("c", k1), ("d", k2)])]
    # sorted by text: "[c1] Current…" before "[c1] Site…"; after the first chunk
    # "\n\nQuestion" (Q, 0x51) sorts before "\n\n[c2]" ([, 0x5b): k=1, k=2, k=3
    assert ordered == [k1, k2, k3, other]
    assert reuse_chains(ordered) == [(), (k1,), (k1, k2), ()]
    assert segment_key(k1) == segment_key(k3) != segment_key(other)
    # a chunk holding a blank line stays one chunk: only the next label or the question ends it
    two_paragraphs = _prompt("Para one.\n\nPara two.", ROTA)
    assert segment_key(two_paragraphs)[-1].endswith("Para one.\n\nPara two.")


@pytest.fixture(scope="module")
def engines():
    """Two engines of the 0.5B model, one thread each (cheap; threads do not matter here)."""
    return QwenEngine("0.5b", threads=1), QwenEngine("0.5b", threads=1)


@pytest.mark.slow
def test_a_reply_is_the_same_however_the_segment_was_reached(engines):
    whole_run, resumed = engines
    params = whole_run.effective_params({"max_tokens": 12})
    ordered = [_prompt(POLICY), _prompt(POLICY, ROTA), _prompt(POLICY, ROTA, AUDIT)]
    chains = reuse_chains(ordered)
    pairs = zip(ordered, chains, strict=True)
    uninterrupted = [whole_run.chat_measured(m, params, c) for m, c in pairs]
    assert [u["warm_up_tokens_evaluated"] for _, u in uninterrupted] == [0, 0, 0]
    first = uninterrupted[0][1]
    assert first["prompt_tokens_evaluated"] == first["prompt_tokens"]  # evaluated whole
    third = uninterrupted[2][1]
    assert third["prompt_tokens_evaluated"] < third["prompt_tokens"]  # reused the shared part

    # a resumed run: only the third prompt left to compute, on an engine that saw nothing
    text, usage = resumed.chat_measured(ordered[2], params, chains[2])
    assert usage["warm_up_tokens_evaluated"] > 0  # it rebuilt the segment first
    assert usage["prompt_tokens_evaluated"] == third["prompt_tokens_evaluated"]
    assert text == uninterrupted[2][0]


@pytest.mark.slow
def test_no_segment_means_the_prompt_is_evaluated_whole(engines):
    engine = engines[0]
    params = engine.effective_params({"max_tokens": 4})
    engine.chat_measured(_prompt(POLICY, ROTA), params, ())
    usage = engine.chat_measured(_prompt(POLICY), params, ())[1]
    assert usage["prompt_tokens_evaluated"] == usage["prompt_tokens"]
