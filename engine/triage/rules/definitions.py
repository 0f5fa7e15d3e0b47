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
from functools import cache

from engine.triage.classifier.text import fold, fold_with_map
from engine.triage.language import alternation, identity_words, phrase_pattern, phrases, raw_table
from engine.triage.rules.extract import EMAIL, PHONE
from engine.triage.rules.names import name_list

POSSESSIVE = phrase_pattern("definitions.possessives")
ARTICLE = phrase_pattern("definitions.articles")
WORD = r"[^\W\d][\w'’-]*"
ROLE = rf"(?:{POSSESSIVE}|{ARTICLE})\s+{WORD}(?:\s+{WORD})?"
"""A role as a line says it: "my assistant", "mi gestora", "die Chefin"."""
QUOTES = "\"“”„«»‚‘’'"
QUOTED_ROLE = (
    rf"[{QUOTES}](?P<quoted>(?:(?:{POSSESSIVE}|{ARTICLE})\s+)?{WORD}(?:\s+{WORD})?)[{QUOTES}]"
)
"""A role or a nickname in quotes: „die Chefin", «mi gestora», "Oma"."""
ANY_ROLE = rf"(?:{QUOTED_ROLE}|(?P<plain>{ROLE}))"
LABEL = re.compile(r"^[^\W\d][^:]{0,30}:\s+(?P<rest>.+)$")
"""A lead-in before the definitions: "Who's who:", "Antes de nada:", "Vorweg:"."""


@dataclass(frozen=True)
class Definition:
    line_number: int
    role: str
    """As written: "my assistant", "Oma"."""
    who: str
    """Who the role is, as written: "Dolores Ruiz (dolores@ruiz-asociados.es)"."""
    only: bool
    """The line only defines (it is no rule of its own)."""
    nickname: bool = False
    """The role was given in quotes without "my" or "the" ("Oma"): it stands alone."""

    @property
    def key(self) -> str:
        """The word other lines say the role with: "assistant", "oma"."""
        return fold(self.role).split()[-1]

    @property
    def aside(self) -> str:
        """Who the role is, as it is written beside the role in the lines that use it: the
        names, addresses and numbers the definition gives, not its prose."""
        plain = " ".join(self.who.replace("(", " ").replace(")", " ").split())
        if not re.search(r"[,;]", plain):
            return plain
        found = EMAIL.findall(plain) + PHONE.findall(plain)
        rest = PHONE.sub(" ", EMAIL.sub(" ", plain))
        return ", ".join([*name_list(rest), *found])

    @property
    def sentence(self) -> str:
        return f"\u201c{self.role}\u201d means {self.who}"


def _identifies(who: str) -> bool:
    return bool(EMAIL.search(who) or PHONE.search(who) or name_list(who))


def _role(m: re.Match[str]) -> tuple[str, bool]:
    """The role a match found, and whether it is a bare nickname."""
    if m.group("quoted"):
        quoted = m.group("quoted").strip()
        owned = re.match(rf"(?:{POSSESSIVE}|{ARTICLE})\s", fold(quoted))
        return quoted, owned is None
    return m.group("plain").strip(), False


def read_definition(text: str, line_number: int) -> Definition | None:
    """The definition a line makes, or None."""
    plain = text.strip().rstrip(".").strip()
    found = _definition(plain, line_number)
    if found is None and (label := LABEL.match(plain)):
        found = _definition(label.group("rest"), line_number)
    return found


@cache
def _means() -> str:
    """The words that define ("means", "es", "ist"), matched in the line as written: a word
    whose accent is all it has ("é", "è") is not "e" ("and")."""
    written = [p for said in raw_table("definitions").values() for p in said.get("means", [])]
    accented = [re.escape(p) for p in written if len(fold(p)) == 1 and fold(p) != p]
    plain = [p for p in phrases("definitions.means") if len(p) > 1 or p not in map(fold, written)]
    return rf"(?<![\w'-])(?:{'|'.join([alternation(plain), *accented])})(?![\w'-])"


