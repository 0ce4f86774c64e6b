"""The built-in matrix as a stage: every embedder × config × instance retrieved
(pipeline.retrieve.MatrixRetrieval), then generation and grading on the primary embedder's
records for the plan's generation configs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ragaudit.backends.cache import CallCache
from ragaudit.backends.specs import describe_model, load_embedder, load_generator
from ragaudit.grading.grade import grade_records
from ragaudit.runner.estimate import CallEstimate, embed_estimate, generate_estimate
from ragaudit.runner.generate import failed_calls, generate_records, prompt_used
from ragaudit.runner.plan import RunPlan
from ragaudit.runner.prompt_tokens import answer_prompt_tokens
from ragaudit.runner.retrieve import EmbedderPlan, MatrixRetrieval
from ragaudit.runner.stage import Stage
from ragaudit.stack.chunking import chunk_corpus
from ragaudit.stack.index import open_client


class MatrixStage(Stage):
    """The configs A…M (and those outside the matrix) as one stage (pipeline.stage.Stage)."""

    name = "matrix"
    order = 0

    def __init__(self, plan: RunPlan) -> None:
        self.plan = plan
        self.roles: list[EmbedderPlan] = []

    def prepare(self, corpus: Any, progress: Any) -> None:
        """Nothing to build: the plan checked the configs and specs."""

    def models(self) -> list[dict]:
        return [describe_model(role.embedder) for role in self.roles]

    def describe(self, corpus: Any) -> dict:
        return {
            "configs": [config.to_json() for config in self.plan.configs],
            "embedders": [
                {
                    "spec": role.embedder.spec,
                    "role": role.role,
                    "probes": list(role.probes or corpus.probes),
                }
                for role in self.roles
            ],
        }

    def retrieve(self, corpus: Any, cache: Any, progress: Any) -> dict:
        """Load the embedders (the first is primary: every probe; the others secondary),
        then retrieve at every config."""
        plan = self.plan
        embedders = [load_embedder(spec, cache, workers=plan.workers) for spec in plan.embedders]
        self.roles = [EmbedderPlan(e, "primary", None) for e in embedders[:1]]
        self.roles += [EmbedderPlan(e, "secondary", plan.secondary_probes) for e in embedders[1:]]
        return MatrixRetrieval(corpus, plan.configs, self.roles, open_client(), progress).run()

    def estimate(self, corpus: Any, cache: CallCache | None) -> list[CallEstimate]:
        """--dry-run: each embedder's calls (every chunk of every config's chunking, every
        question), and the generator's (at most twice the records: prompt and oracle
        prompt) with their prompt tokens (runner.estimate)."""
        plan = self.plan
        questions = {i.question for i in corpus.instances}
        texts = {
            c.text
            for config in plan.configs
            for c in chunk_corpus(corpus.documents, config.chunking)
        }
        estimates = [
            embed_estimate(f"matrix: embed {spec}", spec, texts, questions, cache)
            for spec in plan.embedders
        ]
        if plan.generate:
            probes = set(plan.gen_probes or corpus.probes)
            columns = [  # each generating config's questions (a config may run some probes only)
                ([i.question for i in corpus.instances if i.probe in probes and c.runs(i.probe)],
                 c.k, [chunk.text for chunk in chunk_corpus(corpus.documents, c.chunking)])
                for c in plan.configs if c.name in set(plan.gen_configs)
            ]  # fmt: skip
            tokens = answer_prompt_tokens(plan.generator, columns, None)
            records = sum(len(questions) for questions, _, _ in columns)
            estimates.append(
                generate_estimate(f"matrix: generate {plan.generator} (prompts, with oracle "
                                  "prompts at most twice the records)", plan.generator,
                                  2 * records, cache, tokens)
            )  # fmt: skip
        return estimates

    def generate(
        self, results: dict, cache: Any, progress: Any, on_generated: Callable[[], None]
    ) -> list[dict]:
        """Generate (each record's retrieved context and its oracle context) and grade on
        the primary embedder's records; returns the failed calls."""
        plan = self.plan
        generator = load_generator(plan.generator, cache)
        results["models"].append(describe_model(generator))
        results["run"]["prompt_used"] = prompt_used(None)  # ragaudit's, as recorded
        primary = [r for r in results["instances"] if r["embedder"] == plan.embedders[0]]
        progress.stage(f"generate {plan.generator}", 0)

        def report(done: int, total: int, replayed: int) -> None:
            # The total is known only once identical prompts merge; replays do not set the ETA.
            progress.update(done, total, replayed)
            on_generated()

        results["run"]["generation_counts"] = generate_records(
            primary,
            results["chunks"],
            generator,
            gen_configs=plan.gen_configs,
            gen_probes=results["run"]["gen_probes"],
            progress=report,
            params=plan.generation_params,
            chunk_offsets=results["chunk_offsets"],  # the oracle contexts' chunks
            workers=plan.workers,
        )
        grade_records(results["instances"], results["chunks"])
        return failed_calls(results["instances"], plan.generator)
