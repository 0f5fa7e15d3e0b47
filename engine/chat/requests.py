"""A rule change asked for in the user's own words, read by the rules reader itself.

What the chat recognises as "change my rules" is what the rules file's reader recognises as
a decided line, in every language it reads ("LinkedIn can wait", "no me avises más de
LinkedIn", "Keine Newsletter mehr"): the message is read as the lines of a rules file with
no sections, sentence by sentence. A sentence that states a decision is an instruction; one
that states none is the user's context ("we've parted ways on the project") and changes
nothing. The reading is faithful or flagged, as for the file: an instruction the reader
reads in full is written to its section, as the user said it; one with words left over, or
whose reading would be "anything" (a pronoun the reader cannot resolve, "all of it"), is
not written, and the answer says what could not be read."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.triage.rules.compile import CompiledRule, compile_rules_text
from engine.triage.rules.edit import SECTION_TITLES
from engine.triage.rules.explain import LineExplanation, explain_rule
from engine.triage.rules.parse import CUSTOM

_FILLER = re.compile(
    r"^(?:(?:ok(?:ay)?|so|well|hey|oye|bueno|also|alors|allora|ent[aã]o)[,!.\s]+)+|"
    r"[,.!\s]*\b(?:pls|plz|please|por favor|porfa|bitte|s'il te pla[iî]t|stp|svp|per favore|"
    r"por favor|thanks|thank you|gracias|danke|merci|obrigad[oa]|grazie)[.!\s]*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ReadRequest:
    """What the reader made of a message: the instructions it read in full (each with its
    section and how it reads), and those it could not (each with why)."""

    read: tuple[tuple[str, str, str], ...]  # (section, the sentence as said, its reading)
    unread: tuple[tuple[str, str], ...]  # (the sentence as said, why it is not read)

    @property
    def any(self) -> bool:
        return bool(self.read or self.unread)


def _tidy(text: str) -> str:
    text = " ".join(text.split())
    for _ in range(3):
        text = _FILLER.sub("", text).strip()
    return text


def _why(line: LineExplanation) -> str:
    """Why a sentence is not read, in the chat's words: the words left over and what the
    rest reads, else the reader's problem with it."""
    if line.unread:
        said = ", ".join(f"\u201c{w}\u201d" for w in line.unread)
        rest = line.reading if line.what != "anything" or line.condition else ""
        return f"I can't read {said}" + (f" (the rest reads \u201c{rest}\u201d)" if rest else "")
    return line.problem or "I can't tell who or what it is about"


def _vague(rule: CompiledRule) -> bool:
    """A reading that names nothing: "anything", or the rest of what other lines leave."""
    return rule.catch_all or rule.scope.anything or not rule.scope.says_something


def read_request(message: str) -> ReadRequest:
    """The instructions in ``message`` as the rules reader reads them (none when it states
    no decision at all: a question, thanks, a reminder)."""
    text = _tidy(message)
    if not text or "?" in text or len(text) > 600:
        return ReadRequest((), ())
    read: list[tuple[str, str, str]] = []
    unread: list[tuple[str, str]] = []
    for rule in compile_rules_text(f"{text}\n"):
        said = rule.rule.text
        section = rule.rule.section or CUSTOM
        line = explain_rule(rule)
        if not rule.understood:
            if line.what not in ("", "anything") or line.condition:  # some of it is a rule
                unread.append((said, _why(line)))
        elif _vague(rule):
            unread.append((said, "I can't tell who or what it is about"))
        else:
            read.append((section, said, line.reading))
    return ReadRequest(tuple(read), tuple(unread))


def section_text(section: str, rule: str) -> str:
    """A rules file holding one line in its section, to read it as the file would."""
    title = SECTION_TITLES.get(section, SECTION_TITLES[CUSTOM])  # type: ignore[call-overload]
    return f"## {title}\n- {rule}\n"
