"""The inspector's tests' fixtures, in one import.

The synthetic results file (docs/results-schema.md, built not recorded) lives in
ragaudit.bench.fixture, because the UI benchmark reads it too; the AppTest helpers
live in ui_apptest.
"""

from __future__ import annotations

from ui_apptest import APP, chart_specs, click_chart, open_app, texts  # noqa: F401 - re-exported

from ragaudit.bench.fixture.build import build_results, write_results  # noqa: F401 - re-exported
