"""The prompt tokens a run's answer prompts would hold, told before retrieval has run (what
`--dry-run` prints beside each generation line).

A prompt is a fixed part (the system message, the template, the question and the model's
chat template around them), which is known now, and the k retrieved chunks, which are not.
The fixed part is counted exactly with a local generator's own tokenizer
(backends.tokenizer); the chunks are estimated as k times the mean token count of the
chunking's chunks, each with its label and separator. So the total is always an estimate,
and says which part is exact. A remote generator's tokenizer is not at hand: its prompts
are estimated at 4 characters a token, and said to be.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragaudit.backends.tokenizer import local_tokenizer
from ragaudit.runner.generate import build_messages, prompt_used

CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class PromptTokens:
    """The estimated prompt tokens of a set of answer prompts, and how they were counted."""

    total: int
    how: str


def answer_prompt_tokens(
    spec: str, columns: Sequence[tuple[Sequence[str], int, Sequence[str]]], prompt: dict | None
) -> PromptTokens:
    """The tokens of one answer prompt per question of each (questions, k, chunk texts) of
    `columns` (a config's or stack's questions, its k and every chunk its chunking cut; no
    texts: a retriever's own chunks, not counted), with ragaudit's prompt or a stack's
    `prompt:` entry, for generator `spec`."""
    tokenizer = local_tokenizer(spec)
    if tokenizer is not None:
        count_prompt, count_text = tokenizer.count_prompt, tokenizer.count
        source = f"{spec}'s own tokenizer"
    else:
        count_prompt, count_text = _by_characters_prompt, _by_characters
        source = f"4 characters a token ({_why_not_local(spec)})"
    every = [q for questions, _, _ in columns for q in questions]
    fixed = {q: count_prompt(build_messages(q, [], prompt)) for q in dict.fromkeys(every)}
    fixed_total = sum(fixed[q] for q in every)
    chunk_total, unknown = 0.0, 0
    used = prompt_used(prompt)
    label = used["chunk_label"].format(n=1)
    for questions, k, texts in columns:
        if not texts:
            unknown += 1
            continue
        counts = [count_text(f"{label} {t.strip()}{used['separator']}") for t in texts]
        chunk_total += k * sum(counts) / len(counts) * len(questions)
    how = f"{len(every):,} answer prompts, oracle prompts not counted; "
    how += f"estimated: system message, template and question counted with {source}, "
    how += f"{fixed_total:,}; the k retrieved chunks at k x the mean chunk, {round(chunk_total):,}"
    if unknown:
        how += "; your retriever's chunks not counted (they are its own)"
    return PromptTokens(fixed_total + round(chunk_total), how)


def _why_not_local(spec: str) -> str:
    from ragaudit.backends.qwen import weights_for

    if weights_for(spec) is not None:
        return "its weights are not assembled yet"
    return "not the generator's tokenizer: it is not local"


def _by_characters(text: str) -> int:
    return round(len(text) / CHARS_PER_TOKEN)


def _by_characters_prompt(messages: list[dict]) -> int:
    return _by_characters("".join(m["content"] for m in messages))
