"""Column types: timestamps always stored as UTC ISO-8601 text (sortable, timezone-safe)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import peewee as pw


def utcnow() -> datetime:
    return datetime.now(UTC)


class UtcDateTimeField(pw.TextField):
    def db_value(self, value: datetime | None) -> str | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        return value.astimezone(UTC).isoformat(timespec="microseconds")

    def python_value(self, value: str | None) -> datetime | None:
        return None if value is None else datetime.fromisoformat(value)


class JsonField(pw.TextField):
    def db_value(self, value: Any) -> str | None:
        return None if value is None else json.dumps(value, ensure_ascii=False)

    def python_value(self, value: str | None) -> Any:
        return None if value is None else json.loads(value)
