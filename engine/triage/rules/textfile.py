"""Reading the rules file's bytes line by line. A line that is not valid UTF-8 (a byte from
another encoding, pasted or saved by another editor) is left out and reported, and the rest
of the file applies: as for any line that cannot be read, one line never stops the others."""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass
from functools import lru_cache

log = logging.getLogger(__name__)

_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
NOT_UTF8 = "not valid UTF-8: skipped, the rest of the file applies (re-save the file as UTF-8)"


@dataclass(frozen=True)
class UnreadableLine:
    """A line left out: its number, and its text (shown as rule lines are, without the
    bullet) with the bytes that are not UTF-8 escaped (``caf\\xe9``)."""

    line_number: int
    text: str
    reason: str = NOT_UTF8


@dataclass(frozen=True)
class RulesText:
    """The text the rules are read from (an empty line in place of each unreadable one, so
    every other line keeps its number), and the lines left out."""

    text: str
    unreadable: tuple[UnreadableLine, ...] = ()


def decode_rules(raw: bytes) -> RulesText:
    """``raw`` as text, line by line; each unreadable line is logged once per version."""
    return _decode(hashlib.sha256(raw).hexdigest(), raw)


@lru_cache(maxsize=32)
def _decode(digest: str, raw: bytes) -> RulesText:
    pieces: list[str] = []
    unreadable: list[UnreadableLine] = []
    # A UTF-8 sequence never holds the bytes of \n or \r: splitting the bytes is safe.
    for number, line in enumerate(raw.splitlines(keepends=True), start=1):
        body = line.rstrip(b"\r\n")
        ending = line[len(body) :].decode("ascii")
        try:
            pieces.append(body.decode("utf-8") + ending)
        except UnicodeDecodeError:
            shown = _BULLET.sub("", body.decode("utf-8", "backslashreplace"), count=1).strip()
            unreadable.append(UnreadableLine(number, shown))
            pieces.append(ending)
            log.error("rules line %d (%s) is %s", number, shown[:80], NOT_UTF8)
    # As reading the file as text does: any line ending becomes \n.
    text = "".join(pieces).replace("\r\n", "\n").replace("\r", "\n")
    return RulesText(text, tuple(unreadable))
