"""What a line says to do, when it says so itself: "— never notify", "— notify only if …;
otherwise don't", "Never notify me about …", "Avísame siempre que …", "Between 22:00 and
07:00, only notify me about …". Headings say it for the lines under them (``parse``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from engine.triage.classifier.text import fold_with_map
from engine.triage.language import (
    alternation,
    function_words,
    phrase_pattern,
    phrase_regex,
    phrases,
    weekdays,
)
from engine.triage.rules.extract import SOURCE_PATTERN
from engine.triage.rules.negation import NEGATION
from engine.triage.rules.sections import ALWAYS, CUSTOM, NEVER, Section
from engine.triage.rules.windows import find_window

NEG: Final = (
    r"(?:never|don'?t|do not|no|nie|nicht|niemals|jamais|ne pas|nunca|nao|non|mai)\s+"
    r"(?:ever\s+)?(?:me\s+|mi\s+)?(?:notify|tell|alert|ping|show|bother|interrupt|me avises|"
    r"avisar|avises|notificar|notifiques|benachrichtigen|melden|notifier|signaler|previens|"
    r"avise|avisa|notifique|notifica|notificare|avvisare|avvisarmi|segnalare|segnalarmi)"
    r"(?:\s+me)?(?:\s+(?:mais|mas|more|piu|mehr))?"
    r"|ignore|skip|mute|silence|drop|ignorar|ignorieren|ignorer|ignorare|stummschalten"
    r"|no me avises|non avvisarmi"
)
POS: Final = (
    r"(?:(?:always|siempre|immer|toujours|sempre)\s+)?(?:notify(?:\s+me)?|tell me|alert me|"
    r"let me know|ping me|show me|surface (?:it|them)|avisame|avisarme|notificame|notificar|"
    r"avisar|benachrichtigen|benachrichtige mich|melden|signaler|signale-le|signale-les|"
    r"previens-moi|notifier|me notifier|avise-me|me avise|notifique-me|notificare|avvisami|"
    r"segnalami|segnalare)(?:\s+(?:always|siempre|immer|toujours|sempre))?"
)
OTHERWISE: Final = (
    r"(?:otherwise|else|for anything (?:later|else|other)|for (?:the )?(?:rest|others)|"
    r"de lo contrario|si no|sonst|ansonsten|sinon|caso contrario|senao|altrimenti)"
)
RESTRICTIVE: Final = (
    r"\b(?:only|unless|except|alleen|tenzij|behalve|solo|salvo|excepto|a menos que|nur|ausser|"
    r"es sei denn|seulement|"
    r"uniquement|sauf|a moins que|somente|apenas|exceto|a nao ser que|tranne|eccetto|nomas|"
    r"so(?=\s(?:se|quando|em|no|na|nos|nas|de|do|da|dos|das|as|aos|para|pelo|pela|durante|"
    r"entre|depois|antes|me)\b)|"
    r"a meno che)\b"
)
ONLY_IF: Final = (
    r"only (?:if|when)|solo (?:si|cuando)|nur wenn|seulement si|uniquement si|somente se|"
    r"apenas se|so se|solo se|alleen als|alleen wanneer"
)


@dataclass(frozen=True)
class Decision:
    """The decision a line states. ``condition`` is the text of its "only if" part; with
    ``otherwise`` the line's own conditions split what it notifies from what it drops
    ("meetings starting in the next 24 hours — notify; for anything later — never")."""

    section: Section
    condition: str = ""
    otherwise: bool = False

    @property
    def conditional(self) -> bool:
        return bool(self.condition) or self.otherwise


def _tail_decision(tail: str) -> tuple[Decision, str] | None:
    """The decision at the start of what follows a dash, and what it leaves to read."""
    low, _ = fold_with_map(tail)
    neg = re.match(rf"\s*(?:{NEG})\b", low, re.I)
    pos = re.match(rf"\s*(?:{POS})\b", low, re.I) or _TOLD_FIRST.match(low)
    if neg:
        return Decision(NEVER), tail[neg.end() :]
    if not pos:
        return None
    rest = tail[pos.end() :]
    low_rest = low[pos.end() :]
    only = re.match(rf"\s*(?:{ONLY_IF})\s+(.+?)(?:[;.]\s*(?:{OTHERWISE}).*)?$", low_rest, re.I)
    if only:
        condition = rest[only.start(1) : only.end(1)]
        return Decision(CUSTOM, condition=condition.strip(" ,;.")), ""
    if re.search(rf"[;.,]\s*(?:{OTHERWISE})", low_rest, re.I):
        return Decision(CUSTOM, otherwise=True), ""
    return Decision(ALWAYS), rest


_TOLD_FIRST = re.compile(
    rf"\s*{phrase_pattern('predicates.telling')}(?:\s+(?:always|siempre|immer|toujours|sempre|altijd))?"
    r"(?=\s*[:;,.]|\s*$)"
)
"""A word for telling alone after a dash, before the list it is about ("VIP → notifica
sempre: Paolo, …")."""


_NEGATION = NEGATION
_END = r"\s*[.!]*\s*$"
_EXCEPT = (
    r"(?:unless|except(?: when| if)?|but not|but only (?:if|when)|only if|only when|a menos que|"
    r"but yes (?:if|when)|pero si (?:si|cuando)|aber ja,? wenn|mais oui si|mas sim se|ma si se|"
    r"salvo(?: que| cuando| si)?|excepto|pero solo (?:si|cuando)|solo si|es sei denn|"
    r"ausser(?: wenn)?|aber nur wenn|nur wenn|sauf(?: si| quand)?|mais seulement (?:si|quand)|"
    r"seulement si|a nao ser que|menos (?:quando|se|aos?|as?|os?|nos?|nas?)|exceto|"
    r"mas so (?:se|quando)|so se|"
    r"tranne(?: quando| se)?|a meno che|ma solo (?:se|quando)|solo se|tenzij|"
    r"behalve(?: als| wanneer)?|maar alleen als|tirando|quitando|eccetto|hormis|excepte|"
    r"bis auf(?! weiteres)|abgesehen von)"
)
EXCEPT: Final = _EXCEPT
_TAIL = rf"(?:(?:[\s,;]|\s[—–-]{{1,2}})+(?P<tail>{_EXCEPT}\b.*?))?"
WIDENING = (
    r"(?:(?:even|including|meme|aunque|incluso|auch|selbst|anche|perfino|mesmo|ate)\b"
    rf"|{phrase_pattern('clauses.widening')})"
)
_WIDEN = rf"(?:\s*,?\s*{WIDENING}[^.;]*?)?"
_WIDEN_SAID = rf"(?:\s*,?\s*{WIDENING}(?P<widened>[^.;]*?))?"
"""A widening after an Always: "…, auch diese ELSTER-Benachrichtigungen" may name a sender
the line must then cover too."""
_ONLY_WHEN = (
    r"(?:only|solo|solamente|unicamente|seulement|uniquement|nur|somente|apenas|soltanto|so|"
    r"alleen)\s+(?:if|when|si|quand|lorsque|cuando|wenn|falls|se|quando|als|wanneer)"
)
_TELL = (
    r"(?:notify me|tell me|let me know|ping me|interrupt me|alert me|bother me|avisame|avisarme|"
    r"notificame|previens-moi|"
    r"avertis-moi|previens moi|avise-me|me avise|avvisami|benachrichtige mich|sag mir bescheid|"
    r"i (?:only )?want to (?:know|hear)|(?:solo |solamente )?quiero (?:saber|enterarme)|"
    r"(?:so |apenas )?quero saber|je (?:ne )?veux (?:seulement )?savoir|ich will (?:nur )?wissen|"
    r"voglio (?:solo )?sapere)"
)
_INTENSIFY = rf"(?:\s*,?\s*{phrase_pattern('predicates.intensifiers')})*"
"""Words after a decision that change nothing: "should come through right away"."""
_REASON = rf"(?:\s*[,;:—–-]+\s*{phrase_pattern('predicates.reasons')}[^.;]*?)?"
"""Why, after the decision: "…: never, I'll book those myself"."""
CONDITION_ANSWER = re.compile(rf"\s*(?::|\s[—–-]{{1,2}})\s*{_ONLY_WHEN}\s+(?P<cond>.+?){_END}")
TOLD_ONLY_WHEN = re.compile(
    rf"[\s,:]+{_TELL}\s+(?:(?:de|about|sobre)\s+\S+\s+)?{_ONLY_WHEN}\s+(?P<cond>.+?){_END}"
)
TOLD_WHEN = re.compile(
    rf"[\s,:]+(?:(?:so|solo|only|seulement|nur|apenas)\s+)?{_TELL}\s+"
    rf"(?P<w>quando|cuando|when|quand|wenn|se|si|if)\s+(?P<cond>.+?){_END}"
)
_YES = phrase_pattern("answers.notify")
_MORE = r"(?:\s*,\s*(?P<more>[^.;:]+?))?"
"""What a line adds after its answer, read with the line ("…: nunca, ni ofertas ni envíos")."""


def _said_after_a_comma(key: str) -> str:
    """A decision said after a comma, as the last words ("Publicidad y boletines, nunca",
    "la newsletter, quella mai"): opening with a word of four letters or more ("never",
    "siempre", "quella"), or a shorter one that ends the line ("…, non merci", "…, no")."""
    strong = [phrase_regex(p) for p in phrases(key) if len(p.split()[0]) >= 4]
    short = [phrase_regex(p) for p in phrases(key) if len(p.split()[0]) < 4]
    return rf",(?=\s*(?:{'|'.join(strong)})(?![\w'-])|\s*(?:{'|'.join(short)})\s*[.!]*\s*$)"


ANSWER_NOTIFY = re.compile(
    rf"\s*(?::|\s[—–-]{{1,2}}|{_said_after_a_comma('answers.notify')})\s*(?:{_YES})(?:\s*,?\s*(?:{_YES}))*{_INTENSIFY}{_WIDEN_SAID}"
    rf"{_REASON}{_TAIL}{_MORE}{_END}"
)
ANSWER_NEVER = re.compile(
    rf"\s*(?::|\s[—–-]{{1,2}}|{_said_after_a_comma('answers.never')})\s*"
    rf"(?:{phrase_pattern('answers.never')}){_WIDEN}{_REASON}{_TAIL}"
    rf"{_MORE}{_END}"
)


def _closing(end_key: str, start_key: str) -> str:
    """The phrases that close a line with its decision: those said last, and those said
    first that need nothing after them ("…, sag mir bitte immer Bescheid", "…, ignóralos"),
    not one that ends on a word leading to what it is about ("avísame de", "sag mir
    Bescheid, wenn")."""
    opening = [p for p in phrases(start_key) if p.split()[-1] not in function_words()]
    return r"(?<![\w'-])(?:" + alternation({*phrases(end_key), *opening}) + r")(?![\w'-])"


END_NOTIFY = re.compile(
    rf"[\s,:]+(?:{_closing('predicates.notify_end', 'predicates.notify_start')}){_INTENSIFY}"
    rf"{_WIDEN_SAID}{_TAIL}{_END}"
)
ONLY_WHEN = re.compile(
    rf"[\s,:]+(?:{phrase_pattern('predicates.notify_only_when')})\s+(?P<cond>.+?){_END}"
)
""" "Orders from Pinecrest matter only when something I ordered is delayed"."""


def _frames(key: str) -> list[re.Pattern[str]]:
    """A frame around the line's subject: "keep {} away from me", "{} I can live without"."""
    afters: dict[str, set[str]] = {}
    for frame in phrases(key):  # one pattern for all the frames that open alike
        before, _, after = frame.partition("{}")
        afters.setdefault(before.strip(), set()).add(after.strip())
    out = []
    for before in sorted(afters, key=lambda b: (-len(b), b)):
        lead = rf"^\s*(?:and\s+)?{phrase_regex(before)}\s+" if before else r"^\s*"
        said = {a for a in afters[before] if a}
        tail = rf"[\s,]+(?:{alternation(said)})" if said else ""
        if said and "" in afters[before]:
            tail = f"(?:{tail})?"
        out.append(re.compile(rf"{lead}(?P<subject>.+?){tail}(?P<rest>(?![\w'-]).*)$"))
    return out


NOTIFY_FRAMES = _frames("predicates.notify_frames")
NEVER_FRAMES = _frames("predicates.never_frames")
_UNTIL = (
    r"(?:\s+(?P<until>(?:until|till|a que|hasta que|hasta|bis|jusqu'?a ce que|jusqu'?au|"
    r"jusqu'?a|ate que|ate|finche|fino a|fino al|tot)\b[^.;]*?))?"
)
_NO_LONGER = rf"(?:\s*,?\s*{phrase_pattern('predicates.no_longer')})?"
"""Words after a Never that say "from now on" ("… doesn't matter to me anymore")."""
END_NEVER = re.compile(
    rf"[\s,:]+(?:{_closing('predicates.never_end', 'predicates.never_start')}){_NO_LONGER}"
    rf"{_WIDEN}{_UNTIL}{_TAIL}{_END}"
)
_OPENING = rf"(?:(?:{phrase_pattern('clauses.lead_ins')})[\s,.:!]*)*"
"""Words a sentence may open with before its decision ("please", "bitte", "por favor")."""
START_NOTIFY = re.compile(
    rf"^\s*{_OPENING}(?:{phrase_pattern('predicates.notify_start')})(?:\s+|[\s.!?]*$)"
)
START_NEVER = re.compile(
    rf"^\s*{_OPENING}(?:{phrase_pattern('predicates.never_start')})(?:\s+|[\s.!?]*$)"
)


LEADING_ANSWER = re.compile(
    r"^\s*(?P<label>[^\W\d][\w'-]*,?\s+(?:\w+\s+)??)??"
    rf"(?:(?P<never>{phrase_pattern('answers.never')})|(?P<always>{_YES}))"
    r"\s*:\s*(?P<subject>\S.*)$"
)
"""The decision first, then what it is about: "Nunca: LinkedIn", "VIP, altijd melden: Eva",
"SaneLater, dus niet melden: nieuwsbrieven". A label before it is taken only when each of
its words is a function word or a heading word of that decision ("VIP" for Always), so no
word of the line is dropped unread; the decision is read whole first ("Never notify:" is
never "Never" as a label and "notify")."""


def _label_says(label: str, never: bool) -> bool:
    heading = re.compile(phrase_pattern("headings.never" if never else "headings.always"))
    return all(w in function_words() or heading.fullmatch(w) for w in re.findall(r"\w+", label))


def canonical(text: str) -> str:
    """A line that says its decision in words of its own, rewritten in the words the
    reader knows, the rest as the user wrote it: "ShowingTime confirmations: no." →
    "never notify me about ShowingTime confirmations"; "Anything my kids' school sends is
    important" → "always notify me about Anything my kids' school sends"; "I want to know
    about …" → "notify me about …". The phrases come from the language data."""
    line = _Line(text)
    readers = (
        _framed,
        _leading_answer,
        _only_told,
        _condition,
        _answer,
        _ending,
        _opening,
        _inside,
    )
    for read in readers:
        said = read(line)
        if said is not None:
            return said
    return text


class _Line:
    """A line as written and folded, with the way back from a folded match to the words."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.folded = fold_with_map(text)
        self.low = self.folded[0]

    def span(self, m: re.Match[str], group: str) -> str:
        origin = self.folded[1]
        return self.text[origin[m.start(group)] : origin[m.end(group) - 1] + 1]

    def before(self, m: re.Match[str]) -> str:
        origin = self.folded[1]
        return (
            self.text[: origin[m.start()]].strip(" ,;:") if m.start() < len(origin) else self.text
        )

    def after(self, m: re.Match[str]) -> str:
        origin = self.folded[1]
        return self.text[origin[m.end() - 1] + 1 :].strip() if m.end() else self.text

    def tail(self, m: re.Match[str]) -> str:
        return " " + self.span(m, "tail") if m.group("tail") else ""


def _framed(line: _Line) -> str | None:
    """ "{} can wait", "{} I want to hear about"."""
    framed = ((NEVER_FRAMES, "never notify me about"), (NOTIFY_FRAMES, "notify me about"))
    for frames, lead in framed:
        for frame in frames:
            m = frame.match(line.low)
            if m and m.group("subject").strip():
                subject = line.span(m, "subject")
                negated = _NEGATION_FIRST.match(fold_with_map(subject)[0])
                if lead.startswith("notify") and negated:  # "sag mir nie Bescheid über …"
                    lead, subject = "never notify me about", subject[negated.end() :]
                rest = (
                    line.text[line.folded[1][m.start("rest")] :] if m.group("rest").strip() else ""
                )
                return f"{lead} {subject.strip(' ,')}{_excepted(rest, lead)}"
    return None


def _leading_answer(line: _Line) -> str | None:
    """ "No: ShowingTime confirmations", under a label that says so."""
    m = LEADING_ANSWER.match(line.low)
    if not m:
        return None
    label = m.group("label") or ""
    never = bool(m.group("never")) or bool(re.search(rf"\b{_NEGATION}\b", label))
    if not _label_says(label, never):  # "Nunca avisar: LinkedIn" says never, not avisar
        return None
    said = "never" if never else "always"
    subject = line.text[line.folded[1][m.start("subject")] :].strip()
    return f"{said} notify me about {subject}"


ONLY_IF_START = re.compile(
    rf"^\s*{_OPENING}(?:{phrase_pattern('predicates.notify_only_if')})\s+(?P<cond>\S.*)$"
)
ONLY_ABOUT_START = re.compile(
    rf"^\s*{_OPENING}(?:{phrase_pattern('predicates.notify_only_about')})\s+(?P<subject>\S.*)$"
)
ONLY_IF_INSIDE = re.compile(
    rf"[\s,:]+(?:{phrase_pattern('predicates.notify_only_if')})\s+(?P<cond>.+?){_END}"
)


def _only_told(line: _Line) -> str | None:
    """ "Solo avísame si …", "Ne me préviens que pour …", "Del banco avísame solo si …":
    a line that notifies only what its condition or its subject says."""
    m = ONLY_IF_START.match(line.low)
    if m:
        return f"only notify me if {line.span(m, 'cond')}"
    m = ONLY_ABOUT_START.match(line.low)
    if m:
        return f"only notify me about {line.span(m, 'subject')}"
    m = ONLY_IF_INSIDE.search(line.low)
    if m and m.start() > 0 and _names_something(line.before(m)):
        return f"notify me about {line.before(m)} only if {line.span(m, 'cond')}"
    return None


def _condition(line: _Line) -> str | None:
    """ "Clients: only if …", "Del banco avísame solo si …", "Amazon: only delivery
    problems"."""
    for pattern in (CONDITION_ANSWER, TOLD_ONLY_WHEN, TOLD_WHEN, ONLY_WHEN, ONLY_ANSWER):
        m = pattern.search(line.low)
        if m and pattern is ONLY_ANSWER and re.match(rf"(?:{POS}|{NEG})\b", m.group("cond")):
            continue  # "Calendar: only tell me about …" says its decision itself
        if m and m.start() > 0 and _names_something(line.before(m)):
            return f"notify me about {line.before(m)} only if {line.span(m, 'cond')}"
    return None


ONLY_ANSWER = re.compile(
    r"\s*(?::|\s[—–-]{1,2})\s*(?:only|solo|solamente|nur|seulement|uniquement|apenas|so|"
    rf"soltanto|alleen)\s+(?!(?:if|when|si|quand|lorsque|cuando|wenn|falls|se|quando|als)\b)"
    rf"(?P<cond>.+?){_END}"
)
""" "Amazon: only delivery problems": the line notifies only what follows "only"."""


def _names_something(text: str) -> bool:
    """Words before "… tell me when" that say what the line is about ("Clients", "Del
    banco"), not only how to tell ("Always tell me when …", "Please, …")."""
    return any(w not in function_words() for w in re.findall(r"[a-z0-9]+", fold_with_map(text)[0]))


def _answer(line: _Line) -> str | None:
    """ "ShowingTime confirmations: no.", "Cancelled showings: yes"."""
    for pattern, lead in (
        (ANSWER_NEVER, "never notify me about"),
        (ANSWER_NOTIFY, "always notify me about"),
    ):
        m = pattern.search(line.low)
        if m and m.start() > 0:
            more = ", " + line.span(m, "more") if m.group("more") else ""
            more += _widened(line, m)
            return f"{lead} {line.before(m)}{more}{_excepted(line.tail(m), lead)}"
    return None


_ANY_MORE = r"(?:mehr|more|else|plus|mais|piu|meer|mas|ever|wieder|again|jamais)"
"""Words for "any more" said right before the word for telling ("nie mehr melden")."""
_NEGATED_BEFORE = re.compile(rf"\b{_NEGATION}(?:\s+{_ANY_MORE})?$")
"""A negation right before an ending ("Lieferando bitte nie mehr melden"): no Always."""


def _widened(line: _Line, m: re.Match[str]) -> str:
    """What an Always line's widening adds when it names a sender of its own ("…, auch
    diese ELSTER-Benachrichtigungen"): said as one more item of the line, so the reading
    covers it or flags it. A widening that names none ("even the small ones", "including
    newsletters" of that sender) stays with the line it widens."""
    if "widened" not in m.re.groupindex or not m.group("widened"):
        return ""
    said = line.span(m, "widened").strip(" ,")
    messages = "|".join(re.escape(w) for w in phrases("words.messages") if " " not in w)
    said = re.sub(rf"-(?i:benachrichtigungen|mails?|{messages})\b", "", said)  # "ELSTER-Mails"
    pointing = "|".join(re.escape(w) for w in phrases("words.pronouns"))
    said = re.sub(rf"^(?i:{pointing})\s+", "", said)  # "diese ELSTER-…": which ones, no one
    return f" and {said}" if _names_a_sender(said) else ""


def _names_a_sender(text: str) -> bool:
    from engine.triage.rules.names import name_list

    return bool(name_list(text) or re.search(r"@|\.[a-z]{2,}\b", text))


def _ending(line: _Line) -> str | None:
    """ "Anything my kids' school sends is important", "… can wait"."""
    for pattern, lead in (
        (END_NEVER, "never notify me about"),
        (END_NOTIFY, "always notify me about"),
    ):
        m = pattern.search(line.low)
        if m and m.start() > 0 and not _NEGATED_BEFORE.search(line.low[: m.start()]):
            said = f"{line.before(m)}{_widened(line, m)}"
            none_of = _NONE_OF.match(said)
            nothing = _NOTHING_BEFORE.search(said)
            if pattern is END_NOTIFY and none_of:  # "Keine Mails von Jonas melden"
                lead, said = "never notify me about", said[none_of.end() :]
            elif pattern is END_NOTIFY and nothing:  # "Vom Sportverein bitte nichts melden"
                lead, said = "never notify me about", said[: nothing.start()].strip(" ,:")
            if "until" in m.re.groupindex and m.group("until"):
                said += _until(line.span(m, "until"))
            return f"{lead} {said}{_excepted(line.tail(m), lead)}"
    return None


def _until(said: str) -> str:
    """What "… can wait until …" says of when the line holds: until the morning, at night;
    until a Monday, on weekends; else the words as said, for the reader to read or flag
    ("until I'm back" is no window it knows)."""
    low = fold_with_map(said)[0]
    if re.search(phrase_pattern("dates.morning"), low):
        return " at night"
    monday = [d for d, n in weekdays().items() if n == 0]
    if re.search(rf"(?<![\w'-])(?:{'|'.join(map(re.escape, monday))})(?![\w'-])", low):
        return " on weekends"
    return f" {said}"


_NONE_OF = re.compile(rf"^\s*{phrase_pattern('words.no_determiners')}\s+", re.I)
_NOTHING_BEFORE = re.compile(
    rf"(?:^|[\s,:])(?i:{phrase_pattern('words.nothing')})(?:\s+(?i:{_ANY_MORE}))?\s*$"
)
"""A "nothing" right before the word for telling: "Vom Sportverein bitte nichts mehr
melden" says never, however the telling is worded."""
_NO_START = re.compile(
    rf"^\s*{_OPENING}(?:"
    + "|".join(phrase_regex(p) for p in phrases("words.no_determiners") if len(p) > 2)
    + r")\s+(?=\S)"
)
_NOTHING_OF_START = re.compile(
    rf"^\s*{_OPENING}(?:{alternation(phrases('words.nothing'))})\s+"
    rf"(?!\w+\s+(?:{alternation(phrases('words.nothing'))})\b)(?=(?:from|of|de|del|do|da|"
    r"dos|das|du|des|von|vom|di|dal|dalla|della|dello|dei|van)\s)"
)
"""A line that opens with "nothing" from someone ("Nada de Talleres Ibarra", "Rien de
chez …", "Nichts von @…"): never, whoever that is."""
_NEITHER_START = re.compile(rf"^\s*{_OPENING}{phrase_pattern('words.neither')}\s+(?=\S)")
_NOR = re.compile(rf"{phrase_pattern('words.neither')}|\bnor\b")


def _neither_nor(low: str) -> re.Match[str] | None:
    """A line that opens with "neither" and goes on with "nor": "Ni ofertas ni boletines",
    "Weder Werbung noch Newsletter" (not "Nem as do Frescura, …": "not even those")."""
    m = _NEITHER_START.match(low)
    return m if m and _NOR.search(low, m.end()) else None


"""A line that opens with "no" before what it is about, and says no decision otherwise:
"Keine Newsletter", "Geen nieuwsbrieven van Bol", "Pas de pub". Not the two-letter "no",
which opens many a clause in Spanish, Italian and Portuguese ("no las necesito")."""


def _opening(line: _Line) -> str | None:
    """ "I want to know about …", "Spare me …": the longer opening wins, so "no quiero
    perderme nada de …" is not read as "no quiero …"."""
    found = [
        (m, lead)
        for pattern, lead in (
            (START_NEVER, "never notify me about"),
            (START_NOTIFY, "notify me about"),
        )
        if (m := pattern.match(line.low))
    ]
    if not found:
        return None
    alone = [(m, lead) for m, lead in found if not line.low[m.end() :].strip(" .!?")]
    if alone and len(alone) == len(found):
        # "Mettile sempre in evidenza", "bitte immer anzeigen": the decision alone, about what
        # the sentence before named; read as about nothing yet (a file flags it)
        return f"{alone[0][1]} "
    m, lead = max(found, key=lambda f: f[0].end())
    after = _strip_lead(line.after(m), 0)  # "stop pinging me about …", "… every time …"
    negated = _NEGATION_FIRST.match(fold_with_map(after)[0])
    if lead.startswith("notify") and negated:  # "Benachrichtige mich nie über Lidl"
        lead, after = "never notify me about", after[negated.end() :]
    return f"{lead} {after}"


_NEGATION_FIRST = re.compile(
    rf"^\s*(?:{_NEGATION}|(?:{alternation(phrases('words.nothing'))})(?!(?:\s+(?:{_ANY_MORE}|anders|else|d'autre|autre|otro|altro|outro))?\s*,?\s*"
    rf"(?:{_EXCEPT}|but|que|than|als|dan|che|di)\b))"
    rf"(?:\s+{_ANY_MORE})?\b\s*"
)
"""A negation right after a word for telling turns it round: "sag mir nie Bescheid über …",
"meld me niets van …" (but "tell me nothing but …" says only)."""


QUOTED_NAME = re.compile(r"[\"“”„«»'‘’][^\"“”„«»'‘’]{1,80}[\"“”„«»'‘’]")
INSIDE_NOTIFY = re.compile(rf"(?<=[\s,:])(?:{phrase_pattern('predicates.notify_start')})\s+")
INSIDE_NEVER = re.compile(rf"(?<=[\s,:])(?:{phrase_pattern('predicates.never_start')})\s+")
_NEGATED = re.compile(rf"\b{_NEGATION}\s*$")


def _inside(line: _Line) -> str | None:
    """The decision in the middle, what it is about on both sides of it: "Del banco quiero
    enterarme de todo, menos de la publicidad", "Von Möbelhaus Brandl will ich nichts …".
    A "tell me" said after a negation is a Never ("no quiero enterarme de …")."""
    for pattern, lead in (
        (INSIDE_NEVER, "never notify me about"),
        (INSIDE_NOTIFY, "notify me about"),
    ):
        for m in pattern.finditer(line.low):
            before = line.before(m)
            said = QUOTED_NAME.sub("x", before)  # a name in quotes is one thing said
            labelled = line.low[: m.start()].rstrip().endswith((":", "—", "–"))
            most = 10 if labelled else 4  # "Il mio padrone di casa, il signor Colombo: …"
            if not before or len(said.split()) > most or not _names_something(before):
                continue  # what comes before is what it is about, not a clause of its own
            if _UNWANTED_LAST.search(line.low[: m.start()]):
                return None  # "No hace falta que | me avises …": a telling not wanted
            after = _without_knowing(line.after(m))
            if lead.startswith("notify") and _NEGATED.search(line.low[: m.start()]):
                lead, before = (
                    "never notify me about",
                    re.sub(rf"\s*\b{_NEGATION}$", "", before, flags=re.I),
                )
            return f"{lead} {before}{' ' + after if after else ''}"
    return None


_TELLING = re.compile(phrase_pattern("predicates.telling"))
_KNOWING_FIRST = re.compile(
    rf"^\s*(?:(?:{alternation(phrases('words.nothing'))})\s+)?{phrase_pattern('predicates.knowing')}"
    rf"(?:\s+{_ANY_MORE})?(?:\s+(?:{alternation(phrases('words.nothing'))})(?![\w'-]))?\s*"
)


def _without_knowing(after: str) -> str:
    """ "… je ne veux plus | rien voir passer de lui": the words for knowing after a decision
    said inside the line are the decision's, not what the line is about."""
    low, where = fold_with_map(after)
    m = _KNOWING_FIRST.match(low)
    if m is None or m.end() >= len(low) or not re.search(r"\w", low[m.end() :]):
        return after
    return after[where[m.end()] :] if m.end() < len(where) else after


_UNWANTED_LAST = re.compile(phrase_pattern("predicates.unwanting") + r"\s*$")
_WANTING = re.compile(phrase_pattern("predicates.wanting"))
_KNOWING = re.compile(phrase_pattern("predicates.knowing"))
_UNWANTING = re.compile(phrase_pattern("predicates.unwanting"))
_MISSING = re.compile(phrase_pattern("predicates.missing"))
_A_MESSAGE = frozenset(phrases("words.messages"))
"""Words for messages ("notifs", "Benachrichtigungen"): said as what the user wants to
know, they stay in what the line is about ("toutes les notifs de l'ENT")."""
_NE_BEFORE = re.compile(r"(?<![\w'-])(ne)\s+(?:me\s+|m')?$|(?<![\w'-])(ne)\s*$")
"""French "ne" right before the word for telling ("Ne me préviens …", "ne m'avertis …")."""
_ONLY_QUE = re.compile(r"(?<![\w'-])qu(?:e|')")
"""French "ne … que" says only, not never."""
_A_MESSAGE_EACH_TIME = re.compile(
    rf"^(?:(?:{alternation(phrases('definitions.articles') + phrases('words.indefinite'))})\s+)?"
    rf"(?:{alternation(phrases('words.messages'))})"
    rf"\s+{phrase_pattern('clauses.every_time')}\s*"
)
"""A message said before when it comes ("a notification every time …", "una notificación
cada vez que …"): the time says what the line is about, the message nothing."""
_SAYS_NO = re.compile(
    rf"(?<![\w'-])(?:{_NEGATION}|n'|{alternation(phrases('words.nothing'))}|"
    rf"{alternation(phrases('words.no_determiners'))})(?![\w-])(?:\s+{_ANY_MORE}(?![\w'-]))?"
)
_ALONGSIDE = re.compile(
    r"(?<![\w'-])(?:me|mir|mich|moi|mi|m'|always|siempre|immer|toujours|sempre|altijd|"
    r"auch|bitte|also|plus|piu|mas|mehr|more|anymore|kunftig|in zukunft)(?![\w'-])"
)
"""Words said beside a word for telling that add nothing to what the line is about: the
user as its object, "always", "anymore" ("je veux plus être prévenu")."""
_NOTHING_FIRST = re.compile(rf"^\s*(?:{alternation(phrases('words.nothing'))})(?![\w'-])\s*")
_SUBORDINATE = re.compile(r"(?<![\w'-])(?:que|che|dass|that)(?![\w'-])")
_CLAUSE_START = re.compile(r".*(?:[.;:!?]|,\s|\s[—–-]{1,2}\s)")


_MISSED_WHAT = re.compile(
    rf"(?<![\w'-])(?:{alternation(phrases('words.nothing'))}|{alternation(phrases('words.anything'))})"
    r"(?![\w'-])"
)
"""What is not to be missed, said after "miss" ("… perder nada del grupo X"): without it the
sentence is the user's reason, not an instruction."""


_FRONTED = re.compile(
    r"^\W*(?:from|of|de|del|da|do|dos|das|dal|dalla|dai|dagli|di|della|von|vom|du|des|van)\s"
)
"""What is not to be missed said first ("Del grupo Remo no me quiero perder nada")."""


def _telling_spans(low: str) -> tuple[list[tuple[int, int]], int, bool] | None:
    """Where a line says to tell the user, as folded spans to take out, where that saying
    ends, and whether it is said of missing ("no me quiero perder nada") rather than of
    knowing."""
    told = _TELLING.search(low)
    wanting = sorted(
        [*_WANTING.finditer(low), *_UNWANTING.finditer(low)], key=lambda w: (w.start(), -w.end())
    )
    if told is not None:
        spans = [told.span()]
        wanted = [w for w in wanting if w.end() <= told.start()]
        if wanted and len(low[wanted[-1].end() : told.start()].split()) <= 3:
            spans.insert(0, max(wanted, key=lambda w: (w.end(), -w.start())).span())
        return spans, told.end(), False
    for want in wanting:
        near = low[want.end() :]
        stop = re.search(r"[.,;:!?]", near)
        end = want.end() + (stop.start() if stop else len(near))
        for pattern, missing in ((_KNOWING, False), (_MISSING, True)):
            known = pattern.search(low, want.end(), end)
            if (
                missing
                and known
                and not re.search(r"\w", _MISSED_WHAT.sub("", low[known.end() : end]))
                and not _FRONTED.match(low)
            ):
                continue  # "… and I don't want to miss anything.": the user's reason
            if known and len(low[want.end() : known.start()].split()) <= 8:
                if known.group() in _A_MESSAGE:  # "je veux toutes les notifs de …"
                    return [want.span()], known.end(), missing
                return [want.span(), known.span()], known.end(), missing
    return None


def _told_anywhere(line: _Line) -> str | None:
    """A word for telling the user anywhere in the line, the rest what it is about:
    "Kannst du mir künftig Bescheid geben, wenn Rechnungen reinkommen?", "Verschobene
    Termine muss ich nicht gemeldet bekommen", "je veux plus être prévenu pour lui", "Les
    avis de ma mutuelle, signale-les moi". A negation in its clause says never; a negated
    missing says tell. What is left is read, or flagged, as any line is."""
    found = _telling_spans(line.low)
    if found is None:
        return None
    spans, last, missing = found
    if missing:  # "… no me quiero perder nada": the "nothing" is what is not to be missed
        after = _NOTHING_FIRST.match(line.low[spans[-1][1] :].lstrip())
        if after:
            start = (
                spans[-1][1]
                + len(line.low[spans[-1][1] :])
                - len(line.low[spans[-1][1] :].lstrip())
            )
            spans[-1] = (spans[-1][0], start + after.end())
            last = max(last, spans[-1][1])
    first = spans[0][0]
    opened = _CLAUSE_START.match(line.low[:first])
    clause = opened.end() if opened else 0
    negations = [m.span() for m in _SAYS_NO.finditer(line.low, clause, last)]
    ne = _NE_BEFORE.search(line.low, clause, first)
    if ne is not None and not _ONLY_QUE.search(line.low, last):
        negations.append(ne.span(1))  # "Ne me préviens pour rien": French says no in two words
    unwanted = any(_UNWANTING.fullmatch(line.low, s, e) for s, e in spans)
    never = (bool(negations) or unwanted) != missing
    cut = sorted(spans + negations)
    beside = [m.span() for m in _ALONGSIDE.finditer(line.low)]
    beside += [m.span() for m in _SUBORDINATE.finditer(line.low)]
    grown = True
    while grown:  # "mir künftig Bescheid geben": each word beside one cut is cut
        grown = False
        for s0, e0 in beside:
            if (s0, e0) not in cut and any(abs(s0 - e) <= 1 or abs(s - e0) <= 1 for s, e in cut):
                cut.append((s0, e0))
                grown = True
    origin = line.folded[1]
    keep, last_end = [], 0
    for s, e in sorted(cut):
        if s < last_end:
            last_end = max(last_end, origin[e - 1] + 1)
            continue
        keep.append(line.text[last_end : origin[s]].rstrip(" :;—–-"))  # "X: altijd melden"
        last_end = origin[e - 1] + 1
    keep.append(line.text[last_end:])
    body = re.sub(r"\s*,(?:\s*,)+", ",", " ".join(" ".join(keep).split()))
    body = _strip_lead(body.strip(" ,;:-—–¿¡"), 0)
    nothing = _NOTHING_FIRST.match(fold_with_map(body)[0]) if missing else None
    if nothing:  # "no me quiero perder nada del grupo …"
        body = body[fold_with_map(body)[1][nothing.end() - 1] + 1 :].strip()
    each = _A_MESSAGE_EACH_TIME.match(fold_with_map(body)[0])
    if each:  # "I don't need a notification every time someone moves a meeting"
        body = body[fold_with_map(body)[1][each.end() - 1] + 1 :].strip()
    opening = re.match(rf"^\s*{_OPENING}", fold_with_map(body)[0])
    if opening and opening.end():
        body = body[fold_with_map(body)[1][opening.end() - 1] + 1 :].strip(" ,;:")
    if not re.search(r"\w", body):
        return None
    return f"{'never notify me about' if never else 'notify me about'} {body}"


_NOTIFY_EXCEPT = (
    r"(?:unless|except(?: when| if)?|but yes (?:if|when)|pero si (?:si|cuando)|aber ja,? wenn|"
    r"mais oui si|mas sim se|ma si se|salvo(?: que| cuando| si)?|excepto|es sei denn|"
    r"ausser(?: wenn)?|sauf(?: si| quand)?|a nao ser que|menos quando|menos cuando|exceto|"
    r"tranne(?: quando| se)?|a meno che|tenzij|behalve(?: als| wanneer)?)"
)


def _excepted(tail: str, lead: str) -> str:
    """What a Never line excepts is what it wants to hear about: "X: no, except if Y" →
    "…; if Y, tell me" (an Always line's exception stays an exception)."""
    m = re.match(rf"\s*{_NOTIFY_EXCEPT}\s+(.+)$", fold_with_map(tail)[0], re.I)
    if not lead.startswith("never") or m is None:
        return tail
    _, origin = fold_with_map(tail)
    said = tail[origin[m.start(1)] :].strip(" .")
    return f"; if {said}, tell me"


_PLEASE = [p for p in phrases("clauses.courtesies") if p in phrases("clauses.lead_ins")]
_COURTESY = re.compile(
    rf"\s*,?\s+(?:{phrase_pattern('clauses.courtesies')}(?=\s?[,.!;:(]|\s*$|\s+[^\w\s,.;:]+\s*$)"
    rf"|(?:{'|'.join(phrase_regex(p) for p in _PLEASE)})(?![\w'-]))"
)
"""A courtesy inside a line: one that ends a clause ("…, pls, …"), or a "please" anywhere
("Sag mir bitte immer …"); "someone thanks me" is no courtesy."""
"""A courtesy inside a line ("Sag mir bitte immer …", "no me avises porfa de …"): it decides
nothing and qualifies nothing."""


_SAID_INSIDE = [p for p in phrases("predicates.intensifiers") if " " in p or len(p) >= 5]
"""Intensifiers read inside a line: phrases and longer words only, as the tables of every
language are read together and a short word of one is a word of another ("ja", "logo")."""
_FILLER = re.compile(
    rf"\s*,?\s+(?<![\w'-])(?:{'|'.join(phrase_regex(p) for p in _SAID_INSIDE)})(?![\w'-])"
    rf"(?=[\s,.!;:]|$)|{_COURTESY.pattern}"
)
"""A courtesy, or words that say how soon and change nothing ("je veux être prévenu tout de
suite quand …", "avvisami subito se …"), inside a line."""


_ARROW = re.compile(r"\s*(?:→|⇒|->|=>)\s*")
"""An arrow says what a line's subject gets, as a dash or a colon does ("Instagram → never")."""


def without_courtesies(text: str) -> str:
    """The line without its courtesies and its words for "right away", the rest as written;
    a courtesy may open it ("pls always tell me …")."""
    text = f" {text}"
    low, origin = fold_with_map(text)
    out, last = [], 0
    for m in _FILLER.finditer(low):
        if m.end() <= m.start():
            continue
        start, end = origin[m.start()], origin[m.end() - 1] + 1
        out.append(text[last:start])
        last = end
    out.append(text[last:])
    kept = re.sub(r",\s*([!.?])", r"\1", "".join(out)).strip().lstrip(",;:!. ")
    return kept if kept else text.strip()


def read_decision(text: str) -> tuple[str, Decision | None]:
    """The line without the words of its own decision, and that decision (None when the
    line says none: its heading decides)."""
    body, decision = _read_decision(_DASHED_ASIDE.sub(_as_an_aside, otherwise_waits(text)))
    if decision is None:
        return body, None
    low, where = fold_with_map(body)
    told = _TOLD_LAST.search(low)
    if told and told.start() > 0:  # "… will ich nichts von der Arbeit hören"
        body = body[: where[told.start()]].rstrip(" ,;:")
    if decision.section == CUSTOM:  # "…, o resto pode esperar": the otherwise it has
        otherwise = _OTHERWISE_LAST.search(fold_with_map(body)[0])
        if otherwise and otherwise.start() > 0:
            body = body[: fold_with_map(body)[1][otherwise.start()]].rstrip(" ,;")
    missed = _MISSED_FIRST.match(fold_with_map(body)[0])
    if missed and not re.search(r"\w", fold_with_map(body)[0][missed.end() :]):
        return text, None  # "… I don't want to miss anything.": the user's reason, no rule
    if decision.section == NEVER and not decision.conditional and missed:
        # "Non voglio perdermi niente con lui": not wanting to miss is wanting to know
        body, decision = body[fold_with_map(body)[1][missed.end() - 1] + 1 :], Decision(ALWAYS)
    if decision.section == CUSTOM:
        return body, decision  # "Only tell me about …": the custom reader reads its own words
    return _without_telling_inside(_subject_said(body)), decision


_ONLY_AN_ASIDE = re.compile(r"^\s*\((?P<aside>[^()]+)\)\s*(?=;|$)")


def _subject_said(body: str) -> str:
    """What a line is about, its label's generic word gone ("Meldingen: nee — behalve …"):
    an aside that was the label's meaning is the subject ("Meldingen (automatische mails)"),
    and nothing before the exception is everything ("…; if facturen, tell me")."""
    body = _ONLY_AN_ASIDE.sub(lambda m: m.group("aside"), body)
    said = body.strip(" ,:")
    if said.startswith(";"):
        return f"anything{said}"
    return said.strip(" ,;:")


def otherwise_waits(text: str) -> str:
    """ "Work email only during working hours. Otherwise it can wait": after an "only", the
    otherwise said last is the silence the "only" keeps already; taken off before the line is
    read, so its "can wait" is no Never of the line."""
    folded, where = fold_with_map(text)
    m = _OTHERWISE_LAST.search(folded)
    if m is None or m.start() == 0 or not re.search(RESTRICTIVE, folded[: m.start()]):
        return text
    return text[: where[m.start()]].rstrip(" ,;")


_OTHERWISE_LAST = re.compile(
    rf"\s*[,;.]\s*(?:{phrase_pattern('clauses.otherwise')})"
    rf"(?:,?\s+(?:(?:it|they|that|this|das|ca|isso|eso|esto|dat)\s+)?"
    rf"(?:{phrase_pattern('predicates.never_end')}))?[\s.!]*$"
)
"""What a conditional line says happens outside its condition, said last ("…, o resto pode
esperar", "…, lo demás ya lo leo yo"): the silence its condition keeps already."""


def _without_telling_inside(body: str) -> str:
    """ "de lo que mande mi ex (Julián Osorio) me lo pases, ni por correo …": a word for
    telling left inside what a line is about, once its decision is read, says nothing of
    what it is about ("…; if X, tell me", which says what an exception gets, stays)."""
    low, where = fold_with_map(body)
    cuts = [
        m.span()
        for m in _TELLING.finditer(low)
        if m.start() > 0 and not re.search(r"[,;]\s*$", low[: m.start()])
    ]
    for start, end in reversed(cuts):
        body = f"{body[: where[start]].rstrip()} {body[where[end - 1] + 1 :].lstrip()}"
    return re.sub(r"\s+([,;])", r"\1", " ".join(body.split())) if cuts else body


_MISSED_FIRST = re.compile(
    rf"^\s*(?:to\s+)?{phrase_pattern('predicates.missing')}(?:\s+(?:"
    rf"{alternation(phrases('words.nothing'))}|{alternation(phrases('words.anything'))})(?![\w'-]))?"
    r"[\s.!]*"
)

_TOLD_LAST = re.compile(
    rf"(?<![,;])\s+(?:{phrase_pattern('predicates.telling')}|{phrase_pattern('predicates.knowing')})"
    r"[\s.!]*$"
)
"""A word for telling or knowing that ends a line whose decision was read without it (not
"…; if X, tell me", which says what an exception gets)."""
_DASHED_ASIDE = re.compile(r"\s[—–]\s+(?P<list>[^—–.;:()]+?)\s[—–]\s+(?=\S)")


def _as_an_aside(m: re.Match[str]) -> str:
    """ "Whenever a bill comes in — water, power, phone, whatever — tell me": a list
    between dashes gives examples, as one in parentheses does ("whatever" widens it)."""
    items = [i.strip() for i in m.group("list").split(",")]
    if len(items) < 3 or any(not i or len(i.split()) > 3 for i in items):
        return m.group(0)
    named = [i for i in items if not _WHATEVER.match(fold_with_map(i)[0])]
    return f" ({', '.join(named)}) " if named else " "


_CHANNEL = rf"(?:by\s+|per\s+|por\s+|par\s+|via\s+|op\s+)?(?:{SOURCE_PATTERN})"
_WHICHEVER_CHANNEL = re.compile(
    rf"(?<=\S)[\s,.;:—–-]+(?P<said>{_CHANNEL}(?:\s*(?:,|/|\bor\b|\boder\b|\bo\b|\bou\b|"
    rf"\bof\b|\bu\b)\s*{_CHANNEL})+)\s*[,:—–-]?\s*"
    rf"(?:{alternation(phrases('words.whatever'))})[\s.!]*$"
)
"""A line that ends with its channels and a word for "whichever" ("Anything from my
sister. Email or WhatsApp, doesn't matter", "Mail oder WhatsApp, ist egal"): the line holds on
each of them, said as an aside; "doesn't matter" is no decision there."""


def _whichever_channel(text: str) -> str:
    folded, where = fold_with_map(text)
    m = _WHICHEVER_CHANNEL.search(folded)
    if m is None:
        return text
    head = text[: where[m.start()]].rstrip(" .,;:")
    said = text[where[m.start("said")] : where[m.end("said") - 1] + 1]
    return f"{head} ({said})"


def _read_decision(text: str) -> tuple[str, Decision | None]:
    text = _ARROW.sub(" — ", without_courtesies(_whichever_channel(text)))
    listed = _examples_after_a_dash(text) or _decided_in_the_label(text)
    if listed is not None:
        return listed
    opened = _window_first(text)
    if opened is not None:
        return opened
    for m in re.finditer(r"\s[—–-]{1,2}\s+", text):
        found = _tail_decision(text[m.end() :])
        if found is not None:
            decision, rest = found
            head, rest = text[: m.start()].rstrip(" .;,"), rest.strip().lstrip(".;, ")
            return (f"{head}. {rest}" if rest else head), decision
    text = canonical(text)
    low, _ = fold_with_map(text)
    if re.search(RESTRICTIVE, low) and re.match(rf"^\s*(?:please\s+)?(?:{NEG}|{POS})\b", low):
        return text, Decision(CUSTOM)  # "Notify me about invoices only if they are overdue"
    never = re.match(rf"^\s*(?:please\s+)?(?:{NEG})\b", low, re.I)
    if never:
        return _strip_lead(text, never.end()), Decision(NEVER)
    always = re.match(rf"^\s*(?:please\s+)?(?:{POS})\b", low, re.I)
    if always:
        negated = _NEGATION_FIRST.match(low[always.end() :])
        if negated:  # "Tell me never about …", "Avísame nunca de …"
            return _strip_lead(text, always.end() + negated.end()), Decision(NEVER)
        if re.search(rf"\b{_NEGATION}\b", low[: always.end()]):  # "Sag mir nie Bescheid …"
            body = re.sub(rf"\b{_NEGATION}\b\s*", "", _strip_lead(text, always.end()), count=1)
            return body, Decision(NEVER)
        return _strip_lead(text, always.end()), Decision(ALWAYS)
    if re.search(r"\bonly\s+(?:notify|tell|alert|ping|let)\b|\bnur\s+benachrichtig", low):
        return text, Decision(CUSTOM)
    no = _NO_START.match(low) or _neither_nor(low) or _NOTHING_OF_START.match(low)
    if no and not re.search(RESTRICTIVE, low):
        return _strip_lead(text, no.end()), Decision(NEVER)
    windowed = _window_last(text)
    if windowed is not None:
        return windowed
    told = _told_anywhere(_Line(text))
    return read_decision(told) if told is not None else (text, None)


_LABEL_ASIDE = re.compile(
    r"^(?P<label>[^():\n]{1,40}?)\s*\((?P<aside>[^()]{1,120})\)\s*:\s*(?P<body>\S.*)$"
)


def _decided_in_the_label(text: str) -> tuple[str, Decision] | None:
    """A category whose label says its decision in parentheses, as peer products describe
    theirs ("The Feed (mai avvisi, le leggo io quando ho tempo): newsletter, Behance",
    "Caixa de entrada (me avisa na hora): …"): the decision is the list's, the label names
    the category, and what else the aside says stays with it, to be read or flagged."""
    m = _LABEL_ASIDE.match(text)
    if m is None or read_decision(m.group("body"))[1] is not None:
        return None
    clauses = [c.strip() for c in m.group("aside").split(",")]
    for n, clause in enumerate(clauses):
        rest, decision = read_decision(f"x: {clause}")
        if decision is not None and not decision.conditional and rest.strip(" .,:;") == "x":
            aside = ", ".join(clauses[:n] + clauses[n + 1 :])  # kept, to be read or flagged
            label = f"{m.group('label').strip()} ({aside})" if aside else m.group("label").strip()
            return f"{label}: {m.group('body')}", decision
    return None


_DASHED_LIST = re.compile(r"\s[—–-]{1,2}\s+(?P<list>[^—–.;:()]+?)[\s.!…]*$")
_WHATEVER = re.compile(rf"^(?:{phrase_pattern('words.whatever')})$")


def _examples_after_a_dash(text: str) -> tuple[str, Decision] | None:
    """ "Rechnungen bitte immer melden – Strom, Handy, Internet, egal": a list after a dash,
    after a line that states its decision, gives examples, as if in parentheses after what
    the line is about; the "egal" ("whatever") that ends it widens the list and is no
    decision of its own."""
    m = _DASHED_LIST.search(text)
    if m is None:
        return _examples_and_whatever(text)
    items = [i.strip() for i in m.group("list").split(",")]
    if len(items) < 3 or any(not i or len(i.split()) > 3 for i in items):
        return None
    body, decision = read_decision(text[: m.start()].rstrip())
    if decision is None:
        return None
    named = [i for i in items if not _WHATEVER.match(fold_with_map(i)[0])]
    return (f"{body} ({', '.join(named)})" if named else body), decision


_LISTED_LAST = re.compile(
    rf",\s+(?P<list>[^.;:()—–]+?,\s*(?:{alternation(phrases('words.whatever'))}))[\s.!…]*$"
)


def _examples_and_whatever(text: str) -> tuple[str, Decision] | None:
    """ "alle Paketbenachrichtigungen anzeigen, DHL, Hermes, egal": names after a comma that
    end on a word for "whatever", after a line that states its decision, are examples of
    what it is about; the "egal" is no "no" of its own."""
    folded, where = fold_with_map(text)
    m = _LISTED_LAST.search(folded)
    if m is None:
        return None
    items = [i.strip() for i in m.group("list").split(",")]
    if len(items) < 2 or any(not i or len(i.split()) > 3 for i in items):
        return None
    body, decision = read_decision(text[: where[m.start()]].rstrip())
    if decision is None:
        return None
    listed = text[where[m.start("list")] : where[m.end("list") - 1] + 1].split(",")
    named = [i.strip() for i in listed if not _WHATEVER.match(fold_with_map(i.strip())[0])]
    return (f"{body} ({', '.join(named)})" if named else body), decision


def _window_last(text: str) -> tuple[str, Decision] | None:
    """A line that says when it applies after its decision ("recruiter messages on LinkedIn
    are fine during working hours (weekdays, 9 to 6)"): read as if the window opened it.
    The closing words are the window alone, the longest that is."""
    spans = list(re.finditer(r"\S+", text))
    if len(spans) < 3 or find_window(text)[1] is None:
        return None
    for n in range(max(1, len(spans) - _WINDOW_WORDS), len(spans)):
        head, tail = text[: spans[n].start()], text[spans[n].start() :].strip(" .!;")
        tail = _BUT_ONLY.sub("", tail)  # "…, but only during working hours"
        if _takes_the_word_before(head, tail):
            continue  # "só no horário comercial": "no" is the window's ("in the"), not a "no"
        if _only_window(tail) and read_decision(head.strip(" ,;:"))[1] is not None:
            return _window_first(f"{tail}, {head.strip(' ,;:')}")
    return None


def _takes_the_word_before(head: str, tail: str) -> bool:
    """The window said in ``tail`` goes on with the last word of ``head``."""
    last = re.search(r"([\w'-]+)\s+$", head)
    if last is None:
        return False
    left = fold_with_map(find_window(tail)[0])[0].split()
    return fold_with_map(find_window(f"{last.group(1)} {tail}")[0])[0].split() == left


_BUT_ONLY = re.compile(
    rf"^(?:{phrase_pattern('clauses.contrasts')}\s+)?{phrase_pattern('words.only')}\s+",
    re.I,
)
"""A window's "but only" after the decision: the window is then the line's only time."""


_WINDOW_WORDS = 12
"""How many words a window opening a line may take ("Di notte, dalle 23 alle 7, …")."""


def _window_first(text: str) -> tuple[str, Decision] | None:
    """A line that opens with when it applies, then says its decision ("On weekends, don't
    notify me about work email", "Depois das 20h só me avises se …"): the decision is read
    after the window, and the window stays with the rest, so the rule holds only then.
    The opening is the window alone (its other words function words, none that decides or
    restricts), the longest that is ("Ab 20 Uhr", not "Ab 20")."""
    spans = list(re.finditer(r"\S+", text))[: _WINDOW_WORDS + 1]
    if len(spans) < 2 or find_window(text[: spans[-1].end()])[1] is None:
        return None
    window = [_only_window(text[: spans[n - 1].end()]) for n in range(1, len(spans) + 1)]
    # an opening ends at or after the last word the window takes ("6 in the morning")
    took = [n for n in range(1, len(spans) + 1) if window[n - 1] and _window_takes(spans, n)]
    reach = max(took, default=0)
    opening = [n for n in range(max(reach, 1), len(spans)) if window[n - 1]]
    for n in reversed(opening):
        head, tail = text[: spans[n - 1].end()], text[spans[n - 1].end() :].strip(" ,;:")
        if ENDS_NEGATED.search(fold_with_map(head)[0]):
            continue  # "Le week-end, ne | me préviens que …": the negation is the decision's
        rest, decision = read_decision(tail) if tail else ("", None)
        if decision is None and (nothing := _nothing_then(tail)) != tail:
            rest, decision = read_decision(nothing)
        if decision is not None:
            return f"{head.strip(' ,;:')} {rest}", decision
    return None


def _window_takes(spans: list[re.Match[str]], n: int) -> bool:
    """The window of the first ``n`` words takes the last of them ("6 in the morning"): an
    opening does not end before it."""
    head = spans[0].string[: spans[n - 1].end()]
    last = re.findall(r"[a-z0-9]+", fold_with_map(spans[n - 1].group(0))[0])[-1:]
    left = re.findall(r"[a-z0-9]+", fold_with_map(find_window(head)[0])[0])
    return bool(last) and last[0] not in left


_NOTHING_ALONE = re.compile(
    rf"^(?:(?:{alternation(phrases('clauses.courtesies'))})\s+)?"
    rf"(?:{alternation(phrases('words.nothing'))}|{alternation(phrases('answers.never'))})"
    r"(?=\s*(?:[,.;!(—–-]|$))"
)


def _nothing_then(tail: str) -> str:
    """ "Christmas Day and Boxing Day: nothing at all, not even my sister", "Am Wochenende bitte
    Ruhe": after a window, "nothing" or a "no" alone says never, about anything."""
    folded, where = fold_with_map(tail)
    m = _NOTHING_ALONE.match(folded)
    if m is None:
        return tail
    if re.match(rf"[\s,;:—–-]*(?:{_EXCEPT})\b", folded[m.end() :]):
        return tail  # "gar nichts, außer X": read as nothing but X, where "only" is read
    return "never notify me about anything" + tail[where[m.end() - 1] + 1 :]


ENDS_NEGATED: Final = re.compile(rf"(?<![\w'-])(?:{_NEGATION}|niet|ne|n')\s*$")
"""A negation that ends what is said so far ("Le week-end, ne | …", "Lo que no | puede
esperar")."""


def _only_window(head: str) -> bool:
    """``head`` says when, and nothing else."""
    left, window = find_window(head)
    if window is None or _names_something(left) or _restricts(left):
        return False
    return not left.strip(" ,;:") or read_decision(f"{left} x")[1] is None


def _restricts(text: str) -> bool:
    """Words that change a decision ("only", "nur", "not"), which an opening window may not
    take with it."""
    low = fold_with_map(text)[0]
    none_of = phrase_pattern("words.no_determiners")
    return bool(
        re.search(RESTRICTIVE, low)
        or re.search(rf"\b{_NEGATION}\b", low)
        or re.search(none_of, low)
        or re.search(phrase_pattern("words.only"), low)
    )


def _strip_lead(text: str, end: int) -> str:
    """ "Never notify me about WhatsApp …" → "WhatsApp …"."""
    rest = text[end:]
    folded, where = fold_with_map(rest)
    m = _LEAD.match(folded)
    if m and m.end() < len(folded):
        rest = rest[where[m.end()] :]
    if rest.strip(" ,.:").startswith(";"):  # "Meldingen: nee — behalve facturen": all of them
        return "anything" + rest.strip(" ,.:")
    return rest.strip(" ,.;:")


_LEAD = re.compile(
    r"^(?:\s*(?:me\s+)?(?:about|of|when|if|that|on|for|sobre|de|cuando|que|si|uber|wenn|"
    rf"dass|quand|lorsque|sur|quando|se|di|su|{phrase_pattern('clauses.every_time')}|"
    rf"{_A_MESSAGE_EACH_TIME.pattern.lstrip('^')}|"
    rf"{phrase_pattern('predicates.telling')}|{phrase_pattern('predicates.knowing')})(?![\w'-]))+"
)
"""The words between a decision said first and what it is about ("… about", "… every
time", "… cada vez que")."""


def line_section(text: str) -> Section | None:
    """The section a line outside the headings puts itself in, or None (it is prose)."""
    _, decision = read_decision(text)
    return decision.section if decision else None
