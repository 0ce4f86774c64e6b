"""The run plan: one matrix run's preset and flags, resolved and checked before any work.

Every name is validated here (configs, probes, model specs) along with the sizes and the
output path, so a typo fails at once with one line instead of after the retrieval stage.
Every caller builds its plan with `build_plan` from typed values: `ragaudit run` from its
parsed flags (cli.run.plan_from_args), `ragaudit demo` from the quick preset.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ragaudit import paths
from ragaudit.backends.concurrency import DEFAULT_WORKERS, check_workers
from ragaudit.backends.executors import check_executor
from ragaudit.backends.specs import check_embedder_spec, check_generator_spec
from ragaudit.corpus.build import PlantedCorpus
from ragaudit.corpus.files import load_planted_corpus
from ragaudit.errors import RagauditError
from ragaudit.fileio import check_writable
from ragaudit.registry import unknown_name_message
from ragaudit.stack import presets
from ragaudit.stack.configs import StackConfig, load_user_configs, merge_configs
from ragaudit.targets.stackfile import StackSpec, load_stacks

DEFAULT_EMBEDDERS = (presets.PRIMARY_EMBEDDER, presets.SECONDARY_EMBEDDER)


@dataclass(frozen=True)
class RunPlan:
    """What one matrix run does, every value resolved (flags over the preset's defaults)."""

    preset: str
    """The size recorded in the results file: the preset's name, or ``custom`` under --n."""
    n: int
    """Instances per probe; the corpus is cut to this many (a larger n keeps them all)."""
    embedders: tuple[str, ...]
    """Embedder specs, each once, in order; the first is primary and runs every probe."""
    secondary_probes: tuple[str, ...] | None
    """The probes the other embedders run; None means every probe."""
    generate: bool
    """False for retrieval and diagnostics only (--no-generate)."""
    generator: str
    """The generator spec."""
    gen_configs: tuple[str, ...]
    """Configs whose retrieved context goes to the generator."""
    gen_probes: tuple[str, ...] | None
    """Probes answers are generated for; None means every probe."""
    max_tokens: int
    """The reply length cap sent with every generation call."""
    configs: tuple[StackConfig, ...]
    """The matrix A…M, the preset's configs outside it (T4000) unless turned off, then the
    user's configs from --configs."""
    out: Path
    """The results file (written partially while the run is in progress)."""
    argv: tuple[str, ...]
    """The command line, recorded in the results file."""
    stacks: tuple[StackSpec, ...] = ()
    """The user's stacks (--stack FILE), each its own column beside the configs."""
    workers: int = DEFAULT_WORKERS
    """Requests in flight at once to a remote server (--workers); local models stay serial."""
    executor: str = "local"
    """Where model calls are computed (--executor): in this process, or on Ray workers."""
    ray_address: str | None = None
    """The Ray cluster to join (--ray-address); None starts a local one for the run."""
    ray_workers: int | None = None
    """Ray workers per model (--ray-workers); None: one per CPU of the cluster."""
    generation_seed: int | None = None
    """The seed sent with every generation call when set (`run --repeat` varies it for a
    remote model that takes one); None: the backend's default."""

    @property
    def generation_params(self) -> dict:
        """The parameters every generation call is made with."""
        seed = {} if self.generation_seed is None else {"seed": self.generation_seed}
        return {"max_tokens": self.max_tokens, **seed}


def _checked_sizes(preset: presets.Preset, n: int | None, max_tokens: int | None) -> int:
    """The reply cap (the preset's unless given), after refusing a size below 1."""
    max_tokens = preset.max_tokens if max_tokens is None else max_tokens
    if max_tokens < 1:
        raise RagauditError(f"--max-tokens {max_tokens}: need at least 1")
    if n is not None and n < 1:
        raise RagauditError(f"--n {n}: need at least 1 instance per probe")
    return max_tokens


def _checked_specs(embedders: Sequence[str], generator: str) -> str:
    """`generator`, once it and every embedder spec name a backend."""
    for spec in embedders:
        check_embedder_spec(spec)
    check_generator_spec(generator)
    return generator


def build_plan(
    preset: presets.Preset,
    *,
    n: int | None = None,
    embedders: Sequence[str] = DEFAULT_EMBEDDERS,
    secondary_probes: Sequence[str] | None | Literal["default"] = "default",
    generator: str | None = None,
    gen_configs: Sequence[str] | None = None,
    gen_probes: Sequence[str] | None = None,
    max_tokens: int | None = None,
    generate: bool = True,
    extra_configs: bool = True,
    configs_file: str | Path | None = None,
    out: str | Path | None = None,
    argv: Sequence[str] | None = None,
    workers: int = DEFAULT_WORKERS,
    stacks: Sequence[str | Path] = (),
    stack_only: bool = False,
    executor: str = "local",
    ray_address: str | None = None,
    ray_workers: int | None = None,
) -> RunPlan:
    """The plan for `preset` with these overrides (None: the preset's value), every name
    and size checked; a RagauditError names the flag and the valid choices.

    `secondary_probes` and `gen_probes` take ``["all"]`` for every probe. `extra_configs`
    False leaves out the preset's configs outside the matrix (and from its gen_configs).
    `stacks`: stack files; `stack_only`: no matrix; `executor` etc.: backends.executors."""
    if gen_probes is None and preset.gen_probes is not None:
        gen_probes = preset.gen_probes
    max_tokens = _checked_sizes(preset, n, max_tokens)
    check_executor(executor, ray_address, ray_workers)
    configs = _configs(preset, configs_file, extra_configs, (stack_only, stacks))
    gen_configs = tuple(gen_configs or _preset_gen_configs(preset, configs))
    _check_config_names(gen_configs, configs)
    target = _results_path(out)
    corpus = load_planted_corpus()
    size = _instances_per_probe(n, preset, corpus.n)
    available = list(corpus.probes)
    generator = _checked_specs(embedders, generator or preset.generator)
    user_stacks = load_stacks(list(stacks), [c.name for c in configs], available)
    return RunPlan(
        preset="custom" if n is not None else preset.name,
        n=size,
        embedders=tuple(dict.fromkeys(embedders)),
        secondary_probes=_secondary_probes(secondary_probes, available),
        generate=generate,
        generator=generator,
        gen_configs=gen_configs,
        gen_probes=_probes(gen_probes, available, "--gen-probes"),
        max_tokens=max_tokens,
        configs=configs,
        out=target,
        argv=tuple(argv or ()),
        workers=check_workers(workers),
        stacks=user_stacks,
        executor=executor,
        ray_address=ray_address,
        ray_workers=ray_workers,
    )


def _secondary_probes(
    asked: Sequence[str] | None | Literal["default"], available: list[str]
) -> tuple | None:
    """--secondary-probes checked; "default": the catalogue's, read when a plan is built."""
    names = presets.secondary_probe_names() if asked == "default" else asked
    return _probes(names, available, "--secondary-probes")


def _configs(
    preset: presets.Preset,
    configs_file: str | Path | None,
    extra_configs: bool,
    stack_only: tuple[bool, Sequence] = (False, ()),
) -> tuple[StackConfig, ...]:
    """The configs the plan runs; none under --stack-only (`stack_only`: the flag and the
    stack files, which it needs)."""
    if stack_only[0]:
        _check_stack_only(stack_only[1], configs_file)
        return ()
    off = () if extra_configs else preset.extra_configs
    base = tuple(c for c in preset.configs if c not in off)
    if not configs_file:
        return tuple(base)
    return tuple(merge_configs(base, load_user_configs(configs_file)))


def _check_stack_only(stacks: Sequence, configs_file: object) -> None:
    if not stacks:
        raise RagauditError("--stack-only: give at least one --stack FILE")
    if configs_file:
        raise RagauditError("--stack-only runs the stacks alone; leave out --configs")


def _preset_gen_configs(preset: presets.Preset, configs: Sequence[StackConfig]) -> tuple:
    """The preset's gen_configs that this plan runs (a config turned off is not generated)."""
    names = {c.name for c in configs}
    return tuple(name for name in preset.gen_configs if name in names)


def _check_config_names(names: Sequence[str], configs: Sequence[StackConfig]) -> None:
    valid = [c.name for c in configs]
    for name in names:
        if name not in valid:
            raise RagauditError(
                f"--gen-configs: unknown config {name!r}; valid: {', '.join(valid)}"
            )


def planted_corpus_for(plan: RunPlan) -> PlantedCorpus:
    """The planted corpus a run of `plan` reads: the shipped one, cut to the plan's n."""
    corpus = load_planted_corpus()
    return corpus.subset(plan.n) if plan.n < corpus.n else corpus


def _instances_per_probe(n: int | None, preset: presets.Preset, corpus_n: int) -> int:
    """--n checked against the corpus: more instances per probe than it holds is refused
    (it used to be cut to the corpus's size without a word). A preset's n above a smaller
    corpus (RAGAUDIT_CORPUS) is the corpus's n, which the results file records."""
    if n is None:
        return min(preset.n, corpus_n)
    if n > corpus_n:
        raise RagauditError(
            f"--n {n}: the corpus ({paths.corpus_dir()}) holds {corpus_n} instances per "
            f"probe; give at most {corpus_n}"
        )
    return n


def _results_path(out: str | Path | None) -> Path:
    target = Path(out) if out else paths.default_results_path()
    if target.is_dir():
        raise RagauditError(
            f"--out {target}: is a folder; name the results file (e.g. {target}/latest.json)"
        )
    check_writable(target, "--out")
    return target


def _probes(names: Sequence[str] | None, available: list[str], flag: str) -> tuple | None:
    """`names` checked against the corpus's probes; None (every probe) for None or 'all'."""
    if names is None or list(names) == ["all"]:
        return None
    for name in names:
        if name not in available:
            raise RagauditError(f"{flag}: {unknown_name_message('probe', name, available)}")
    return tuple(names)
