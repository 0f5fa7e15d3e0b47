"""The words a rule's reading is said with, in each supported language: the ``[readings]``
table of ``engine/triage/language/<code>.toml`` (as written), and ``[readings.kinds]`` for
the kinds of message (English: the classifier's ``KIND_NAMES``). Code only fills in the
``{fields}``; a key a language lacks is said in English."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from engine.triage.classifier import KIND_NAMES
from engine.triage.language import LANGUAGES, raw_table

ENGLISH = "en"


@dataclass(frozen=True)
class Phrasing:
    """One language's reading words, with English's behind them."""

    code: str
    table: Mapping[str, Any]
    english: Mapping[str, Any]

    def _get(self, key: str) -> Any:
        return self.table[key] if key in self.table else self.english[key]

    def text(self, key: str, **fields: object) -> str:
        return str(self._get(key)).format(**fields)

    def mapped(self, key: str, name: str) -> str:
        """An entry of a table of names (``sources``, ``event_types``)."""
        own = self.table.get(key, {})
        return str(own[name] if name in own else self.english[key][name])

    def kind(self, name: str) -> str:
        """What a kind of message is called ("receipts, invoices and order confirmations")."""
        own = self.table.get("kinds", {})
        return str(own.get(name) or KIND_NAMES.get(name, name))

    def day(self, number: int) -> str:
        return str(self._get("days")[number])

    def unit(self, name: str, count: int) -> str:
        one, several = self.mapped_pair("units", name)
        return one if count == 1 else several

    def mapped_pair(self, key: str, name: str) -> tuple[str, str]:
        own = self.table.get(key, {})
        first, second = own[name] if name in own else self.english[key][name]
        return str(first), str(second)

    def either(self, items: list[str]) -> str:
        """ "a, b or c" in the language."""
        if len(items) <= 1:
            return "".join(items)
        return f"{', '.join(items[:-1])} {self.text('or')} {items[-1]}"

    def quoted(self, text: str) -> str:
        return self.text("quote", text=text)


@cache
def phrasing(code: str = ENGLISH) -> Phrasing:
    """The reading words of a supported language (English for any other code)."""
    tables = raw_table("readings")
    chosen = code if code in LANGUAGES else ENGLISH
    return Phrasing(chosen, tables.get(chosen) or {}, tables[ENGLISH])


__all__ = ["ENGLISH", "Phrasing", "phrasing"]
