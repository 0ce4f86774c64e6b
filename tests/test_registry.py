"""The near-miss message every unknown name gets (probes, configs, specs, commands)."""

from __future__ import annotations

import pytest

from ragaudit.errors import RagauditError
from ragaudit.registry import Registry, unknown_name_message


def test_near_miss_is_suggested():
    message = unknown_name_message("probe", "boundry", ["boundary", "control"])
    assert message == "unknown probe 'boundry'; did you mean 'boundary'? valid: boundary, control"


def test_no_near_miss_still_separates_the_valid_names():
    message = unknown_name_message("probe", "xyz", ["boundary", "control"])
    assert message == "unknown probe 'xyz'; valid: boundary, control"


def test_registry_refuses_duplicates_and_unknown_names():
    registry: Registry[int] = Registry("widget")
    registry.add("one", 1)
    with pytest.raises(ValueError, match="widget 'one' is registered twice"):
        registry.add("one", 2)
    with pytest.raises(RagauditError, match="unknown widget 'two'; valid: one"):
        registry.get("two")
