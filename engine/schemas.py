"""JSON-schema validation with each schema's validator built once.

``jsonschema.validate`` checks the schema itself and builds a validator on every call: in a
tick that notifies thousands of events that was over a third of the time, twice per
notification. Here a schema is checked and compiled the first time it is seen (keyed by its
JSON text, so equal schemas built afresh, like an agent step's action schema, share one) and
validated with the same semantics: the best-matching error is raised."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import jsonschema
from jsonschema.exceptions import best_match
from jsonschema.protocols import Validator

ValidationError = jsonschema.ValidationError


@lru_cache(maxsize=256)
def _compiled(text: str) -> Validator:
    schema = json.loads(text)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def validator(schema: Mapping[str, Any]) -> Validator:
    """The validator of ``schema``, built (and the schema checked) once."""
    return _compiled(json.dumps(schema, sort_keys=True))


def validate(instance: Any, schema: Mapping[str, Any]) -> None:
    """As ``jsonschema.validate``: raises the best-matching ``ValidationError``."""
    error = best_match(validator(schema).iter_errors(instance))
    if error is not None:
        raise error
