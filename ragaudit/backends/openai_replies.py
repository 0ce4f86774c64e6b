"""Reading an OpenAI-compatible server's replies strictly: what cannot be trusted is a
failed call with a reason, never a stored answer.

- `/embeddings`: one item per text asked. Their `index` values must be the integers
  0..n-1, each once (a permutation: the reply may come in any order). Items without an
  `index` are read in order only when one text was asked; in a longer reply they would let
  a server that reorders its items put vectors on the wrong texts unnoticed. Each
  `embedding` is a list of finite numbers of one length.
- `/chat/completions`: the first choice's `message.content` must be a string; `null` (or
  no message) is a failed call, not an empty reply (which would be stored and replayed).

The errors raised here are built from the reply and are described by the server's
redacting formatter (openai_http.OpenAIServer.request), never shown raw.
"""

from __future__ import annotations

import math

import numpy as np


class BadReply(ValueError):
    """A reply that cannot be taken as the answer to what was asked."""


def embedding_vectors(reply: object, asked: int) -> np.ndarray:
    """The (asked, dimensions) float64 matrix a /embeddings reply gives, rows in the order
    the texts were sent."""
    data = reply.get("data") if isinstance(reply, dict) else None
    if not isinstance(data, list) or len(data) != asked:
        got = f"{len(data)} items" if isinstance(data, list) else "no list of items"
        raise BadReply(f"asked for {asked} vectors, got {got}")
    if not all(isinstance(item, dict) for item in data):
        raise BadReply("a reply item is not an object")
    order = _order(data, asked)
    rows = [_components(data[position].get("embedding")) for position in order]
    lengths = {len(row) for row in rows}
    if len(lengths) != 1 or 0 in lengths:
        raise BadReply(f"the vectors have lengths {sorted(lengths)}, not one length")
    return np.array(rows, dtype=np.float64)


def _order(data: list[dict], asked: int) -> list[int]:
    """The position in `data` of each text's item, in the order the texts were sent."""
    indexes = [item.get("index") for item in data]
    if all(index is None for index in indexes):
        if asked == 1:
            return [0]
        raise BadReply(f"the {asked} items carry no index: which vector is whose is unknown")
    if not all(type(index) is int for index in indexes):
        kinds = sorted({type(index).__name__ for index in indexes if type(index) is not int})
        raise BadReply(f"item indexes must be integers, got {', '.join(kinds)}")
    if sorted(indexes) != list(range(asked)):
        missing = sorted(set(range(asked)) - set(indexes))
        repeated = sorted({index for index in indexes if indexes.count(index) > 1})
        raise BadReply(
            f"item indexes are not 0..{asked - 1} each once (missing {missing[:5]}, "
            f"repeated {repeated[:5]})"
        )
    position = {index: at for at, index in enumerate(indexes)}
    return [position[index] for index in range(asked)]


def _components(embedding: object) -> list[float]:
    if not isinstance(embedding, list):
        raise BadReply(f"an embedding is {type(embedding).__name__}, not a list of numbers")
    if not all(type(value) in (int, float) for value in embedding):
        raise BadReply("an embedding holds something other than numbers")
    try:
        values = [float(value) for value in embedding]
    except OverflowError:
        values = [math.inf]
    if not all(math.isfinite(value) for value in values):
        raise BadReply("an embedding holds NaN or infinity")
    return values


def chat_text(reply: object) -> str:
    """The first choice's reply text of a /chat/completions reply."""
    choices = reply.get("choices") if isinstance(reply, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise BadReply("the reply has no choices")
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        shown = "null" if content is None else type(content).__name__
        raise BadReply(f"the reply's message content is {shown}, not text")
    return content