def _definition(plain: str, line_number: int) -> Definition | None:
    means = _means()
    m = re.match(rf"^{ANY_ROLE}\s*(?:=|{means})\s+(?P<who>.+)$", plain, re.I)
    if m is not None and _identifies(m.group("who")) and not _states_decision(m.group("who")):
        role, nickname = _role(m)
        return Definition(line_number, role, m.group("who").strip(), True, nickname)
    m = re.match(
        rf"^(?P<who>[^=()]+?)\s*(?:=|{means})\s*(?P<role>{ROLE})(?:\s*[;,:]\s*(?P<more>.*))?$",
        plain,
        re.I,
    )
    if m is not None and _identifies(m.group("who")):
        more = " ".join(EMAIL.findall(m.group("more") or "") + PHONE.findall(m.group("more") or ""))
        who = f"{m.group('who').strip()} ({more})" if more else m.group("who").strip()
        rule_too = bool(m.group("more")) and _states_decision(m.group("more"))
        return Definition(line_number, m.group("role"), who, not rule_too)
    m = re.match(rf"^(?P<who>[^()]{{1,60}}?)\s*\((?P<role>{ROLE})\)$", plain, re.I)
    if m is not None and _identifies(m.group("who")):
        return Definition(line_number, m.group("role"), m.group("who").strip(), False)
    return _in_passing(plain, line_number)


NAMES = r"[A-ZÀ-Þ][\w'’-]*(?:\s+(?:(?:y|e|und|et|and|&|,)\s*)?[A-ZÀ-Þ][\w'’-]*)*"
"""Names as a list of capitalised words: "Pablo y Nerea", "Karen Whitfield"."""


def _in_passing(plain: str, line_number: int) -> Definition | None:
    """A line that says a role and who it is, as a rule ("Mis hijos, Pablo y Nerea", "Mia
    moglie Chiara", "Anything from my daughter's school, Colégio Santa Cruz", "My parents:
    Mãe and Pai"): it stays the rule it is and defines the role too. The role's last word
    is one for a person ("hijos", "moglie"), so "Our Slack, Acme" defines nothing."""
    m = re.search(
        rf"(?<![\w'’-])(?P<role>(?i:{ROLE}))\s*[,:]\s*(?P<who>{NAMES})(?=\s*(?:\(|[.;]|$))", plain
    )
    if m is None and (named := _named_in_parentheses(plain, line_number)) is not None:
        return named
    if m is None:
        m = re.match(rf"^(?P<role>(?i:{POSSESSIVE})\s+{WORD})\s+(?P<who>{NAMES})$", plain)
    if m is None or not _identifies(m.group("who")):
        return None
    role = m.group("role").strip()
    if fold(role).split()[-1] not in identity_words():
        return None
    return Definition(line_number, role, m.group("who").strip(), False)


_FOR = r"(?:pour|para|for|fur|für|per|voor|bei|with|con|avec|com)"
_NAMED_IN_PARENTHESES = re.compile(
    rf"^(?:{_FOR}\s+)?(?:(?:{ARTICLE}|{POSSESSIVE})\s+)?(?P<role>{WORD})\s*\((?P<who>[^()]{{2,60}})\)"
    r"\s*[:,—–-]",
    re.I,
)


def _named_in_parentheses(plain: str, line_number: int) -> Definition | None:
    """ "Escola (Agrupamento da Ribeira): só o que vem da direção", "Pour le labo (Marée
    Haute), …": a line that opens with a word for a place and its name in parentheses says
    what that word means in the other lines ("… nada da escola", "rien du labo"), as a
    nickname does."""
    m = _NAMED_IN_PARENTHESES.match(plain)
    if m is None or fold(m.group("role")) not in identity_words():
        return None
    if not m.group("who")[:1].isupper() or not _identifies(m.group("who")):
        return None
    return Definition(line_number, m.group("role"), m.group("who").strip(), False, True)


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
        owner = "" if d.nickname else rf"(?:{POSSESSIVE}|{ARTICLE})\s+"
        pattern = rf"(?<![\w'-])({owner}{re.escape(d.key)})(?![\w-])(?!\s*\()"
        low, origin = fold_with_map(out)
        m = re.search(pattern, low, re.I)
        if m is None:
            continue
        first = re.findall(r"\w+", fold_with_map(d.who)[0])[:1]
        if first and re.match(rf",?\s+{re.escape(first[0])}\b", low[m.end() :]):
            continue  # "my wife Claire": who she is is said already
        end = origin[m.end() - 1] + 1
        out = f"{out[:end]} ({d.aside}){out[end:]}"
    return out
