"""The pipeline benchmarks of issue 26, each beside its baseline in the same run:

1. Adapter overhead: questions per second through `pipeline:` against calling the same
   pipeline directly, on zero-delay stand-ins. Through `pipeline:` is what a run does per
   question: the adapter's call, then every returned context located in the corpus
   (userpipeline.contexts, as the stage does); directly is the bare call. The RAG service
   (tests.helpers.rag_service) asked with one httpx client directly vs through the
   `http:` adapter (template, mapping, retries, reply cap) and the locator; and an
   in-process callable that does nothing called directly vs through the factory adapter
   (shape checks, the per-call time limit's thread) and the locator. The goal, >= 0.95, is
   on each measured ratio; what the factory's overhead would be beside a pipeline taking
   5 ms a call is printed as an extra line, without a goal. The adapter with the call
   cache (a row stored per answer, as a run does) is timed too.
2. `--workers 4` against 1 on a 4-slot HTTP stand-in (`--delay` per answer): the stage's
   ask_all over the same distinct questions, each with a fresh call cache. Goal >= 3.5x.

Run: `python -m benchmarks.pipeline [--questions 200] [--delay 0.05]`.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from ragaudit.backends.cache import CallCache
from ragaudit.corpus.export import exported_document
from ragaudit.corpus.files import load_planted_corpus
from ragaudit.targets.bounded import UserCodeLimits
from ragaudit.targets.pipeline.adapters import build_factory
from ragaudit.targets.pipeline.calls import ask_all
from ragaudit.targets.pipeline.contexts import ContextLocator
from ragaudit.targets.pipeline.http_client import http_pipeline
from tests.helpers.pipeline_service import running_service

MAPPING = {
    "method": "POST", "headers": {}, "body": {"query": "{{question}}"},
    "answer": "$.data.answer", "contexts": "$.data.sources", "context_text": "content",
    "context_id": "meta.id", "context_score": "relevance", "citations": None, "timeout": 30.0,
}  # fmt: skip


def questions_per_second(ask: Callable[[str], object], questions: list[str], rounds: int) -> float:
    """The best of `rounds` passes over `questions`, in questions per second."""
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        for question in questions:
            ask(question)
        best = min(best, time.perf_counter() - started)
    return len(questions) / best


def interleaved_rates(
    askers: list[Callable[[str], object]], questions: list[str], rounds: int
) -> list[float]:
    """Each asker's best pass over `questions` in questions per second, the askers taking
    turns within each round, so a shared machine's drift falls on all of them alike."""
    best = [float("inf")] * len(askers)
    for _ in range(rounds):
        for index, ask in enumerate(askers):
            started = time.perf_counter()
            for question in questions:
                ask(question)
            best[index] = min(best[index], time.perf_counter() - started)
    return [len(questions) / seconds for seconds in best]


def located(ask: Callable, locator: ContextLocator) -> Callable[[str], object]:
    """`ask` followed by locating its answer's contexts: a run's work per question."""

    def through(question: str) -> object:
        answer = ask(question)
        locator.locate_all(answer.contexts)
        return answer

    return through


def goal(ratio: float, at_least: float) -> str:
    """The goal beside a measured ratio, and whether it is met."""
    return f"goal >= {at_least:g}: {'met' if ratio >= at_least else 'NOT met'}"


def plain_pipeline(documents: list[dict]) -> Callable[[str], dict]:
    """A zero-delay in-process pipeline: its first three paragraphs whatever is asked."""
    passages = [p for d in documents for p in d["text"].split("\n\n") if p.strip()][:3]

    def answer(question: str) -> dict:
        return {"answer": passages[0], "contexts": [{"text": p, "score": 1.0} for p in passages]}

    return answer


