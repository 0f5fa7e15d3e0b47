"""Lines held for the user's yes: a Never line, or an "only if" line, whose reading would
silence most of the user's recent messages is not applied until the user confirms it
("This would silence 183 of your last 271 messages — apply it?").

A reading can be faithful and still say more than the user meant ("Never notify: emails");
when it would silence most of what arrived lately, TIC asks before acting on it. The user's
yes is kept beside the rules file, in ``data/notifications.confirmed.json`` (the line as
written, so the file itself stays the user's words); a line changed since is asked about
again. A catch-all ("anything that fits no other category") is broad by what it says and
is never held.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from engine.events import Event
from engine.triage.classifier import classify
from engine.triage.rules.compile import CompiledRule
from engine.workspace.atomic import atomic_write

log = logging.getLogger(__name__)

CONFIRMED_FILE = "data/notifications.confirmed.json"
BROAD_SHARE = 0.5
"""A line that would silence more than this share of the recent messages is held."""
MIN_SAMPLE = 20
"""With fewer recent messages than this, nothing is held: too few to tell."""
SAMPLE = 300
"""How many of the latest messages a line is measured on."""


@dataclass(frozen=True)
class Hold:
    line_number: int
    text: str
    silenced: int
    total: int

    @property
    def sentence(self) -> str:
        return (
            f"held: this would silence {self.silenced} of your last {self.total} messages "
            "\u2014 confirm it to apply it"
        )


def silenced_by(rule: CompiledRule, sample: Sequence[tuple[Event, datetime]]) -> int:
    """How many of ``sample`` the line alone would silence."""
    count = 0
    for event, now in sample:
        kinds = classify(event)
        if rule.applies(event, now, kinds) and not rule.verdict(event, now, kinds):
            count += 1
    return count


def broad_lines(
    compiled: Iterable[CompiledRule],
    sample: Sequence[tuple[Event, datetime]],
    confirmed: frozenset[str] = frozenset(),
) -> list[Hold]:
    """The lines to hold: understood Never and "only if" lines, not confirmed, that would
    silence more than ``BROAD_SHARE`` of ``sample``."""
    if len(sample) < MIN_SAMPLE:
        return []
    out = []
    for rule in compiled:
        if not rule.understood or rule.catch_all or rule.action == "notify":
            continue
        if rule.rule.text in confirmed:
            continue
        silenced = silenced_by(rule, sample)
        if silenced > BROAD_SHARE * len(sample):
            out.append(Hold(rule.rule.line_number, rule.rule.text, silenced, len(sample)))
    return out


def _read(path: Path) -> dict[str, Any]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("%s cannot be read, nothing in it is applied: %s", path.name, exc)
        return {}
    return raw if isinstance(raw, dict) else {}


def _write(path: Path, data: dict[str, Any]) -> None:
    atomic_write(path, json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n")


def read_confirmed(path: Path) -> frozenset[str]:
    """The lines the user confirmed; an unreadable file confirms nothing (and is logged)."""
    lines = _read(path).get("confirmed")
    return frozenset(x for x in lines or () if isinstance(x, str))


def confirm(path: Path, line: str) -> None:
    """Keep the user's yes to a held line."""
    data = _read(path)
    data["confirmed"] = sorted(read_confirmed(path) | {line})
    _write(path, data)


def read_accepted(path: Path) -> dict[str, str]:
    """The readings the user accepted for lines read only in part: line → "sender" or
    "topic" (``engine.triage.rules.suggest``)."""
    found = _read(path).get("readings")
    if not isinstance(found, dict):
        return {}
    return {k: v for k, v in found.items() if isinstance(k, str) and v in ("sender", "topic")}


def accept(path: Path, line: str, kind: str) -> None:
    """Keep the reading the user chose for a line read only in part."""
    data = _read(path)
    data["readings"] = {**read_accepted(path), line: kind}
    _write(path, data)
