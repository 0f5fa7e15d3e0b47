"""Compiling rule lines of ``data/notifications.md`` into conditions code can apply.

A rule's words are read against a vocabulary, in six languages: kinds of events (receipts,
billing problems, security alerts …) and of senders (automated tools, a person, clients),
sources (email, WhatsApp, calendar), who (names, quoted names, organisations, domains,
addresses), where (a named group, group vs direct), @-mentions, subject phrases and topics,
calendar conditions (added today, starts within, recurring, cancelled, moved, in person vs
video) and time windows (hours, weekdays, weekends).

Three shapes of line:

* Always / Never lines (by their heading, or saying so themselves: "— never notify"): the
  kinds, people and places they name, minus what they exclude ("… but not …", "Do not use
  for …", "X are not in this category"). A catch-all ("anything that fits no other
  category") applies only when no other line does (``policy``).
* Conditional lines: "only … if …", "… unless …", "nothing except …", "— notify only if …;
  otherwise don't", "— notify; for anything later — never": a scope and a condition.
* Anything else under a custom heading: notify or drop what it names.

A line whose words yield no condition is kept, flagged with the reason (``understood``
False, ``problem``): only a capable model may apply it.

Each clause is read by ``extract.parse_fragment`` (one small extractor per aspect) into a
``match.Match``; ``clauses`` takes a line apart and ``decision`` reads its own decision.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cache, lru_cache
from typing import Any, Literal

from engine.events import Event
from engine.tasks import one_line
from engine.triage.classifier import Classification, fold, words
from engine.triage.classifier.text import fold_with_map
from engine.triage.language import (
    DATA_KINDS,
    PHRASE_KEYS,
    alternation,
    function_words,
    identity_words,
    phrase_pattern,
    phrases,
)
from engine.triage.rules.clauses import Parts, sentences, take_apart
from engine.triage.rules.decision import (
    ONLY_IF,
    RESTRICTIVE,
    Decision,
    otherwise_waits,
    read_decision,
)
from engine.triage.rules.extract import (
    BRAND,
    JOIN_WORDS,
    _who_segments,
    about_phrase,
    combine,
    joined_roles,
    parse_fragment,
    sources,
)
from engine.triage.rules.identity import chat_scope
from engine.triage.rules.kindwords import KIND_WORDS, is_kind_word
from engine.triage.rules.match import Match, Window
from engine.triage.rules.names import VOCAB, is_german
from engine.triage.rules.negation import NEGATION
from engine.triage.rules.parse import ALWAYS, NEVER, Rule, Section, parse_rules
from engine.triage.rules.typos import corrected, first_words
from engine.triage.rules.vocab import STOP
from engine.triage.rules.windows import find_window, fold_keep

log = logging.getLogger(__name__)


Action = Literal["notify", "drop", "only"]
"""What a rule does to an event in its scope: notify, drop, or "only" (notify iff its
condition holds and nothing it excludes does)."""

CONDITION_FIELDS = (
    "starts_within",
    "starts_after",
    "added_today",
    "within",
    "asks",
    "urgent",
    "direct",
    "mentions_me",
    "addressed",
    "min_people",
    "max_people",
    "in_person",
    "video",
)
"""What narrows a line's events rather than naming them: split off as the condition of
"… — notify; for anything later — never"."""


@dataclass(frozen=True)
class CompiledRule:
    rule: Rule
    scope: Match
    action: Action
    condition: Match = field(default_factory=Match)
    negated: Match = field(default_factory=Match)
    window: Window | None = None
    understood: bool = True
    exclusions: tuple[Match, ...] = ()
    catch_all: bool = False
    exception_notifies: bool = False
    problem: str | None = None
    label: str = ""
    unread: tuple[str, ...] = ()
    """The words of the line no condition accounts for, as written: the line is then not
    understood (faithful or flagged)."""
    corrections: tuple[tuple[str, str], ...] = ()
    """Typos read as the known word they are one edit from: (as written, read as)."""
    read_by: Literal["code", "model", "user"] = "code"
    """Who read the line into its conditions: code, a capable model (once per line), or
    the user, accepting a suggested reading (``suggest``)."""

    def in_window(self, e: Event, now: datetime) -> bool:
        return self.window is None or self.window.contains(now)

    def applies(self, e: Event, now: datetime, kinds: Classification) -> bool:
        """The event is one the line is about (in its window, in scope, not excluded)."""
        if not self.in_window(e, now) or not self.scope.matches(e, now, kinds):
            return False
        return not self.excluded(e, now, kinds)

    def excluded(self, e: Event, now: datetime, kinds: Classification) -> bool:
        return any(x.matches(e, now, kinds) for x in self.exclusions if not x.empty)

    def exception(self, e: Event, now: datetime, kinds: Classification) -> bool:
        """A Never line says to notify what it excludes ("…; if someone mentions me, tell
        me"), and this event is one of those."""
        return (
            self.exception_notifies
            and self.in_window(e, now)
            and self.scope.matches(e, now, kinds)
            and self.excluded(e, now, kinds)
        )

    def verdict(self, e: Event, now: datetime, kinds: Classification) -> bool:
        """For a rule that applies: notify (True) or drop (False)."""
        if self.action == "notify":
            return True
        if self.action == "drop":
            return False
        ok = self.condition.empty or self.condition.matches(e, now, kinds)
        if not self.negated.empty and self.negated.matches(e, now, kinds):
            ok = False
        return ok


_NEGATIVE = re.compile(
    r"\b(never|don'?t|do not|stop|mute|ignore|skip|silence|no|nunca|ignora|ignorar|nie|"
    r"niemals|ignoriere|ignorieren|jamais|ignorer|mai|ignorare|non)\b",
    re.I,
)
_ONLY = (
    r"(?:only|solo|nur|seulement|uniquement|somente|apenas|alleen|nomas|"
    r"so(?=\s+(?:se|quando|em|no|na|nos|nas|de|do|da|as|aos|durante|entre|depois|antes)\b))"
)
_ONLY_VERB = (
    r"(?:notify|tell|alert|ping|show|let|send|bother|interrupt|avisame|avisarme|avisa|"
    r"notificame|notifica|dime|benachrichtige|benachrichtigen|melde|informiere|previens|"
    r"signale|notifie|avise|notifique|avvisami|notificami|segnala|segnalami|dimmi)"
    r"(?:\s+(?:me|moi|mich|mir))?(?:\s+know)?"
)
_IF = (
    r"(?:if|when|that|which|who|where|as long as|si|cuando|que|wenn|falls|die|der|quand|qui|"
    r"se|quando|che|als|wanneer)"
)
_ABOUT = r"(?:about|of|for|when|if|de|del|sobre|von|uber|bei|sur|des|du|do|da|di|su|dei)"


def _drop_verbs(text: str, *, condition: bool = False) -> str:
    """A scope or a condition without the words that only say to notify ("notify me about
    …"); in a ``condition`` a word for "about" says what the message is about, and stays
    ("only if about the rent")."""
    low = fold_keep(text).lower()
    m = re.match(
        rf"^\s*(?:for\s+)?(?:always\s+|never\s+|please\s+|{_ONLY}\s+)?(?:{_ONLY_VERB}\b)?\s*"
        rf"(?P<about>{_ABOUT}\b)?\s*",
        low,
    )
    if m is None:
        return text
    end = m.end()
    if condition and m.group("about") and _TOPIC_ABOUT.fullmatch(fold(m.group("about"))):
        end = m.start("about")
    return " " + text[end:]


_TOPIC_ABOUT = re.compile(phrase_pattern("clauses.about"))


def _condition(text: str, style: Style | None = None) -> tuple[Match, Match]:
    """A condition clause and what it excludes: "in person, not video calls"; extra
    sentences that ignore something ("Ignore video calls.") are exclusions too. ``style``:
    the whole line's (a clause alone may not show it is German)."""
    style = style or Style.of(text)
    parts = sentences(text.strip())
    first, rest = (parts[0], parts[1:]) if parts else ("", [])
    negated = Match()
    neg = re.search(
        r"(?:,\s*|\s+|\()(?:but\s+|pero\s+|aber\s+|mais\s+|mas\s+|ma\s+)?"
        r"(?:not|no|nicht|pas|nao|non)\s+(?:from\s+|for\s+|when\s+|about\s+|de\s+|von\s+)?"
        r"(?:it'?s\s+)?(?:an?\s+|the\s+|los\s+|las\s+|die\s+|les\s+|os\s+|as\s+|le\s+)?(.+)$",
        fold_keep(first),
        re.I,
    )
    if neg:
        negated = parse_fragment(first[neg.start(1) :], german=style.german, casual=style.casual)
        first = first[: neg.start()]
    whole, (first, examples) = first, _examples_said(first)
    before = _alternatives(first, style, Match()) or parse_fragment(
        first, german=style.german, casual=style.casual
    )
    if examples and not before.says_something:
        first, examples = whole, ""  # "… sound like spam": no example of anything said
    found = _alternatives(first, style, Match())
    for sentence in rest:
        if re.match(
            r"^\s*(ignore|skip|not|never|no|don'?t|exclude|ignora|ignorar|ignoriere|ignorer|"
            r"nicht|nunca|jamais|mai)\b",
            fold_keep(sentence),
            re.I,
        ):
            extra = parse_fragment(re.sub(r"^\s*\w+'?\w*\s+", "", sentence))
            if negated.empty:
                negated = extra
    found = found or parse_fragment(first, german=style.german, casual=style.casual)
    if examples and found.says_something:
        found = replace(found, examples=(*found.examples, examples))
    return found, negated


def _examples_said(clause: str) -> tuple[str, str]:
    """ "it's urgent, like someone's ill or plans change last minute": what follows a word
    for "for example" after what a condition says illustrates it (shown as examples, not
    read as more conditions). The clause as it was when there is none, or nothing before."""
    folded, where = fold_with_map(clause)
    m = _EXAMPLES.search(folded)
    if m is None or m.start() == 0 or not folded[: m.start()].strip(" ,"):
        return clause, ""
    return clause[: where[m.start()]].rstrip(" ,"), clause[where[m.end() - 1] + 1 :].strip(" .")


_EXAMPLES = re.compile(rf"(?:,\s*|\s+)(?:{phrase_pattern('clauses.examples')})\s+(?=\S)")


_SAYS_NOTHING = re.compile(phrase_pattern("words.nothing"))


def _split_restrictive(text: str) -> tuple[str, str, bool] | None:
    """(scope, condition, condition_is_exclusion) for only/unless/except rules, in the six
    languages ("solo avísame de …", "nur wenn …", "sauf …")."""
    body = text.strip(" ,")
    low = fold_keep(body).lower()
    m = re.match(rf"^(.*?)\b{_ONLY}\s+{_ONLY_VERB}\s*(?:{_ABOUT})?\s*(.*)$", low)
    if m:
        before, rest = body[: m.end(1)], body[m.start(2) :]
        c = re.search(rf"\b{_IF}\b", low[m.start(2) :])
        if c and not before.strip(" ,:"):
            return rest[: c.start()], rest[c.end() :], False
        return before, rest, False
    m = re.search(
        rf"\b{_ONLY}\s+(?:if|when|that|who|where|as long as|si|cuando|wenn|falls|quand|se|"
        r"quando|als|wanneer)\b",
        low,
    )
    if m:
        return body[: m.start()], body[m.end() :], False
    m = re.search(
        r"\b(?P<nothing>nothing|no notifications?|none|nada|nichts|rien|niente|niets)\s+(?:except|"
        r"but|other than|excepto|salvo|menos|au(?:ss|ß)er|sauf|exceto|tranne|eccetto|behalve)\b|"
        r"\b(?:except(?:\s+for)?|excepto|salvo|au(?:ss|ß)er|ausgenommen|sauf|exceto|tranne|eccetto|"
        r"behalve|uitgezonderd|tirando|quitando|hormis|bis auf(?! weiteres)|abgesehen von)\b",
        low,
    )
    if m:
        scope = body[: m.start()]
        rest = body[m.end() :]
        if m.group("nothing") or re.search(rf"\b{_ONLY}\b", fold_keep(rest).lower()):
            return scope, rest, False  # "nothing except X", "… except after 10pm, when only X"
        # "tell me about X except Y" drops Y; "ignore X except Y" and "nothing from 8pm to
        # 7am, except X" keep Y of X
        said_no = _NEGATIVE.search(fold_keep(scope)) or _SAYS_NOTHING.search(fold(scope))
        return scope, rest, not said_no
    m = re.search(
        r"\b(?:unless|a menos que|a no ser que|es sei denn|sauf si|a moins que|a nao ser que|"
        r"salvo se|a meno che|tenzij)\b",
        low,
    )
    if m:
        scope = body[: m.start()]
        # "ignore X unless Y" keeps X only when Y; "tell me about X unless Y" drops X when Y
        return scope, body[m.end() :], not _NEGATIVE.search(fold_keep(scope))
    m = re.search(rf"\b{_ONLY}\b", low)
    if m:
        return body[: m.start()], body[m.end() :], False
    return None


_RESTATED_DEFAULT = re.compile(
    r"[;,.]\s*(?:all\s+|any\s+)?(?:other|the other|the rest|everything else|anything else)\b"
    r"[^;.]*\b(?:skip|ignore|ignored|drop|mute|don'?t|not needed|no need)\b[^;.]*",
    re.I,
)


_OTHERWISE_NOT = re.compile(
    rf"[;,.]\s*(?:{alternation(phrases('clauses.otherwise'))})\s*,?\s*"
    rf"(?:(?:{alternation(phrases('clauses.courtesies'))})\s+)?"
    rf"(?:{alternation(phrases('answers.never'))}|{NEGATION}|niet)[\s.!]*$"
)


def _otherwise_not_restated(text: str) -> str:
    """ "… nur Mo–Fr zwischen 8 und 17 Uhr, danach bitte Ruhe", "…, sonst nicht": after a
    line that notifies only something, "otherwise not" says what "only" already says."""
    folded, where = fold_with_map(text)
    m = _OTHERWISE_NOT.search(folded)
    if m is None or not re.search(RESTRICTIVE, folded[: m.start()]):
        return text
    return text[: where[m.start()]].rstrip() if m.start() else text


NAMED_ROLES = re.compile(
    r"\b(?:my|mi|mis|meine[nmr]?|mon|ma|mes|meu|minha|mio|mia|our|nuestro|nuestra|unser[e]?)\s+"
    r"(boss|manager|accountant|lawyer|attorney|landlord|landlady|doctor|dentist|agent|teacher|"
    r"jefe|jefa|gestor|gestora|abogad[oa]|casero|casera|medic[oa]|pediatra|profesor[a]?|chef|"
    r"chefin|vorgesetzte[rn]?|steuerberater(?:in)?|anwalt|anwaltin|vermieter(?:in)?|arzt|"
    r"arztin|patron|patronne|comptable|avocat[e]?|proprietaire|medecin|chefe|contador[a]?|"
    r"advogad[oa]|senhori[oa]|capo|commercialista|avvocat[oa]|padron[ea]|dottore|dottoressa)\b",
    re.I,
)
PLACE = re.compile(
    r"\b(?:outside|away from|not at|fuera de|au(?:ss|ß)erhalb|en dehors d[eu]|hors d[eu]|"
    r"fora d[aoe]|fuori d[aei])\s+(?:the\s+|la\s+|el\s+|der\s+|dem\s+|le\s+|a\s+|o\s+|il\s+)?"
    r"(?!(?:me|us|mich|uns|moi|nous|mi|mim|noi)\b)(\w+)",
    re.I,
)


ANYONE = re.compile(
    r"^(?:anyone|anybody|everyone|any sender|whoever|cualquiera|todos|jeder|jedem|allen|"
    r"n'importe qui|tout le monde|qualquer um|todos|chiunque|tutti)\b",
    re.I,
)


FROM = re.compile(r"\b(?:from|von|vom)\s+(.+)$", re.I)


def _unread_sender(text: str) -> str | None:
    """What a line says after "from" when nothing in it names a sender ("from unknown
    numbers"), or None."""
    for m in FROM.finditer(text):
        seg = re.split(
            r"[.;:!?(—–]|\s(?:about|sobre|that|which|who|unless|except|only)\s", m.group(1)
        )[0]
        seg = seg.strip(" ,")
        found = parse_fragment(seg)
        content = [w for w in words(seg) if w not in STOP and w not in VOCAB and len(w) > 2]
        if content and not ANYONE.match(seg) and not (found.has_who() or found.kinds):
            return seg
    return None


NOTHING_READ = "I can't tell which events this line is about"


def _problem(rule_text: str, scope: Match, *conditions: Match) -> str | None:
    """Why a line cannot be applied as written, or None."""
    low = fold(rule_text)
    for entry in KIND_WORDS:  # "fuera de la oficina" names automatic replies, not a place
        if entry.kinds <= set(DATA_KINDS):
            low = entry.pattern.sub(" ", low)
    place = PLACE.search(low)
    if place:
        return (
            f"where is \u201c{place.group(1)}\u201d? I can only tell in-person events from video "
            "calls; name the address or say \u201cin person\u201d"
        )
    role = NAMED_ROLES.search(low)
    identity = scope.has_identity() or any(c.has_identity() for c in conditions)
    if role and not identity:
        return f"who is \u201cmy {role.group(1)}\u201d? Add their name or e-mail address"
    unread = _unread_sender(find_window(rule_text)[0])  # "from 8pm to 7am" is a time
    named = scope.has_who() or any(c.has_who() for c in conditions)
    if unread and not named and not scope.kinds and not scope.any_of:
        return f"who is \u201c{unread}\u201d? Name them or their address"
    if not scope.says_something and not any(c.says_something for c in conditions):
        return NOTHING_READ
    return None


@dataclass(frozen=True)
class Style:
    """What the whole line shows and a clause alone may not: German (every noun
    capitalised) or all lower case (names too)."""

    german: bool = False
    casual: bool = False

    @classmethod
    def of(cls, text: str) -> Style:
        return cls(is_german(text), text == text.lower())


SEPARATOR = re.compile(r",?\s+(?:and|or|y|o|e|und|oder|et|ou|ni|nor|noch|nem)\s+|,\s+", re.I)


def _top_level(text: str) -> list[str]:
    """Split on list separators outside parentheses and quotes."""
    pieces, depth, start = [], 0, 0
    masked = []
    for ch in text:
        depth += ch in "(«“"
        depth -= ch in ")»”" and depth > 0
        masked.append("_" if depth and ch not in "(«“" else ch)
    flat = "".join(masked)
    for m in SEPARATOR.finditer(flat):
        pieces.append(text[start : m.start()])
        start = m.end()
    pieces.append(text[start:])
    return [p for p in (q.strip() for q in pieces) if p]


GENERIC_HEADS = frozenset(
    {
        "messages", "message", "emails", "email", "mails", "mail", "texts", "anything",
        "things", "stuff", "notifications", "mensajes", "correos", "nachrichten", "mensagens",
        "messaggi", "any", "all", "the", "a", "an", "los", "las",
        "les", "die", "os", "as", "gli", "le", "whatsapps", "e", "whatsapp",
        "avisos", "notificaciones", "notices", "alerts", "meldungen", "benachrichtigungen",
        "avisi", "notifiche", "notificacoes", "updates", "mitteilungen", "courriers",
    }
)  # fmt: skip
"""Words a line uses for "whatever they send": "messages from Nina" names only a sender."""


def _who_only(piece: str, found: Match) -> bool:
    """ "messages from Nina": it names who, and nothing else but generic words."""
    if not found.has_who() or found.kinds or found.topics:
        return False
    rest = re.sub(r"\([^()]*\)", " ", _take_who(piece))
    return all(w in GENERIC_HEADS or is_kind_word(w, fold) for w in words(rest))


def _take_who(piece: str) -> str:
    cut = re.split(r"\b(?:from|de|von|vom|du|des|do|da|di|del|by)\b", piece, maxsplit=1, flags=re.I)
    return cut[0]


CONDITIONS = (
    "mentions_me",
    "asks",
    "urgent",
    "starts_within",
    "starts_after",
    "in_person",
    "video",
    "added_today",
    "calendar_change",
    "min_people",
    "max_people",
    "direct",
    "group",
)
_OR = re.compile(r"\s+(?:or|o|ou|oder)\s+", re.I)


def _either_condition(text: str, style: Style, context: Match) -> Match | None:
    """ "when someone mentions me or asks a question": conditions joined by "or" are
    alternatives (a Match is otherwise a conjunction)."""
    pieces = [p for p in _OR.split(text) if p.strip()]
    phrase = about_phrase(text)
    if len(pieces) < 2 or (phrase and _OR.search(phrase)):
        return None  # "about shifts, sick days or a missing delivery": one topic list
    if _or_in_a_kind(text):
        return None  # "if my train is delayed or cancelled": one kind of event
    read = [
        parse_fragment(p, german=style.german, casual=style.casual, context=context) for p in pieces
    ]
    said = [
        frozenset(f for f in CONDITIONS if getattr(m, f) not in (None, False))
        | ({"topics"} if m.topics else set())
        | ({"kinds"} if m.kinds else set())
        for m in read
    ]
    if not all(said) or len(set(said)) < len(said):
        return None
    return Match(any_of=tuple(read))


def _or_in_a_kind(text: str) -> bool:
    low = fold(text)
    return any(_OR.search(m.group(0)) for e in KIND_WORDS for m in e.pattern.finditer(low))


_REPEATED_FOR = re.compile(
    r",\s*(?:or\s+|and\s+|o\s+|y\s+|oder\s+|und\s+|ou\s+|et\s+|e\s+)?"
    r"(?:for|about|para|sobre|pour|fur|uber|per|su)\s+",
    re.I,
)
"""Items of a list that each repeat the preposition of the first: "for X, for Y, or for Z"."""


def _opens_with_name(piece: str) -> bool:
    first = piece.strip(" ,").split(maxsplit=1)
    return bool(first) and first[0][:1].isupper() and not is_kind_word(first[0], fold)


def _alternatives(text: str, style: Style, context: Match) -> Match | None:
    """A list whose items name different things and different senders: "flight changes and
    messages from Nina", "vulnerability reports from a person, and security advisories".
    A "from …" at the end of a list is said of every item ("builds and comments from
    GitHub"), so it does not split it."""
    either = _either_condition(text, style, context)
    if either is not None:
        return either
    items = _REPEATED_FOR.split(text)
    if len(items) >= 3:  # "… for GitHub notifications, for recruiters, or for anything from X"
        read = [
            parse_fragment(i, german=style.german, casual=style.casual, context=context)
            for i in items
            if i.strip(" ,")
        ]
        # an item that is only "anything" ("…, or for anything else") would make the whole
        # line anything: it is left unread, and the line is flagged, not broadened
        vague = [r for r in read if not replace(r, anything=False).says_something]
        named = [r for r in read if r not in vague]
        if len(named) >= 2 and not vague:
            return Match(any_of=tuple(named))
        if len(named) >= 2:
            items_said = [i for i in items if i.strip(" ,")]
            unread = tuple(
                w for r, i in zip(read, items_said, strict=True) if r in vague for w in words(i)
            )
            return Match(any_of=tuple(named), unread=unread)
    pieces = _top_level(text)
    if len(pieces) < 2:
        return None
    read = [
        parse_fragment(p, german=style.german, casual=style.casual, context=context) for p in pieces
    ]
    groups: list[list[str]] = [[pieces[0]]]
    has_kinds, has_who = [bool(read[0].kinds)], [read[0].has_who()]
    for i in range(1, len(pieces)):
        prev, cur = read[i - 1], read[i]
        # a sender said of an earlier item is not said of a later item naming its own kinds
        new = prev.has_who() and bool(cur.kinds) and not _trailing_who_covers(read, i)
        # "from DHL and PostNL about parcels": a name that opens the item goes on the list of
        # senders, and what follows it is said of all of them
        new = new and not _opens_with_name(pieces[i])
        # "Xero invoices and payment confirmations": the sender said first is said of all
        new = new and not (_opens_with_name(pieces[0]) and bool(cur.kinds) and not cur.has_who())
        # "messages from Nina" after items naming kinds with no sender: an alternative
        new = new or (_who_only(pieces[i], cur) and has_kinds[-1] and not has_who[-1])
        if new:
            groups.append([pieces[i]])
            has_kinds.append(bool(cur.kinds))
            has_who.append(cur.has_who())
        else:
            groups[-1].append(pieces[i])
            has_kinds[-1] = has_kinds[-1] or bool(cur.kinds)
            has_who[-1] = has_who[-1] or cur.has_who()
    if len(groups) < 2:
        return None
    options = tuple(
        parse_fragment(", ".join(g), german=style.german, casual=style.casual, context=context)
        for g in groups
    )
    if not all(o.says_something for o in options):
        return None
    return Match(any_of=options)


def _trailing_who_covers(read: list[Match], i: int) -> bool:
    """Items before ``i`` that name only identities ("LinkedIn, Instagram, Behance and
    other social networks") are examples of a kind, not a separate sender to split on."""
    return all(not m.kinds and m.has_identity() and not m.sources for m in read[:i])


def _read(label: str, body: str, style: Style) -> Match:
    """The conditions of a line's body, with what its label adds: the kinds it names when
    the body names none (then the body's names outside a "from …" are its examples), its
    sources, quoted chats and addresses. A label's other capitals are its title."""
    named = parse_fragment(label, german=style.german, casual=style.casual) if label else Match()
    context = Match(kinds=named.kinds)
    found = Match()
    if body.strip():
        found = _alternatives(body, style, context) or parse_fragment(
            body, german=style.german, casual=style.casual, context=context
        )
    brands = tuple(n for n in named.names if BRAND.match(n) and fold(n) not in function_words())
    if not brands and not found.has_identity() and _a_sender_label(named, found, body, label):
        brands = named.names  # "Amazon: shipping notices", "CTT: avisos de entrega"
    if brands and not found.has_identity():
        # "GitHub: someone @mentions me or requests my review": what GitHub sends; a kind
        # of sender the body names is then the kind of what that sender sends ("CTT:
        # avisos de entrega" is CTT's delivery notices, not CTT or any courier)
        kinds = found.kinds | (found.sender_kinds - {"person", "automated"})
        found = replace(
            combine(found, Match(names=brands)),
            kinds=kinds,
            sender_kinds=found.sender_kinds & {"person", "automated"},
        )
    if not label:
        return found
    if not found.kinds and named.kinds and found.names and not found.any_of:
        who = {n for seg in _who_segments(body) for n in found.names if fold(n) in fold(seg)}
        found = replace(
            found,
            names=tuple(n for n in found.names if n in who),
            examples=found.examples + tuple(n for n in found.names if n not in who),
        )
    if (named.kinds or named.sender_kinds) and not named.unread:
        found = _described(found)
    # a description read whole defines its label: "Team questions: a teammate asking …"
    titled = found.says_something and not found.all_unread()
    extra = Match(
        unread=() if titled else named.unread,
        kinds=frozenset() if found.kinds or found.any_of else named.kinds,
        sender_kinds=frozenset() if found.has_who() else named.sender_kinds,
        automated=named.automated,
        direct=named.direct,
        sources=sources(fold(label))[0].sources - {"calendar"},
        chats=named.chats,
        domains=named.domains,
        addresses=named.addresses,
    )
    return combine(found, extra)


_ABSENCE = re.compile(phrase_pattern("windows.absences"))
"""A period of the user's life ("Urlaub", "vacaciones"): a label that names one says when
the line holds, which only its dates could say."""


def _a_proper_name(label: str) -> bool:
    """A label of two words or more, each capitalised but for the small words between
    ("St Aidan's Primary", "Maple Grove Elementary"): someone's name, not a title ("Team
    chatter", "Work escalations")."""
    written = label.split()
    small = function_words()
    return len(written) >= 2 and all(w[:1].isupper() or fold(w) in small for w in written)


def _a_sender_label(named: Match, body: Match, said: str, label: str) -> bool:
    """A label read whole as a name, before a body that says one kind of message and
    names no one: the label says who sends it. Dropping it would widen the line to every
    such message; a title that is only a name nobody sends from ("Trasporti") narrows it
    at worst. A body that lists ("Vendors: sales outreach, partnership pitches …")
    describes a category the label titles."""
    return bool(
        "," not in said
        and not re.search(rf"\b(?:{JOIN_WORDS})\b", fold(said))
        and named.names
        and not named.unread
        and not named.kinds
        and not named.sender_kinds
        and (
            body.kinds
            or body.sender_kinds
            or (_a_proper_name(label) and (body.topics or body.anything))
        )
        and not body.any_of
    )


def _described(found: Match) -> Match:
    """A "Label: description" line whose label names a kind: the description's words that
    are not conditions describe that kind ("Paiements refusés : terminal de paiement en
    panne, …"), so they are accounted for by the label."""
    return replace(found, unread=(), any_of=tuple(_described(m) for m in found.any_of))


def _exclusions(parts: Parts, style: Style) -> tuple[Match, ...]:
    out: list[Match] = []
    for said in parts.exclusions:
        text, window = find_window(said)
        found = _alternatives(text, style, Match()) or parse_fragment(
            text, german=style.german, casual=style.casual
        )
        if window is not None:  # "pode sempre, menos ao domingo": not then
            found = replace(found, anything=False, within=window)
        options = found.any_of or (found,)
        out += [m for m in options if m.says_something and not m.anything]
        # what an exclusion left unread stays with the line, even when it is dropped
        out += [Match(unread=m.all_unread()) for m in options if m.all_unread() and m not in out]
    return tuple(out)


def _section_rule(rule: Rule, text: str, section: Section) -> CompiledRule:
    style = Style.of(rule.read_text)
    parts = take_apart(text, section_rule=True)
    rest, window = find_window(parts.body)
    scope = _read(parts.label, rest, style)
    # "Todo lo demás de Brenda": the rest of what Brenda sends, not the rest of everything
    narrowed = parts.catch_all and scope.says_something
    if parts.catch_all and not narrowed:
        scope = replace(scope, anything=True)
    action: Action = "drop" if section == NEVER else "notify"
    problem = None if parts.catch_all and not narrowed else _problem(rule.read_text, scope)
    return CompiledRule(
        rule,
        scope,
        action,
        window=window,
        understood=problem is None,
        exclusions=_exclusions(parts, style),
        catch_all=parts.catch_all,
        exception_notifies=parts.exception_notifies and section == NEVER,
        problem=problem,
        label=parts.label,
    )


def _split_conditions(full: Match) -> tuple[Match, Match]:
    """(what the line names, what narrows it): "meetings starting in the next 24 hours"
    → (meetings, starting in the next 24 hours)."""
    narrowing: dict[str, Any] = {f: getattr(full, f) for f in CONDITION_FIELDS}
    defaults: dict[str, Any] = {f: getattr(Match(), f) for f in CONDITION_FIELDS}
    return replace(full, **defaults), replace(Match(), **narrowing)


def _conditional_rule(rule: Rule, text: str, decision: Decision) -> CompiledRule:
    style = Style.of(rule.read_text)
    parts = take_apart(text, section_rule=True)
    rest, window = find_window(parts.body)
    full = _read(parts.label, rest, style)
    negated = Match()
    if decision.condition:
        condition, negated = _condition(decision.condition, style)
        scope = full
    else:
        scope, condition = _split_conditions(full)
    if parts.catch_all or not scope.says_something:
        scope = replace(scope, anything=True)
    problem = _problem(rule.read_text, scope, condition)
    if condition.empty and negated.empty:
        problem = problem or "it says when to notify but I can't read the condition"
    return CompiledRule(
        rule,
        scope,
        "only",
        condition,
        negated,
        window,
        understood=problem is None,
        exclusions=_exclusions(parts, style),
        catch_all=parts.catch_all,
        problem=problem,
        label=parts.label,
    )


def compile_rule(rule: Rule) -> CompiledRule:
    """A line's conditions, claimed as understood only when every word of it was read. A
    word left unread that is one edit from a known word is read as that word, when that
    leaves fewer words unread (``typos``); the correction is shown with the reading."""
    first = _faithful(_compile_rule(rule))
    early: tuple[tuple[str, str], ...] = ()
    named = {fold(n) for m in (first.scope, first.condition) for n in _names(m)}
    if named & first_words(rule.read_text):  # "Newsleters and …": a typo read as a name
        start, early = corrected(rule.read_text, named, capitalised=True)
        other = _faithful(_compile_rule(replace(rule, reading=start))) if early else first
        if early and len(other.unread) <= len(first.unread):
            rule, first = replace(rule, reading=start), replace(other, corrections=early)
    if not first.unread:
        return first
    text, fixes = corrected(rule.read_text, {fold(w) for w in first.unread})
    if not fixes:
        return first
    second = _faithful(_compile_rule(replace(rule, reading=text)))
    if len(second.unread) >= len(first.unread):
        return first
    return replace(second, rule=rule, corrections=early + fixes)


def _absent(text: str) -> tuple[str, ...]:
    """The words of a period of the user's life that open a line as its label ("Urlaub: …",
    "Vacaciones: nada de Jira"): they say when the line holds, which only dates could say."""
    label, colon, _ = text.partition(":")
    if not colon or len(label.split()) > 3:
        return ()
    return tuple(w for w in words(label) if _ABSENCE.fullmatch(w))


def _faithful(compiled: CompiledRule) -> CompiledRule:
    parts = (compiled.scope, compiled.condition, compiled.negated, *compiled.exclusions)
    folded = tuple(dict.fromkeys(w for m in parts for w in m.all_unread()))
    if folded:  # a word read in one part of the line is read ("Groupe « Équipe » : … l'équipe")
        said = set(words(" ".join(p for m in parts for p in _said(m))))
        if any(m.has_identity() for m in parts):
            roles = identity_words() - joined_roles(compiled.rule.read_text)
            said |= {w for w in roles if not _SAID_NOT.fullmatch(w)}  # nl "nicht", de "nicht"
        said |= _objects_of({k for m in parts for k in _kinds_in(m)})
        if any(_names(m) for m in parts):  # "il signor Ferro", not "la nonna, e …"
            said |= set(phrases("words.titles")) & _before_a_name(compiled.rule.read_text)
        folded = tuple(w for w in folded if w not in said)
    folded += tuple(w for w in _absent(compiled.rule.read_text) if w not in folded)
    if not folded:
        return compiled
    left = as_written(compiled.rule.read_text, folded)
    problem = compiled.problem
    if compiled.understood or problem == NOTHING_READ:
        problem = unread_problem(left)
    return replace(compiled, understood=False, unread=left, problem=problem)


def _before_a_name(text: str) -> set[str]:
    """The words said right before a capitalised word ("Oma Rosl", "Dr. Aumann")."""
    return {fold(m.group(1)) for m in re.finditer(r"([\w'.-]+?)\.?\s+(?=[A-ZÀ-Þ])", text)}


def _kinds_in(found: Match) -> frozenset[str]:
    return found.kinds.union(*(_kinds_in(m) for m in found.any_of))


def _objects_of(kinds: set[str]) -> frozenset[str]:
    """The words a kind read in a line accounts for besides its own ("shares a google doc or
    a photo album": what is shared), from the language data (``kinds.<kind>_objects``)."""
    return frozenset().union(*(_object_words(k) for k in kinds & set(DATA_KINDS)))


@cache
def _object_words(kind: str) -> frozenset[str]:
    if f"{kind}_objects" not in PHRASE_KEYS["kinds"]:
        return frozenset()
    return frozenset(words(" ".join(phrases(f"kinds.{kind}_objects"))))


def unread_problem(left: tuple[str, ...]) -> str:
    """The problem of a line read only in part."""
    quoted = ", ".join(f"\u201c{w}\u201d" for w in left)
    return f"I can't read {quoted} in this line, so I don't apply it"


def _names(m: Match) -> tuple[str, ...]:
    return m.names + tuple(n for alt in m.any_of for n in _names(alt))


def _said(m: Match) -> tuple[str, ...]:
    """The names, topics, chats and examples a clause and its alternatives hold."""
    own = (*m.names, *m.topics, *m.chats, *m.examples, *m.subject_phrases)
    return own + tuple(p for alt in m.any_of for p in _said(alt))


def as_written(text: str, folded: tuple[str, ...]) -> tuple[str, ...]:
    """The words of ``text`` as the user wrote them whose folded form is in ``folded``,
    in the order of the line."""
    wanted = set(folded)
    found: dict[str, None] = {}
    for token in re.findall(r"[\w'’-]+", text):
        for part in re.findall(r"[^\W_]+", token):
            if fold(part) in wanted:
                found.setdefault(part)
    return tuple(found) or folded


def _compile_rule(rule: Rule) -> CompiledRule:
    section = rule.section
    identity = chat_scope(rule.text)  # one chat by its id, as "Don't notify me" writes it
    if identity is not None:
        return CompiledRule(rule, identity, "drop" if section == NEVER else "notify")
    # "...; other group messages are fine to skip" restates what not matching means
    said = rule.read_text
    text = _RESTATED_DEFAULT.sub("", said).strip() or said
    text = otherwise_waits(_otherwise_not_restated(text))
    text = _COMPOUND.sub(_compound_apart, text)
    body, decision = read_decision(text)
    if decision is not None and decision.conditional:
        return _conditional_rule(rule, body, decision)
    if rule.section in (NEVER, ALWAYS):
        return _section_rule(rule, body, rule.section)
    return _custom_rule(rule, body if decision is not None else text)


_COMPOUND = re.compile(r"(?<![\w-])((?:[A-ZÀ-Þ][^\W\d_]+-)+)([^\W\d][\w]+)(?![\w-])")
"""A compound of names ending in a word ("Google-Analytics-Berichte", "Amazon-Rechnungen")."""


def _compound_apart(m: re.Match[str]) -> str:
    """ "Google-Analytics-Berichte" → "Berichte von Google Analytics": a compound whose last
    part names a kind of message names who sends it in its first parts."""
    first, last = m.group(1).strip("-"), m.group(2)
    if not is_kind_word(last, fold) or any(is_kind_word(p, fold) for p in first.split("-")):
        return m.group(0)
    return f"{last} von {first.replace('-', ' ')}"


_SAID_NOT = re.compile(
    rf"(?<![\w'-])(?:{NEGATION}|niet|nooit|niemals|{phrase_pattern('words.nothing')}|"
    rf"{phrase_pattern('words.no_determiners')}|{phrase_pattern('words.decisions')})(?![\w'-])"
)
"""A negation or a word that decides, said in a line ("Arbeitskram gar nicht", "… wie
immer"): where no decision took it, it is a word of the line left unread, not a function
word to skip."""


def _unplaced_negation(text: str, scope: Match) -> Match:
    said = _SAID_NOT.search(fold(text))
    if said is None:
        return scope
    return replace(scope, unread=(*scope.unread, *words(said.group(0))))


_ONLY_IF_FIRST = re.compile(rf"^\W*(?:{ONLY_IF})\b")
"""A line that opens with its "only if" and says no telling before it."""
SUBJECT_FIELDS = ("names", "domains", "addresses", "chats", "roles", "sender_kinds", "kinds")
"""What a condition says of who sends or what kind of message it is: its subject."""


def _subject_of_the_condition(scope: Match, condition: Match) -> tuple[Match, Match]:
    """ "only if a recruiter mentions a salary": a line that names nothing before its "only
    if" is about what the condition's subject names (recruiters' messages), and holds only
    the rest as its condition (mentioning a salary). Never broadened to every message; a
    condition with no subject, or with nothing besides it ("only if Mario writes"), stays
    as it is said."""
    subject = {f: getattr(condition, f) for f in SUBJECT_FIELDS}
    anyone = not subject["sender_kinds"] - {"person"} and not any(
        v for f, v in subject.items() if f != "sender_kinds"
    )
    if anyone:
        return scope, condition  # "only if someone mentions me": anyone is no subject
    rest = replace(condition, **{f: getattr(Match(), f) for f in SUBJECT_FIELDS})
    if not rest.says_something:
        return scope, condition
    return replace(scope, **subject), rest


def _custom_rule(rule: Rule, text: str) -> CompiledRule:
    split = _split_restrictive(text)
    if split is None:
        rest, window = find_window(text)
        action: Action = "drop" if _NEGATIVE.search(fold_keep(rest)) else "notify"
        style = Style.of(rule.read_text)
        scope = parse_fragment(
            _drop_verbs(_NEGATIVE.sub(" ", rest)), german=style.german, casual=style.casual
        )
        if action == "notify":
            scope = _unplaced_negation(rest, scope)
        problem = _problem(rule.read_text, scope)
        return CompiledRule(
            rule, scope, action, window=window, understood=problem is None, problem=problem
        )
    scope_text, cond_text, exclusion = split
    scope_text, window = find_window(scope_text)
    cond_text, cond_window = find_window(cond_text)
    style = Style.of(rule.read_text)
    scope = parse_fragment(
        _drop_verbs(_NEGATIVE.sub(" ", scope_text)), german=style.german, casual=style.casual
    )
    condition, negated = _condition(_drop_verbs(cond_text, condition=True), style)
    if cond_window is not None:
        condition = replace(condition, within=cond_window)
    if exclusion:
        condition, negated = Match(), condition
    if not scope.says_something and window is None and _ONLY_IF_FIRST.match(fold(text)):
        # not "Before 8am only …" (the time is what it is about), not "Only notify me about
        # emails from Mario" (nothing else at all)
        scope, condition = _subject_of_the_condition(scope, condition)
    if not scope.says_something:
        scope = Match(anything=True, unread=scope.all_unread())
    problem = _problem(rule.read_text, scope, condition, negated)
    if problem is None and not (condition.says_something or negated.says_something):
        problem = "I can't read the condition of this line"
    return CompiledRule(
        rule,
        scope,
        "only",
        condition,
        negated,
        window,
        understood=problem is None,
        problem=problem,
    )


@lru_cache(maxsize=512)
def _compile_cached(section: Section, text: str, line: int, reading: str) -> CompiledRule:
    return compile_rule(Rule(section, text, line, reading))


def compile_rules(rules: list[Rule]) -> list[CompiledRule]:
    """Compiled once per distinct rule line, so an edited file costs only its new lines. A
    line the compiler fails on is reported and skipped: the rest of the file still applies."""
    compiled = []
    for r in rules:
        try:
            compiled.append(_compile_cached(r.section, r.text, r.line_number, r.reading))
        except Exception as exc:
            log.error("rules line %d cannot be read, skipped: %s", r.line_number, one_line(exc))
    return compiled


@lru_cache(maxsize=32)
def _compile_text(digest: str, text: str, said: bool) -> tuple[CompiledRule, ...]:
    parsed = parse_rules(text, said_in_chat=said)
    for problem in parsed.skipped:  # logged once per version of the file
        log.error("rules %s", problem)
    return tuple(compile_rules(parsed.rules))


def compile_rules_text(text: str, *, said_in_chat: bool = False) -> list[CompiledRule]:
    """The compiled rules of a whole rules file, cached by its content hash: an unchanged
    file is not parsed again, an edited one takes effect on the next tick.
    ``said_in_chat``: the text is a chat message (``parse_rules``)."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return list(_compile_text(digest, text, said_in_chat))
