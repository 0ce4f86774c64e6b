"""ragaudit: find out how a retrieval-augmented generation stack really fails.

The library's names are exported lazily (as lm-evaluation-harness exports
`simple_evaluate`): `import ragaudit` loads no model library, chromadb or llama-index;
each name imports its module when first used. See docs/python-api.md.

    import ragaudit
    results = ragaudit.mutate("docs/", "cases.yaml", my_factory, generate=False)
    results.mutation_scores()
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "run": "ragaudit.api.verbs:run",
    "mutate": "ragaudit.api.verbs:mutate",
    "audit": "ragaudit.api.verbs:audit",
    "gate": "ragaudit.api.verbs:gate",
    "compare": "ragaudit.api.verbs:compare",
    "load": "ragaudit.api.verbs:load",
    "cases": "ragaudit.api.mined:cases",
    "MinedCases": "ragaudit.api.mined:MinedCases",
    "Results": "ragaudit.api.results:Results",
    "Case": "ragaudit.auditing.cases:IntentSpec",
    "Components": "ragaudit.targets.objects:Components",
    "Limits": "ragaudit.targets.bounded:UserCodeLimits",
    "Verdict": "ragaudit.gating.verdict:GateVerdict",
    "RagauditError": "ragaudit.errors:RagauditError",
}
"""Public name -> ``"module:attribute"``, imported on first use."""

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'ragaudit' has no attribute {name!r}")
    import importlib

    module, _, attribute = _EXPORTS[name].partition(":")
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
