"""The results-file contract: its version and required top-level fields.

The full field-by-field description is docs/results-schema.md; keep the two in step.
"""

SCHEMA_VERSION = 4

ALSO_READS = (3, 2)
"""Older versions still read: what version 3 added (overlap rules, input windows, T4000,
oracle prompts and attribution, the score each sweep names) and version 4 (the user's stack
columns, approximate spans, openai: models, workers) is absent from them, and the report and
inspector say "not measured in this file" there."""

TOP_LEVEL_FIELDS = (
    "schema_version",
    "created_at",
    "complete",
    "run",
    "corpus",
    "configs",
    "embedders",
    "models",
    "conditions",
    "chunks",
    "instances",
    "cells",
    "comparisons",
)


# The words the results file is written in, read by analysis, the report and the inspector
# alike: kept here, below all of them, so none imports another for a name.

RETRIEVAL_MEASURES = ("gold_in_context", "span_preserved")
"""The per-record retrieval measures a cell counts (docs/results-schema.md, cells)."""

VERDICT_MEASURES = (
    "abstained",
    "trap_taken",
    "empty",
    "failed_call",
    "labels_only",
    "partial_list",
    "denied_record",
    "wrong",
)
"""The grader outcomes a cell counts, beside `correct`."""

ATTRIBUTIONS = ("retrieval", "generation", "ceiling", "correct", "failed_call")
"""Every value a record's `attribution` takes, in the order the report shows them."""
