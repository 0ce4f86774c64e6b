"""`python -m benchmarks.target_identity`: what computing the call-cache identity of a target
given in Python costs, beside the import-path form's identity of the same factory measured
in the same run (issue 43's benchmark line "the cost of computing an object target's
identity, and the cache test").

An identity is what a run computes once per target before asking it: the StackSpec
(targets.objects.as_stack), the description (targets.pipeline.identity.describe_entry: the
module's source read and hashed) and its key (backends.cache.identity_key). Measured for:
- a factory defined in a module (keyed by its module's source);
- a factory defined in a notebook (module `__main__`: no source, a fresh key every run);
- a built engine (a callable object: no source, a fresh key every run);
beside the baseline, the same module factory named by import path in a stack file: its
entry's identity alone (the stack file loaded once), and the file loaded and checked too.
Each figure is the median over `--rounds` rounds of the mean of `--calls` calls, the forms
taking turns within each round; the spread is the rounds' lowest and highest.

Then the cache test on the clock: `ragaudit.mutate` over three documents (4 answers, no
model) with a fresh cache: the first run computes, the unchanged factory replays, the
edited module computes again, and the notebook factory never replays.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

FACTORY = """
def make(documents):
    texts = [(d["id"], d["text"]) for d in documents]

    def ask(question):
        return {"answer": "ANSWER", "contexts": [{"text": t, "doc_id": i} for i, t in texts]}

    return ask
"""


class Engine:
    """A built pipeline: a callable object asked as it stands."""

    def __call__(self, question: str) -> dict:
        return {"answer": "46 euros", "contexts": [{"text": "x"}]}


def object_identity(target: object, version: str | None = None) -> Callable[[], str]:
    """One identity of a target given in Python: its StackSpec, description and key."""
    from ragaudit.backends.cache import identity_key
    from ragaudit.targets.objects import as_stack
    from ragaudit.targets.pipeline.identity import describe_entry

    def identity() -> str:
        stack = as_stack(target, version=version)
        return identity_key(describe_entry(stack.pipeline, stack.where("pipeline", "factory")))

    return identity


def path_identity(stack_file: Path, *, load: bool) -> Callable[[], str]:
    """One identity of the import-path form: the stack file loaded (when `load`) and its
    entry described and keyed."""
    from ragaudit.backends.cache import identity_key
    from ragaudit.targets.pipeline.identity import describe_entry
    from ragaudit.targets.stackfile import load_stack

    loaded = load_stack(stack_file)

    def identity() -> str:
        stack = load_stack(stack_file) if load else loaded
        return identity_key(describe_entry(stack.pipeline, stack.where("pipeline", "factory")))

    return identity


def timed_rounds(forms: dict[str, Callable[[], str]], rounds: int, calls: int) -> dict:
    """form -> the seconds per call of each round (the forms take turns in each round)."""
    for identity in forms.values():  # warm-up: imports, the first stat of each file
        identity()
    seen: dict[str, list[float]] = {name: [] for name in forms}
    for _ in range(rounds):
        for name, identity in forms.items():
            started = time.perf_counter()
            for _ in range(calls):
                identity()
            seen[name].append((time.perf_counter() - started) / calls)
    return seen


def in_main(text: str) -> Callable:
    """A factory as a notebook cell defines it (its module is `__main__`)."""
    namespace: dict = {"__name__": "__main__"}
    exec(compile(text, "<cell>", "exec"), namespace)
    return namespace["make"]


def user_module(folder: Path, answer: str) -> object:
    """The user's module `bench_rag` written in `folder` and imported (again) from it."""
    (folder / "bench_rag.py").write_text(FACTORY.replace("ANSWER", answer), encoding="utf-8")
    importlib.invalidate_caches()
    if "bench_rag" in sys.modules:
        return importlib.reload(sys.modules["bench_rag"])
    return importlib.import_module("bench_rag")


def identity_costs(folder: Path, rounds: int, calls: int) -> None:
    module = user_module(folder, "46 euros")
    stack_file = folder / "bench.yaml"
    stack_file.write_text("name: bench\npipeline:\n  factory: bench_rag:make\n", encoding="utf-8")
    forms = {
        "import path (baseline: entry's identity)": path_identity(stack_file, load=False),
        "import path (stack file loaded too)": path_identity(stack_file, load=True),
        "module factory": object_identity(module.make),
        "notebook factory": object_identity(in_main(FACTORY)),
        "notebook factory, version=": object_identity(in_main(FACTORY), version="1"),
        "built engine": object_identity(Engine()),
    }
    seen = timed_rounds(forms, rounds, calls)
    baseline = statistics.median(seen["import path (baseline: entry's identity)"])
    loaded = statistics.median(seen["import path (stack file loaded too)"])
    print(f"identity of one target: median of {rounds} rounds x {calls} calls")
    for name, times in seen.items():
        median = statistics.median(times)
        print(
            f"  {name:42} {median * 1e6:9.1f} us (spread {min(times) * 1e6:.1f}-"
            f"{max(times) * 1e6:.1f}), {median / baseline:5.2f} x baseline, "
            f"{median / loaded:5.2f} x the loaded file"
        )


def cache_test(folder: Path) -> None:
    import ragaudit

    documents = [
        ("policies/travel", "The meal allowance on domestic trips is 46 euros per day."),
        ("policies/leave", "Full-time employees get 27 days of paid annual leave."),
        ("newsletter", "The canteen reopens in May after its refit."),
    ]
    phrasings = [
        "What is the meal allowance on domestic trips?",
        "How much is the daily meal allowance when travelling?",
    ]
    cases = [ragaudit.Case(intent="meal", expect=["policies/travel"], answer="46 euros",
                           phrasings=phrasings)]  # fmt: skip
    home = folder / "warm-up"

    def mutate(label: str, target: object) -> None:
        started = time.perf_counter()
        results = ragaudit.mutate(documents, cases, target, operators=["supersede"],
                                  data_dir=home, progress=False)  # fmt: skip
        seconds = time.perf_counter() - started
        calls = results.document["conditions"]["calls"]
        print(f"  {label:38} computed {calls['computed']}, replayed {calls['replayed']}, "
              f"{seconds * 1e3:6.1f} ms")  # fmt: skip

    print("the cache test (ragaudit.mutate, 3 documents, 4 answers, a fresh cache):")
    mutate("warm-up (imports; another cache)", in_main(FACTORY))
    home = folder / "home"
    mutate("module factory, first run", user_module(folder, "46 euros").make)
    mutate("module factory, unchanged", sys.modules["bench_rag"].make)
    mutate("module factory, its module edited", user_module(folder, "forty-six euros").make)
    mutate("module factory, unchanged again", sys.modules["bench_rag"].make)
    notebook = in_main(FACTORY.replace("ANSWER", "46 euros"))
    mutate("notebook factory, first run", notebook)
    mutate("notebook factory, unchanged", notebook)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.target_identity")
    parser.add_argument("--rounds", type=int, default=31)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        sys.path.insert(0, str(folder))
        try:
            identity_costs(folder, args.rounds, args.calls)
            cache_test(folder)
        finally:
            sys.path.remove(str(folder))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
