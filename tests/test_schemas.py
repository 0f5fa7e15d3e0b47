"""JSON-schema validation with compiled validators: jsonschema.validate's errors, built once."""

from __future__ import annotations

import jsonschema
import pytest

from engine import schemas
from engine.agent.draft import NOTIFICATION_SCHEMA


def test_equal_schemas_share_one_validator_checked_once() -> None:
    copy = {**NOTIFICATION_SCHEMA, "properties": dict(NOTIFICATION_SCHEMA["properties"])}
    assert schemas.validator(NOTIFICATION_SCHEMA) is schemas.validator(copy)


@pytest.mark.parametrize(
    "payload",
    [
        {"source": "fax", "event_type": "x", "summary": "s"},
        {"source": "email", "summary": "s"},
        {"source": "email", "event_type": "x", "summary": "", "extra": 1},
    ],
)
def test_errors_are_the_ones_jsonschema_validate_raises(payload: dict[str, object]) -> None:
    with pytest.raises(jsonschema.ValidationError) as expected:
        jsonschema.validate(payload, NOTIFICATION_SCHEMA)
    with pytest.raises(schemas.ValidationError) as got:
        schemas.validate(payload, NOTIFICATION_SCHEMA)
    assert got.value.message == expected.value.message


def test_a_broken_schema_is_refused() -> None:
    with pytest.raises(jsonschema.SchemaError):
        schemas.validate({}, {"type": "no such type"})
