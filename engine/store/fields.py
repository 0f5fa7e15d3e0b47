"""Column types: timestamps always stored as UTC ISO-8601 text (sortable, timezone-safe), JSON
as text, and the closed word sets of :mod:`engine.store.values` as their plain strings.

The ``__new__`` overloads exist for the type checker only (as in peewee's stubs): they give a
column its Python type, ``X | None`` where it was declared ``null=True``."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast, overload

import peewee as pw

_V = TypeVar("_V")
_E = TypeVar("_E", bound=StrEnum)

if TYPE_CHECKING:
    _Text = pw.TextField
else:

    class _Text(pw.TextField):
        """peewee's fields are generic in its stubs only: ``_Text[X]`` is ``_Text`` here."""

        def __class_getitem__(cls, _item: object) -> type:
            return cls


def utcnow() -> datetime:
    return datetime.now(UTC)


class UtcDateTimeField(_Text[_V]):
    if TYPE_CHECKING:

        @overload
        def __new__(
            cls, *args: Any, null: Literal[True], **kwargs: Any
        ) -> UtcDateTimeField[datetime | None]: ...
        @overload
        def __new__(
            cls, *args: Any, null: Literal[False] = ..., **kwargs: Any
        ) -> UtcDateTimeField[datetime]: ...
        def __new__(cls, *args: Any, **kwargs: Any) -> Any: ...

    def db_value(self, value: datetime | None) -> str | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        try:
            utc = value.astimezone(UTC)
        except OverflowError:  # years 1 and 9999 shifted past the ends of the calendar
            edge = datetime.min if value.year < 5000 else datetime.max
            utc = edge.replace(tzinfo=UTC)
        return utc.isoformat(timespec="microseconds")

    def python_value(self, value: str | None) -> datetime | None:
        if value is None:
            return None
        try:
            return datetime.fromisoformat(value)
        except (TypeError, ValueError) as exc:
            raise _damaged(self, value, exc) from None


class JsonField(_Text[dict[str, Any]]):
    """A JSON object (tool arguments, a notification's refs, a message's meta)."""

    def db_value(self, value: dict[str, Any] | None) -> str | None:
        return None if value is None else json.dumps(value, ensure_ascii=False)

    def python_value(self, value: str | None) -> dict[str, Any] | None:
        if value is None:
            return None
        try:
            return cast("dict[str, Any]", json.loads(value))
        except (TypeError, ValueError) as exc:
            raise _damaged(self, value, exc) from None


class EnumField(_Text[_E]):
    """A text column holding one member of a StrEnum. The database keeps the member's value,
    so the stored strings are the same as before the enum existed; reads give the member.
    Writes also take the plain string (the value, not the name) and fail on any other."""

    if TYPE_CHECKING:

        def __new__(cls, enum: type[_E], *args: Any, **kwargs: Any) -> EnumField[_E]: ...
        def __set__(self, instance: object, value: _E | str) -> None: ...

    def __init__(self, enum: type[_E], *args: Any, **kwargs: Any) -> None:
        self.enum = enum
        super().__init__(*args, **kwargs)

    def db_value(self, value: _E | str | None) -> str | None:
        return None if value is None else self.enum(value).value

    def python_value(self, value: str | None) -> _E | None:
        if value is None:
            return None
        try:
            return self.enum(value)
        except ValueError as exc:
            raise _damaged(self, value, exc) from None


def _damaged(field: pw.Field, value: object, exc: Exception) -> Exception:
    """A stored value this column cannot read: the store is damaged (``engine.store.damage``)."""
    from engine.store.damage import value_damage

    return value_damage(field, value, exc)
