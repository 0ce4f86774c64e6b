"""The results-file contract: its version and required top-level fields.

The full field-by-field description is docs/results-schema.md; keep the two in step.
"""

SCHEMA_VERSION = 2

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
