"""One user stack as a stage of a run (pipeline.stage.Stage): its own column beside the
matrix. Its splitter cuts the corpus and its retriever factory is built by `build_stack_stages`,
before the run takes its lock or writes anything (the sessions ledger, the call cache,
Chroma), so a bad stack is one line, exit 2, and no file changed; its embedder loads when
it retrieves; its records are generated with the stack's own generator (default: the
run's)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ragaudit.backends.cache import CallCache
from ragaudit.backends.specs import describe_model, load_embedder, load_generator
from ragaudit.grading.grade import grade_records
from ragaudit.runner.estimate import CallEstimate, embed_estimate, generate_estimate
from ragaudit.runner.generate import failed_calls, generate_records, prompt_used
from ragaudit.runner.plan import RunPlan, planted_corpus_for
from ragaudit.runner.prompt_tokens import answer_prompt_tokens
from ragaudit.runner.retrieve import table_split_wide
from ragaudit.runner.stack_retrieval import StackRetrieval
from ragaudit.runner.stage import Stage, add_models
from ragaudit.stack.diagnostics import anchor_summary
from ragaudit.targets.column import load_model
from ragaudit.targets.stackfile import StackSpec


class StackStage(Stage):
    """The planted-fault corpus through one user stack (a `--stack FILE`)."""

    def __init__(self, plan: RunPlan, stack: StackSpec) -> None:
        self.plan, self.stack = plan, stack
        self.name = f"stack {stack.name}"
        self.order = 1  # after the matrix in the results file, though it retrieves first
        self.stage: StackRetrieval | None = None
        self._built_for: tuple | None = None

    def build(self, corpus: Any) -> None:
        """Cut `corpus` with their splitter and build their retriever: a bad one fails
        here, in one line, having written nothing (no Chroma client is opened yet)."""
        self.stage = StackRetrieval(corpus, self.stack, None, None, None)
        self._built_for = corpus.documents

    def prepare(self, corpus: Any, progress: Any) -> None:
        """What `build` made, when it was built for this corpus (else built now)."""
        if self.stage is None or self._built_for != corpus.documents:
            self.build(corpus)
        self.stage.progress = progress

    def models(self) -> list[dict]:
        embedder = self.stage.embedder if self.stage is not None else None
        return [describe_model(embedder)] if embedder is not None else []

    def describe(self, corpus: Any) -> dict:
        config = self.stack.to_config_json()
        config["prompt_used"] = prompt_used(self.stack.prompt)  # the default when not set
        return {"configs": [config], "embedders": []}

    def retrieve(self, corpus: Any, cache: Any, progress: Any) -> dict:
        """Their embedder loaded (unless their retriever embeds), then the stack's
        fragment; with the run-wide keys a --stack-only run takes from its
        first stack: no comparisons (they are between built-in configs), table_split at
        4000 characters (model-free, cut here), anchor selectivity over its chunks."""
        if self.stage.user_retriever is None:
            self.stage.embedder = load_model(
                load_embedder, self.stack.embedder, cache, workers=self.plan.workers
            )
        fragment = self.stage.run(cache)
        fragment["comparisons"] = []
        fragment["extra_measurements"] = {"table_split_4000": table_split_wide(corpus)}
        fragment["anchor_selectivity"] = anchor_summary(corpus.instances, self.stage.view)
        return fragment

    def estimate(self, corpus: Any, cache: CallCache | None) -> list[CallEstimate]:
        """--dry-run: their embedder's calls (each chunk their splitter cut, each question;
        none when their retriever embeds), and their generator's (default the run's) with
        their prompt tokens (runner.estimate); their retriever is built, never asked."""
        stack, plan = self.stack, self.plan
        if self.stage is None or self._built_for != corpus.documents:
            self.build(corpus)
        instances = [i for i in corpus.instances if stack.runs(i.probe)]
        chunks = [c.text for c in self.stage.chunks] if stack.retriever is None else []
        estimates = []
        if stack.embedder is not None and stack.retriever is None:
            spec = stack.embedder["spec"]
            estimates.append(
                embed_estimate(f"stack {stack.name}: embed {spec}", spec, chunks,
                               [i.question for i in instances], cache)
            )  # fmt: skip
        if plan.generate:
            spec = (stack.generator or {"spec": plan.generator})["spec"]
            probes = set(plan.gen_probes or corpus.probes)
            questions = [i.question for i in instances if i.probe in probes]
            tokens = answer_prompt_tokens(spec, [(questions, stack.k, chunks)], stack.prompt)
            estimates.append(
                generate_estimate(f"stack {stack.name}: generate {spec}", spec,
                                  2 * len(questions), cache, tokens)
            )  # fmt: skip
        return estimates

    def generate(
        self, results: dict, cache: Any, progress: Any, on_generated: Callable[[], None]
    ) -> list[dict]:
        """Generate and grade the stack's records whose probe the run generates for, with
        the stack's generator (default the run's); its counts go to
        run.stack_generation_counts."""
        stack = self.stack
        counts = results["run"].setdefault("stack_generation_counts", {})
        model = stack.generator or {"spec": self.plan.generator}
        records = [r for r in results["instances"] if r["config"] == stack.name]
        if not records:
            return []
        generator = load_model(load_generator, model, cache)
        add_models(results, [describe_model(generator)])
        progress.stage(f"generate {model['spec']} (stack {stack.name})", 0)

        def report(done: int, total: int, replayed: int) -> None:
            progress.update(done, total, replayed)
            on_generated()

        counts[stack.name] = generate_records(
            records,
            results["chunks"],
            generator,
            gen_configs=[stack.name],
            gen_probes=results["run"]["gen_probes"],
            progress=report,
            params=self.plan.generation_params,
            chunk_offsets=results["chunk_offsets"],
            workers=self.plan.workers,
            prompt=stack.prompt,
        )
        grade_records(records, results["chunks"])
        return failed_calls(records, model["spec"])


def build_stack_stages(plan: RunPlan) -> list[StackStage]:
    """One column per --stack file, each built over the corpus the run will read (the
    planted corpus at the plan's n): every stack's splitter and retriever checked on it
    before any model loads and before the run writes a file."""
    columns = [StackStage(plan, stack) for stack in plan.stacks]
    if columns:
        corpus = planted_corpus_for(plan)
        for column in columns:
            column.build(corpus)
    return columns
