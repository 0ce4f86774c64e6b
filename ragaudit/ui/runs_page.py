"""Runs: start a matrix run, follow its progress, and read the conditions of the results."""

from __future__ import annotations

import shlex

from ragaudit.results.format import (
    fmt_contention,
    fmt_elapsed,
    fmt_generation_tokens,
    fmt_model_calls,
)
from ragaudit.results.reference import run_target
from ragaudit.results.view import is_mutation_audit
from ragaudit.ui.common import current_results
from ragaudit.ui.data import Loaded, load
from ragaudit.ui.runs import log_tail, run_status, start_run, stop_run

CONFIGS = ["A", "A_prime", "B", "C", "C_prime", "D", "M"]
EMBEDDERS = ["local:minilm", "local:e5-small"]
GENERATORS = ["local:qwen2.5-0.5b", "local:qwen2.5-1.5b"]


def run_args(
    preset: str,
    n: int,
    embedders: list[str],
    generator: str,
    gen_configs: list[str],
    generate: bool,
) -> list[str]:
    """The `ragaudit run` arguments for the form's choices."""
    args = ["--quick"] if preset == "quick" else []
    if preset == "custom":
        args += ["--n", str(n)]
    if embedders:
        args += ["--embedders", *embedders]
    if not generate:
        args.append("--no-generate")
    else:
        if generator:
            args += ["--generator", generator]
        if gen_configs:
            args += ["--gen-configs", *gen_configs]
    return args


def _format_seconds(seconds: float | None) -> str:
    if seconds is None:
        return "unknown"
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes} min {secs:02d} s" if minutes else f"{secs} s"


def render() -> None:
    """Draw the Runs page."""
    import streamlit as st

    st.title("Runs")
    loaded = current_results()
    if loaded.path is None:  # the link named a file no run may write
        st.error(f"Cannot show or start runs for this link: {loaded.problem}")
    _live_status()
    written = _written_file(loaded)
    if written is not None and is_mutation_audit(written):
        st.info(mutation_audit_line(written))  # no form: a run would write over it
    else:
        _run_form(loaded)

    st.subheader("Conditions of the loaded results")
    if loaded.results is None:
        st.write(loaded.problem if loaded.path is not None else "None: the link was refused.")
        return
    _render_conditions(loaded.results)


def _written_file(loaded: Loaded) -> dict | None:
    """The results a run started here would write over: the loaded file's, or the
    default file's when the loaded one is the shipped reference (None: nothing there)."""
    if loaded.path is None or run_target(loaded.path) == loaded.path:
        return loaded.results
    return load(run_target(loaded.path)).results


def mutation_audit_line(results: dict) -> str:
    """Why no run is offered over a mutation audit's file, and how to run it again."""
    argv = (results.get("run") or {}).get("argv") or ["mutate", "CORPUS", "CASES"]
    return (
        "This file is a mutation audit (`ragaudit mutate`). The Runs page starts planted-"
        "corpus matrix runs (`ragaudit run`), which would write over it, so none is offered "
        f"here. Run the audit again from a terminal: `ragaudit {shlex.join(argv)}`. To start "
        "a matrix run, open the Runs page on a matrix results file or without `?results=`."
    )


def _run_form(loaded: Loaded) -> None:
    """The form starting a matrix run that writes the loaded file (or the default one)."""
    import streamlit as st

    with st.form("runs_form"):
        st.markdown(
            f"Start a run writing `{run_target(loaded.path)}`"
            if loaded.path is not None
            else "Start a run: refused for this link (see above); open the Runs page without "
            "`?results=` to write the default results file"
        )
        preset = st.radio("Preset", ["quick", "full", "custom"], horizontal=True, key="runs_preset")
        n = st.number_input("Instances per probe (custom)", 1, 100, 5, key="runs_n")
        embedders = st.multiselect(
            "Embedders", EMBEDDERS, default=EMBEDDERS[:1], key="runs_embedders"
        )
        generate = st.checkbox("Generate and grade answers", value=False, key="runs_generate")
        generator = st.selectbox("Generator", GENERATORS, key="runs_generator")
        gen_configs = st.multiselect(
            "Configs to generate on", CONFIGS, default=["A", "B", "C", "M"], key="runs_gen_configs"
        )
        submitted = st.form_submit_button("Start run", type="primary")
    if submitted:
        _start(run_args(preset, int(n), embedders, generator, gen_configs, generate), loaded)


def _start(args: list[str], loaded: Loaded) -> None:
    """Start the run writing the loaded (allowed) path; a refused link starts nothing."""
    import streamlit as st

    if loaded.path is None:
        st.error(f"Not started: {loaded.problem}")
        return
    try:
        pid = start_run(args, loaded.path)
    except RuntimeError as error:
        st.error(str(error))
    else:
        st.success(f"Started `ragaudit run {' '.join(args)}` (pid {pid}).")
        st.rerun()


def _live_status() -> None:
    import streamlit as st

    status = run_status()
    if status is None:
        st.caption("No run started from the inspector yet.")
        return

    @st.fragment(run_every=2 if status.alive else None)
    def panel() -> None:
        current = run_status()
        if current is None:
            return
        label = (
            "Run in progress"
            if current.alive
            else (
                "Run finished"
                if current.returncode == 0
                else f"Run ended with exit code {current.returncode}"
            )
        )
        state = "running" if current.alive else ("complete" if current.returncode == 0 else "error")
        with st.status(label, state=state, expanded=current.alive):
            if current.done is not None and current.total:
                fraction = min(1.0, current.done / current.total)
                st.progress(
                    fraction,
                    text=f"{current.stage or 'progress'}: {current.done}/{current.total}"
                    f" · ETA {_format_seconds(current.eta_seconds)}",
                )
            else:
                st.write("Waiting for the first progress report…")
            st.caption(f"pid {current.pid} · `{' '.join(current.argv[3:])}`")
            st.code(log_tail(current) or "(no output yet)", language=None)
        if current.alive and st.button("Stop run", key="runs_stop"):
            stop_run()
            st.rerun()

    panel()


def _render_conditions(results: dict) -> None:
    import streamlit as st

    conditions = results.get("conditions") or {}
    st.markdown(f"{fmt_model_calls(conditions)} File complete: {results.get('complete')}.")
    by_model = conditions.get("calls_by_model") or {}
    if by_model:
        st.dataframe([{"model": m, **v} for m, v in by_model.items()], hide_index=True)
    st.markdown(fmt_elapsed(conditions))
    generation = (results.get("run") or {}).get("generation_counts")
    if generation:
        st.markdown(fmt_generation_tokens(generation))
    st.markdown(fmt_contention(conditions))
    failed = conditions.get("failed_calls") or []
    if failed:
        with st.expander(f"{len(failed)} failed call record(s)"):
            st.dataframe(
                [
                    {
                        "model": f.get("model"),
                        "kind": f.get("kind"),
                        "error": f.get("error"),
                        "instances": len(f.get("instance_keys") or []),
                    }
                    for f in failed
                ],
                hide_index=True,
            )
    st.markdown("**Models**")
    st.dataframe(
        [
            {
                "spec": m.get("spec"),
                "kind": m.get("kind"),
                "backend": m.get("backend"),
                "name": m.get("name"),
                "digest": m.get("digest"),
                "digest reason": m.get("digest_reason"),
            }
            for m in results.get("models") or []
        ],
        hide_index=True,
        width="stretch",
    )