def adapter_overhead(questions: list[str], documents: list, rounds: int) -> list[str]:
    import httpx

    lines = []
    with running_service() as url:
        with httpx.Client(timeout=30) as client:
            client.post(
                f"{url}/ingest", json={"documents": [exported_document(d) for d in documents]}
            )

            def direct(question: str) -> dict:
                reply = client.post(f"{url}/ask", json={"query": question})
                reply.raise_for_status()
                data = reply.json()["data"]
                return {
                    "answer": data["answer"],
                    "contexts": [s["content"] for s in data["sources"]],
                }

            adapter, service = http_pipeline({**MAPPING, "url": f"{url}/ask"}, "bench")
            ask = located(adapter, ContextLocator(documents, "bench"))
            questions_per_second(direct, questions[:20], 1)  # warm both connections
            questions_per_second(ask, questions[:20], 1)
            raw, adapted, bare = interleaved_rates([direct, ask, adapter], questions, rounds)
            cached = _through_cache(adapter, list(dict.fromkeys(questions)), documents)
            distinct_raw = questions_per_second(direct, list(dict.fromkeys(questions)), 1)
            service.close()
        lines.append(
            f"http adapter: {adapted:,.0f} q/s through pipeline: http: (contexts located) vs "
            f"{raw:,.0f} q/s calling the service directly: ratio {adapted / raw:.3f} "
            f"({goal(adapted / raw, 0.95)})"
        )
        lines.append(f"extra: the http adapter without locating the contexts: {bare:,.0f} q/s, "
                     f"ratio {bare / raw:.3f}")  # fmt: skip
        lines.append(
            f"http adapter with the call cache (a row stored per answer, as a run does): "
            f"{cached:,.0f} q/s vs {distinct_raw:,.0f} q/s direct: ratio "
            f"{cached / distinct_raw:.3f}"
        )
    exported = [exported_document(d) for d in documents]
    module = Path(tempfile.mkdtemp(prefix="ragaudit-bench-")) / "bench_plain_pipeline.py"
    module.write_text(
        "from benchmarks.pipeline import plain_pipeline\n\n\n"
        "def make(documents):\n    return plain_pipeline(documents)\n"
    )
    sys.path.append(str(module.parent))
    adapter, _ = build_factory({"factory": "bench_plain_pipeline:make", "args": {}},
                               documents, "bench", UserCodeLimits())  # fmt: skip
    ask = located(adapter, ContextLocator(documents, "bench"))
    direct = plain_pipeline(exported)
    raw, adapted, bare = interleaved_rates([direct, ask, adapter], questions, rounds)
    overhead = (1 / adapted - 1 / raw) * 1e6
    lines.append(
        f"factory adapter: {adapted:,.0f} q/s through pipeline: factory: (contexts located) "
        f"vs {raw:,.0f} q/s calling the same zero-delay callable directly: ratio "
        f"{adapted / raw:.4f} ({goal(adapted / raw, 0.95)}), i.e. {overhead:.0f} us per call "
        "(the per-call time limit runs each call in a thread; the contexts are located)"
    )
    lines.append(
        f"extra: the factory adapter without locating the contexts: {bare:,.0f} q/s, "
        f"{(1 / bare - 1 / raw) * 1e6:.0f} us per call; beside a pipeline taking 5 ms a call, "
        f"the {overhead:.0f} us with locating would be a ratio of "
        f"{5000 / (5000 + overhead):.3f} (not the goal's measure)"
    )
    return lines


def _through_cache(ask: Callable, questions: list[str], documents: list) -> float:
    locator = ContextLocator(documents, "bench")
    with tempfile.TemporaryDirectory() as folder:
        cache = CallCache(Path(folder) / "cache.sqlite")
        started = time.perf_counter()
        answers, _ = ask_all(questions, ask, cache, model="pipeline:bench", identity="bench",
                             workers=1)  # fmt: skip
        for answer in answers.values():
            if not isinstance(answer, str):  # a failed call's reason has no contexts
                locator.locate_all(answer.contexts)
        seconds = time.perf_counter() - started
        cache.close()
    return len(questions) / seconds


def workers_speedup(questions: list[str], documents: list, delay: float) -> list[str]:
    import httpx

    with running_service("--slots", "4", "--delay", str(delay)) as url:
        httpx.post(f"{url}/ingest", json={"documents": [exported_document(d) for d in documents]},
                   timeout=60)  # fmt: skip
        ask, service = http_pipeline({**MAPPING, "url": f"{url}/ask"}, "bench")
        seconds = {}
        for workers in (1, 4):
            with tempfile.TemporaryDirectory() as folder:
                cache = CallCache(Path(folder) / "cache.sqlite")
                started = time.perf_counter()
                answers, _ = ask_all(questions, ask, cache, model="pipeline:bench",
                                     identity="bench", workers=workers)  # fmt: skip
                seconds[workers] = time.perf_counter() - started
                failed = sum(isinstance(a, str) for a in answers.values())
                cache.close()
            if failed:
                raise SystemExit(f"{failed} calls failed at --workers {workers}")
        service.close()
    n = len(questions)
    return [
        f"--workers 4: {n / seconds[4]:.1f} q/s vs --workers 1: {n / seconds[1]:.1f} q/s on a "
        f"4-slot stand-in ({delay * 1000:.0f} ms per answer, {n} questions): "
        f"{seconds[1] / seconds[4]:.2f}x ({goal(seconds[1] / seconds[4], 3.5)})"
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.pipeline")
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--delay", type=float, default=0.05)
    parser.add_argument("--workers-questions", type=int, default=200)
    args = parser.parse_args(argv)
    corpus = load_planted_corpus()
    distinct = list(dict.fromkeys(i.question for i in corpus.instances))
    questions = (distinct * (args.questions // len(distinct) + 1))[: args.questions]
    for line in adapter_overhead(questions, list(corpus.documents), args.rounds):
        print(line)
    for line in workers_speedup(distinct[: args.workers_questions], list(corpus.documents),
                                args.delay):  # fmt: skip
        print(line)
    print(json.dumps({"questions": args.questions, "delay": args.delay}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
