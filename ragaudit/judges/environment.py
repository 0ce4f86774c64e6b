"""The metric libraries' environment, set before either is imported: no telemetry, no
files in the working folder, no timeouts of their own (the proxy bounds each call).

RAGAS and DeepEval pull in posthog, opentelemetry, tiktoken and nltk, each of which may
reach the network at run time. Their opt-outs are set here; token counts come from the
judge's `usage` fields through the proxy, never from tiktoken. DeepEval writes a
`.deepeval/` folder into the working directory unless told where, and bounds each metric
with a 180 s budget of its own, which a CPU judge exceeds: the proxy's deadline
(RAGAUDIT_TIMEOUT) bounds each call instead. Transient failures are retried in one place,
the proxy (RAGAUDIT_RETRIES), for both libraries alike: DeepEval's own retries are set to
one attempt, and RAGAS's client is built without SDK retries (judges.ragas_metrics).
"""

from __future__ import annotations

import os
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from ragaudit.errors import RagauditError

LIBRARIES = {"ragas": "0.4.3", "deepeval": "4.3.1"}
"""The pinned versions of the `judges` extra (pyproject.toml)."""
EXTRA = "pip install 'ragaudit[judges]'"

OFFLINE = {
    "RAGAS_DO_NOT_TRACK": "true",
    "DEEPEVAL_TELEMETRY_OPT_OUT": "1",
    "DEEPEVAL_UPDATE_WARNING_OPT_IN": "0",
    "DEEPEVAL_GRPC_LOGGING": "0",
    "DEEPEVAL_DISABLE_DOTENV": "1",
    "DEEPEVAL_DISABLE_TIMEOUTS": "1",
    "DEEPEVAL_RETRY_MAX_ATTEMPTS": "1",
    "ERROR_REPORTING": "0",
    "POSTHOG_DISABLED": "1",
    "OTEL_SDK_DISABLED": "true",
    "ANONYMIZED_TELEMETRY": "False",
    "HF_HUB_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


def library_versions(libraries: list[str]) -> dict[str, str]:
    """The installed version of each library named; one line naming the extra when one is
    missing or not the pinned version (a check before any work)."""
    found = {}
    for library in libraries:
        try:
            found[library] = version(library)
        except PackageNotFoundError:
            raise RagauditError(f"{library} is not installed: {EXTRA}") from None
        if found[library] != LIBRARIES[library]:
            raise RagauditError(
                f"{library} {found[library]} is installed; ragaudit judges is pinned to "
                f"{library}=={LIBRARIES[library]}: {EXTRA}"
            )
    return found


def prepare(work_dir: Path) -> None:
    """Set the libraries' environment (before importing them): the offline switches, and
    DeepEval's folder under `work_dir`."""
    for name, value in OFFLINE.items():
        os.environ[name] = value
    folder = work_dir / "deepeval"
    folder.mkdir(parents=True, exist_ok=True)
    os.environ["DEEPEVAL_CACHE_FOLDER"] = str(folder)
    os.environ.pop("DEEPEVAL_RESULTS_FOLDER", None)
