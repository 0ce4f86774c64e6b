"""`python -m benchmarks.ui`: server-side times of the inspector, each beside a baseline
measured in the same run (other work on the machine makes raw timings noisy).

1. The Matrix page's first render from a full results file (target <= 2 s), against the
   same AppTest harness rendering a one-line page, and against json-parsing the file.
2. The Lab on the shipped reference run, as `ragaudit demo` opens it: its first response
   (the page switched to after the Matrix page, a cold call cache; target <= 2 s), beside
   the same page's unchanged rerun; then a toggle of k, and of hybrid, with warm caches
   (target <= 300 ms): the fragment's own work, and a whole-page AppTest rerun (an upper
   bound: AppTest reruns the page).
3. An overlap change that needs new embeddings (reported), against the embedder's
   throughput on 64 fresh texts measured right after.
4. The Lab's chunk timeline redrawn after an overlap change whose embeddings are cached,
   beside the page's unchanged rerun (benchmarks/ui_lab_timeline.py).
5. The Compare page's first render for two n=25 files, beside the Matrix page's first
   render of one (benchmarks/ui_compare.py).
6. With --demo (alone: its reference case starts the quick run, so run it under
   `flock /tmp/ragaudit-model.lock`): `ragaudit demo` to the "what failed" summary on
   screen in a real browser, on the reference and (--finished FILE) on a finished quick
   run (benchmarks/ui_demo.py).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.ui_compare import report_compare
from benchmarks.ui_lab_timeline import report_lab_timeline
from ragaudit import paths
from ragaudit.backends.cache import CallCache
from ragaudit.backends.specs import load_embedder
from ragaudit.corpus.files import load_planted_corpus
from ragaudit.results.reference import REFERENCE_FILE
from tests.helpers.fixture.build import write_results

TARGET_MATRIX_S = 2.0
TARGET_LAB_FIRST_S = 2.0
TARGET_TOGGLE_MS = 300.0


def _timed(fn, repeat: int = 1) -> float:
    """Median wall seconds of `fn()` over `repeat` calls."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _full_results(home: Path, results_arg: str | None) -> tuple[Path, str]:
    """A full results file: the one given, the default one if complete, else a built n=25 one."""
    if results_arg:
        return Path(results_arg), "given"
    default = paths.default_results_path()
    unread = ""
    if default.exists():
        try:
            data = json.loads(default.read_text())
            if data.get("complete") and data.get("corpus", {}).get("n", 0) >= 25:
                return default, "the default results file (complete, n>=25)"
        except (OSError, json.JSONDecodeError) as error:
            # said in the figures' source line: a corrupt default must not pass unnoticed
            unread = f" (the default results file {default} is unreadable: {error})"
    path = write_results(home / "results" / "bench-full.json", n=25)
    return path, f"the synthetic one of tests.helpers.fixture at n=25{unread}"


