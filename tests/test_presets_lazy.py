"""The run presets do no work at import time (issue 42): importing ragaudit.stack.presets
loads no probe, and the probe lists it names are read from the catalogue on first use, the
same lists as before."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# In a fresh interpreter: which probe modules the import loaded, then what the lists read.
IMPORT_THEN_READ = """
import json, sys
from ragaudit.stack import presets
loaded = sorted(name for name in sys.modules if name.startswith("ragaudit.probes"))
from ragaudit.stack.presets import SECONDARY_PROBES
print(json.dumps({
    "loaded_by_import": loaded,
    "answer": presets.ANSWER_PROBES,
    "quick": presets.QUICK.gen_probes,
    "reference": presets.REFERENCE.gen_probes,
    "full": presets.FULL.gen_probes,
    "secondary": SECONDARY_PROBES,
    "catalogue_after_reading": "ragaudit.probes.catalogue" in sys.modules,
}))
"""

# The originating study's seven answer probes (docs/configs.md), and the secondary
# embedder's certifying probes, by hand.
ANSWER = [
    "control", "distractor", "negation", "superseded", "summarisation", "table_split",
    "unanswerable",
]  # fmt: skip
SECONDARY = ["control", "paraphrase", "negation"]


def test_importing_the_presets_loads_no_probe_and_the_lists_are_read_on_first_use():
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_THEN_READ], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["loaded_by_import"] == []
    assert seen["answer"] == seen["quick"] == seen["reference"] == ANSWER
    assert seen["full"] is None  # every probe
    assert seen["secondary"] == SECONDARY
    assert seen["catalogue_after_reading"] is True


def test_a_name_the_presets_do_not_have_is_an_attribute_error():
    from ragaudit.stack import presets

    with pytest.raises(AttributeError, match="NO_SUCH_PRESET_LIST"):
        presets.NO_SUCH_PRESET_LIST  # noqa: B018 - the read is the test
