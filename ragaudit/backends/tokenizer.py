"""A local generator's own tokenizer, read from its GGUF without loading the model: what
`--dry-run` counts prompt tokens with.

xllamacpp loads a whole model to tokenize (no vocab-only load), so the GGUF's metadata is
read here in pure Python (the header holds the vocabulary, the BPE merges, the token types
and the chat template; the tensors after it are never touched) and built into a
`tokenizers` byte-level BPE that splits text as llama.cpp's `qwen2` pre-tokenizer does. The
chat template is rendered with Jinja as llama.cpp renders it, so a prompt's count is that
of the text the model evaluates. Building it takes about a second; `local_tokenizer` builds
each model's once per process. tests/test_cli_dry_run_tokens.py checks the counts against
llama.cpp's own /tokenize.
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from ragaudit import paths

# llama.cpp's `qwen2` pre-tokenizer (llama-vocab.cpp), which Qwen2's tokenizer.json spells so.
QWEN2_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)
TOKENIZER_KEYS = ("tokenizer.ggml.tokens", "tokenizer.ggml.merges", "tokenizer.ggml.token_type")
CONTROL, USER_DEFINED = 3, 4  # llama.cpp's token types that the text's specials parse as
_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q",
            12: "d"}  # fmt: skip
STRING, ARRAY = 8, 9


def read_gguf_metadata(path: Path) -> dict[str, Any]:
    """Every metadata key of a GGUF (v2 or v3) and its value; the tensors are not read."""
    with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as m:
        if m[:4] != b"GGUF":
            raise ValueError(f"{path}: not a GGUF file")
        version, _tensors, count = struct.unpack_from("<IQQ", m, 4)
        if version < 2:
            raise ValueError(f"{path}: GGUF version {version} is not read (2 or 3 are)")
        at, metadata = 24, {}
        for _ in range(count):
            key, at = _string(m, at)
            (kind,), at = struct.unpack_from("<I", m, at), at + 4
            metadata[key], at = _value(m, at, kind)
        return metadata


def _string(m: mmap.mmap, at: int) -> tuple[str, int]:
    (length,) = struct.unpack_from("<Q", m, at)
    return m[at + 8 : at + 8 + length].decode("utf-8", errors="replace"), at + 8 + length


def _value(m: mmap.mmap, at: int, kind: int) -> tuple[Any, int]:
    if kind == STRING:
        return _string(m, at)
    if kind == ARRAY:
        inner, length = struct.unpack_from("<IQ", m, at)
        at += 12
        if inner in _SCALARS:  # a numeric array in one unpack
            fmt = f"<{length}{_SCALARS[inner]}"
            return list(struct.unpack_from(fmt, m, at)), at + struct.calcsize(fmt)
        values = []
        for _ in range(length):
            value, at = _value(m, at, inner)
            values.append(value)
        return values, at
    fmt = "<" + _SCALARS[kind]
    return struct.unpack_from(fmt, m, at)[0], at + struct.calcsize(fmt)


@dataclass(frozen=True)
class GgufTokenizer:
    """A GGUF model's tokenizer and chat template."""

    tokenizer: Any
    """A `tokenizers.Tokenizer` (byte-level BPE, the specials added)."""
    chat_template: str
    bos_token: str
    eos_token: str

    def count(self, text: str) -> int:
        """Tokens of `text` as llama.cpp tokenizes it (specials parsed, no BOS added)."""
        return len(self.tokenizer.encode(text, add_special_tokens=False).ids)

    def render(self, messages: list[dict]) -> str:
        """The prompt text the chat template makes of `messages`, the assistant's turn open."""
        from jinja2.sandbox import ImmutableSandboxedEnvironment

        environment = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
        template = environment.from_string(self.chat_template)
        return template.render(messages=messages, add_generation_prompt=True,
                               bos_token=self.bos_token, eos_token=self.eos_token)  # fmt: skip

    def count_prompt(self, messages: list[dict]) -> int:
        """Tokens the model evaluates for the chat `messages`."""
        return self.count(self.render(messages))


def build_tokenizer(path: Path) -> GgufTokenizer:
    """The tokenizer of the GGUF at `path` (a `gpt2` BPE vocabulary, as Qwen2.5's is)."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers

    meta = read_gguf_metadata(path)
    if meta.get("tokenizer.ggml.model") != "gpt2":
        raise ValueError(f"{path}: tokenizer {meta.get('tokenizer.ggml.model')!r} is not BPE")
    tokens, types = meta["tokenizer.ggml.tokens"], meta["tokenizer.ggml.token_type"]
    merges = [tuple(merge.split(" ", 1)) for merge in meta["tokenizer.ggml.merges"]]
    vocab = {token: index for index, token in enumerate(tokens)}
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=merges, ignore_merges=False))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(QWEN2_SPLIT), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    specials = [t for t, kind in zip(tokens, types, strict=True) if kind in (CONTROL, USER_DEFINED)]
    tokenizer.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in specials])

    def named(key: str) -> str:
        index = meta.get(key)
        return tokens[index] if isinstance(index, int) and index < len(tokens) else ""

    return GgufTokenizer(
        tokenizer,
        meta.get("tokenizer.chat_template", ""),
        named("tokenizer.ggml.bos_token_id"),
        named("tokenizer.ggml.eos_token_id"),
    )


@cache
def local_tokenizer(spec: str) -> GgufTokenizer | None:
    """The tokenizer of the local generator `spec` (`local:qwen2.5-<size>`), built once per
    process; None for any other spec, or where its GGUF is not assembled yet (a dry run
    assembles nothing)."""
    from ragaudit.backends.qwen import weights_for

    weights = weights_for(spec)
    if weights is None:
        return None
    path = paths.models_dir() / weights.file_name
    if not path.exists():
        return None
    try:
        import tokenizers  # noqa: F401  (a dependency of the embedders; estimated without it)
    except ImportError:
        return None
    return build_tokenizer(path)