def bench_matrix(home: Path, results_arg: str | None) -> dict:
    """Cold first render of the Matrix page vs a trivial page and vs json.loads of the file."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    path, source = _full_results(home, results_arg)
    trivial = home / "trivial_app.py"
    trivial.write_text("import streamlit as st\nst.title('baseline')\n")

    def trivial_run():
        AppTest.from_file(str(trivial), default_timeout=60).run()

    def matrix_first_render():
        st.cache_data.clear()  # first render: nothing loaded yet
        at = AppTest.from_file(str(paths.app_script()), default_timeout=60)
        os.environ["RAGAUDIT_RESULTS"] = str(path)  # as `ragaudit app --results` does
        at.run()
        if at.exception or not at.get("plotly_chart"):
            raise RuntimeError(f"the Matrix page did not render: {at.exception}")

    trivial_run()  # warm imports once, for both
    baseline_app = _timed(trivial_run, 3)
    baseline_json = _timed(lambda: json.loads(path.read_text()), 3)
    matrix = _timed(matrix_first_render, 3)
    return {
        "file": str(path),
        "source": source,
        "megabytes": round(path.stat().st_size / 1e6, 1),
        "matrix_s": matrix,
        "baseline_trivial_page_s": baseline_app,
        "baseline_json_parse_s": baseline_json,
    }


def bench_lab(embedder: str, overlap: int) -> dict:
    """The Lab page: cold first render, warm toggles of k and hybrid, then an overlap change
    that needs new embeddings; timings are the fragment's own work and whole AppTest reruns."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(paths.app_script()), default_timeout=1800)
    at.query_params["embedder"] = embedder
    at.run()
    first_s = _timed(lambda: at.switch_page("pages/lab.py").run())
    if at.exception:
        raise RuntimeError(f"the Lab did not render: {at.exception[0].value}")
    first_chunks, first_computed = at.session_state["lab_index_counts"]
    first_shipped = at.session_state["lab_index_shipped"]
    first_baseline = _timed(lambda: at.run(), 3)  # the Lab rerun with nothing changed
    at.toggle(key="lab_hybrid").set_value(True).run()  # warm the hybrid rankings
    at.toggle(key="lab_hybrid").set_value(False).run()
    k_work, k_page, hybrid_work, hybrid_page = [], [], [], []
    for k in (4, 5, 6, 3, 8):
        k_page.append(_timed(lambda k=k: at.slider(key="lab_k").set_value(k).run()))
        k_work.append(at.session_state["lab_last_ms"])
    for hybrid in (True, False, True, False):
        hybrid_page.append(_timed(lambda h=hybrid: at.toggle(key="lab_hybrid").set_value(h).run()))
        hybrid_work.append(at.session_state["lab_last_ms"])
    baseline = _timed(lambda: at.run(), 5)  # the same page rerun with nothing changed
    overlap_s = _timed(lambda: at.selectbox(key="lab_overlap").set_value(overlap).run())
    overlap_work_ms = at.session_state["lab_last_ms"]
    chunks, computed = _lab_counts(at)
    return {
        "first_render_s": first_s,
        "first_chunks": first_chunks,
        "first_computed": first_computed,
        "first_shipped": first_shipped,
        "first_baseline_s": first_baseline,
        "k_fragment_ms": statistics.median(k_work),
        "k_page_ms": statistics.median(k_page) * 1000,
        "hybrid_fragment_ms": statistics.median(hybrid_work),
        "hybrid_page_ms": statistics.median(hybrid_page) * 1000,
        "baseline_unchanged_rerun_ms": baseline * 1000,
        "overlap_page_s": overlap_s,
        "overlap_fragment_ms": overlap_work_ms,
        "overlap_chunks": chunks,
        "overlap_computed": computed,
    }


def _lab_counts(at) -> tuple[int, int]:
    """(chunks, embeddings computed) from the Lab's caption for the current index."""
    import re

    for caption in at.caption:
        match = re.search(r"(\d+) chunks; .* (\d+) embeddings computed", caption.value)
        if match:
            return int(match.group(1)), int(match.group(2))
    raise RuntimeError("the Lab did not report its index")


def embed_throughput(embedder_spec: str) -> float:
    """Texts per second embedding 64 never-seen 1,000-character texts (the baseline)."""

    docs = load_planted_corpus().documents[:64]
    embedder = load_embedder(embedder_spec, CallCache())
    embedder.embed(["warm up"])  # model load outside the timing
    fresh = [f"{time.time_ns()} {doc.text[:1000]}" for doc in docs]
    return len(fresh) / _timed(lambda: embedder.embed(fresh))


