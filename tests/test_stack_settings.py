"""One schema for the retrieval settings (stack.settings): the built-in configs, user
configs, audit settings and stack files all carry its fields, with its checks."""

from __future__ import annotations

import dataclasses

import pytest
from annotated_types import Ge
from pydantic import ValidationError

from ragaudit.auditing.settings import AuditSettings
from ragaudit.stack.configs import MATRIX, OUTSIDE_MATRIX, StackConfig
from ragaudit.stack.settings import RETRIEVAL_FIELDS, retrieval_settings_model
from ragaudit.targets.stackfile_schema import stack_file_model


def test_every_built_in_config_is_valid_retrieval_settings():
    model = retrieval_settings_model()
    for config in (*MATRIX, *OUTSIDE_MATRIX):
        fields = {name: getattr(config, name) for name in RETRIEVAL_FIELDS}
        assert model.model_validate(fields).model_dump() == fields, config.name


def test_the_built_in_config_and_the_settings_model_name_the_same_fields():
    assert set(RETRIEVAL_FIELDS) == set(retrieval_settings_model().model_fields)
    assert set(RETRIEVAL_FIELDS) <= {f.name for f in dataclasses.fields(StackConfig)}


def test_audit_settings_extend_the_one_model_with_its_documented_defaults():
    assert issubclass(AuditSettings, retrieval_settings_model())
    default = AuditSettings()  # the defaults an audit's settings file may leave out
    assert (default.splitter, default.chunk_size, default.overlap, default.k) == (
        "recursive",
        1000,
        0,
        6,
    )


def test_a_stack_file_takes_k_and_hybrid_from_the_one_model_with_its_documented_default():
    settings = retrieval_settings_model().model_fields
    stack = stack_file_model().model_fields
    assert {"chunk_size", "overlap", "overlap_rule"}.isdisjoint(stack)  # its splitter is theirs
    assert stack["k"].metadata == settings["k"].metadata == [Ge(ge=1)]
    # The one documented difference: a stack file's k has no default (a pipeline may omit it).
    assert (settings["k"].default, stack["k"].default) == (6, None)
    assert settings["hybrid"].default is stack["hybrid"].default is False
    assert settings["k"].default == 6  # taking the field left the settings model as it was


def test_a_change_to_the_one_model_reaches_the_stack_files_k(monkeypatch):
    from pydantic import Field, create_model

    from ragaudit.stack import settings as module

    stricter = create_model(
        "Stricter", __base__=retrieval_settings_model(), k=(int, Field(default=6, ge=2))
    )
    stack_file_model.cache_clear()
    try:
        with monkeypatch.context() as patch:
            patch.setattr(module, "retrieval_settings_model", lambda: stricter)
            assert stack_file_model().model_fields["k"].metadata == [Ge(ge=2)]
    finally:
        stack_file_model.cache_clear()
    assert stack_file_model().model_fields["k"].metadata == [Ge(ge=1)]


@pytest.mark.parametrize(
    "fields",
    [
        {"chunk_size": 100, "overlap": 100},
        {"splitter": "fixed", "overlap": 10, "overlap_rule": "langchain"},
        {"k": 0},
    ],
)
def test_one_check_refuses_an_impossible_setting_everywhere(fields):
    with pytest.raises(ValidationError):
        retrieval_settings_model().model_validate(fields)
    with pytest.raises(ValidationError):
        AuditSettings(**fields)
