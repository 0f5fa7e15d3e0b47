"""Who a role in the rules file is, said anywhere in the file: "my assistant means Dolores
Ruiz (dolores@ruiz-asociados.es)", "Sanne (my partner)", "Mam = my mother". Every other
line that says the role ("Anything from my assistant") is read with who it is, so a rule
need not repeat a name the file gives once.

A definition made with a defining word ("means", "=", "is", "es", "ist", …) is no rule of
its own; one given in passing ("Sanne (my partner)" as a bullet) stays the rule it is and
defines the role too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.triage.classifier.text import fold, fold_with_map
from engine.triage.language import phrase_pattern
from engine.triage.rules.extract import EMAIL
from engine.triage.rules.names import name_list

POSSESSIVE = (
    r"(?:my|our|mi|mis|nuestr[oa]s?|mein(?:e[nmrs]?)?|unser(?:e[nmrs]?)?|mon|ma|mes|notre|nos|"
    r"meu|minha|meus|minhas|nosso|nossa|mio|mia|miei|mie|nostr[oaie])"
)
ROLE = rf"{POSSESSIVE}\s+[^\W\d][\w'’-]*(?:\s+[^\W\d][\w'’-]*)?"
"""A role as a line says it: "my assistant", "mi gestora", "meine Steuerberaterin"."""


@dataclass(frozen=True)
class Definition:
    line_number: int
    role: str
    """As written: "my assistant"."""
    who: str
    """Who the role is, as written: "Dolores Ruiz (dolores@ruiz-asociados.es)"."""
    only: bool
    """The line only defines (it is no rule of its own)."""

    @property
    def aside(self) -> str:
        """Who the role is as it is written beside the role in the lines that use it."""
        return " ".join(self.who.replace("(", " ").replace(")", " ").split())

    @property
    def sentence(self) -> str:
        return f"\u201c{self.role}\u201d means {self.who}"


def _identifies(who: str) -> bool:
    return bool(EMAIL.search(who) or name_list(who))


def read_definition(text: str, line_number: int) -> Definition | None:
    """The definition a line makes, or None."""
    plain = text.strip().rstrip(".").strip()
    means = phrase_pattern("definitions.means")
    m = re.match(rf"^(?P<role>{ROLE})\s*(?:=|{means})\s+(?P<who>.+)$", plain, re.I)
    if m is None:
        m = re.match(rf"^(?P<role>{ROLE})\s*=\s*(?P<who>.+)$", plain, re.I)
    if m is not None and _identifies(m.group("who")) and not _states_decision(m.group("who")):
        return Definition(line_number, m.group("role"), m.group("who").strip(), True)
    m = re.match(rf"^(?P<who>[^=()]+?)\s*(?:=|{means})\s*(?P<role>{ROLE})$", plain, re.I)
    if m is not None and _identifies(m.group("who")):
        return Definition(line_number, m.group("role"), m.group("who").strip(), True)
    m = re.match(rf"^(?P<who>[^()]{{1,60}}?)\s*\((?P<role>{ROLE})\)$", plain, re.I)
    if m is not None and _identifies(m.group("who")):
        return Definition(line_number, m.group("role"), m.group("who").strip(), False)
    return None


def _states_decision(text: str) -> bool:
    """ "my boss is important" defines nobody: it is a rule."""
    from engine.triage.rules.decision import read_decision

    return read_decision(f"x {text}")[1] is not None or bool(
        re.search(r"\b(?:important|urgent|wichtig|importante|urgente)\b", fold(text))
    )


def with_definitions(text: str, definitions: list[Definition], line_number: int) -> str:
    """``text`` with who each defined role is written beside the role ("Anything from my
    assistant" → "Anything from my assistant (Dolores Ruiz (dolores@…))"), as the reader
    reads a name given for a role. The line that defines a role is left as it is."""
    out = text
    for d in definitions:
        if d.line_number == line_number:
            continue
        role = fold(d.role).split()[-1]
        pattern = rf"\b({POSSESSIVE}\s+{re.escape(role)})\b(?!\s*\()"
        low, origin = fold_with_map(out)
        m = re.search(pattern, low, re.I)
        if m is None:
            continue
        end = origin[m.end() - 1] + 1
        out = f"{out[:end]} ({d.aside}){out[end:]}"
    return out