def main(argv: list[str]) -> int:
    """Run the UI benchmarks and print each figure with its baseline and ratio."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ui")
    parser.add_argument("--results", default=None, help="a full results file (default: see above)")
    parser.add_argument("--embedder", default="local:minilm")
    parser.add_argument("--skip-lab", action="store_true", help="only the Matrix figure")
    parser.add_argument("--overlap", type=int, default=64, help="overlap for the cold index")
    parser.add_argument(
        "--lab-home",
        default=None,
        help="RAGAUDIT_HOME whose call cache the Lab uses (default: an empty one, so cold)",
    )
    parser.add_argument(
        "--demo", action="store_true", help="only the demo-to-summary figures (see above)"
    )
    parser.add_argument("--finished", default=None, help="a finished quick run's results file")
    args = parser.parse_args(argv)
    if args.demo:
        from benchmarks.ui_demo import report_demo

        report_demo(args.finished)
        return 0
    import logging

    # AppTest outside a server logs a line per cache call; the figures are what matter here.
    for name in ("streamlit", "streamlit.runtime"):
        logging.getLogger(name).setLevel(logging.ERROR)

    with tempfile.TemporaryDirectory(prefix="ragaudit-bench-ui-") as tmp:
        home = Path(tmp)
        _report_matrix(bench_matrix(home, args.results))
        report_compare(home / "compare")  # two n=25 files, beside the Matrix render
        if args.skip_lab:
            return 0
        # The Lab's call cache lives under RAGAUDIT_HOME: an empty one, so the first render
        # and the overlap change embed for real (model weights stay shared). The Lab shows
        # the shipped reference run, as `ragaudit demo` opens the inspector on it.
        os.environ["RAGAUDIT_HOME"] = args.lab_home or str(home / "lab")
        os.environ["RAGAUDIT_RESULTS"] = str(REFERENCE_FILE)
        _report_lab(bench_lab(args.embedder, args.overlap), args)
        report_lab_timeline(args.embedder, args.overlap)  # its embeddings are cached by now
    return 0


def _report_matrix(m: dict) -> None:
    """Print the Matrix page's first-render figure beside its two baselines."""
    ratio = m["matrix_s"] / m["baseline_trivial_page_s"]
    print(f"results file: {m['file']} ({m['megabytes']} MB, {m['source']})")
    print(
        f"matrix first render: {m['matrix_s']:.2f} s (target <= {TARGET_MATRIX_S} s: "
        f"{'met' if m['matrix_s'] <= TARGET_MATRIX_S else 'MISSED'}); "
        f"baseline one-line page {m['baseline_trivial_page_s'] * 1000:.0f} ms (x{ratio:.1f}); "
        f"json.loads of the file {m['baseline_json_parse_s'] * 1000:.0f} ms "
        f"(x{m['matrix_s'] / m['baseline_json_parse_s']:.1f})"
    )


def _report_lab(lab: dict, args: argparse.Namespace) -> None:
    """Print the Lab's figures; the overlap change beside the embedder's measured throughput."""
    first = lab["first_render_s"]
    print(
        "lab first response on the shipped reference ("
        + (f"call cache of {args.lab_home}" if args.lab_home else "cold call cache")
        + f", {lab['first_chunks']} chunks: {lab['first_shipped']} vectors shipped, "
        + f"{lab['first_computed']} embeddings computed): {first:.2f} s (target <= "
        + f"{TARGET_LAB_FIRST_S:.0f} s: {'met' if first <= TARGET_LAB_FIRST_S else 'MISSED'}); "
        + f"baseline unchanged rerun of the Lab {lab['first_baseline_s'] * 1000:.0f} ms "
        + f"(x{first / lab['first_baseline_s']:.1f})"
    )
    for name in ("k", "hybrid"):
        work = lab[f"{name}_fragment_ms"]
        print(
            f"lab toggle of {name} (warm): fragment work {work:.1f} ms (target <= "
            f"{TARGET_TOGGLE_MS:.0f} ms: {'met' if work <= TARGET_TOGGLE_MS else 'MISSED'}); "
            f"whole-page AppTest rerun {lab[f'{name}_page_ms']:.0f} ms; baseline unchanged "
            f"rerun {lab['baseline_unchanged_rerun_ms']:.0f} ms "
            f"(x{lab[f'{name}_page_ms'] / lab['baseline_unchanged_rerun_ms']:.2f})"
        )
    rate = embed_throughput(args.embedder)
    chunks, computed = lab["overlap_chunks"], lab["overlap_computed"]
    expected = computed / rate
    print(
        f"lab overlap change to {args.overlap} needing new embeddings: "
        f"{lab['overlap_page_s']:.1f} s whole rerun ({lab['overlap_fragment_ms'] / 1000:.1f} s "
        f"fragment) for {chunks} chunks, {computed} embeddings computed (the rest are "
        f"texts already cached); baseline {rate:.1f} texts/s on 64 fresh texts predicts "
        f"{expected:.1f} s for those (x{lab['overlap_page_s'] / max(expected, 1e-9):.2f})"
    )


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
