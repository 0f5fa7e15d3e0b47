"""Reading one clause of a rule into a ``Match``, one small extractor per aspect.

An extractor takes the text still to read and returns what it found and the text it leaves
for the next. ``parse_fragment`` runs them in four passes:

1. literals are taken out: quoted phrases, addresses, domains, asides in parentheses (the
   asides are read last, once it is known what else the clause names), and a relative
   clause saying what people want ("patients who want to cancel …": a topic);
2. kind phrases are taken out: what the events are (receipts, billing problems) and who
   sends them (automated tools, clients), in six languages (``kindwords``);
3. keywords are read from what is left, folded to lower case. They take nothing out: "Zoom"
   is a kind of call and may also be read as a name later;
4. phrases are taken out in turn: a subject in capitals, a named chat, topics, names.

Last, ``settle`` adds what the conditions imply (a named chat is on WhatsApp, a calendar
condition is about the calendar) and drops duplicates.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import fields, replace
from datetime import timedelta
from functools import cache, lru_cache
from typing import Any

from engine.triage.classifier import fold, words
from engine.triage.classifier.amounts import limit_in
from engine.triage.classifier.text import fold_with_map, language
from engine.triage.language import (
    LANGUAGES,
    function_words,
    identity_words,
    phrase_pattern,
    phrase_regex,
    phrases,
    weekdays,
)
from engine.triage.language import language as language_data
from engine.triage.rules.kindwords import KIND_WORDS, KindWord, is_kind_word
from engine.triage.rules.match import Match, digits
from engine.triage.rules.names import VOCAB, example_list, is_german, name_list
from engine.triage.rules.typos import nearest
from engine.triage.rules.vocab import (
    FAMILY_ROLES,
    INVITATIONS,
    NUMBER_WORDS,
    PARENT_WORDS,
    PERSON_ROLES,
    REMINDERS,
    ROLE_WORDS,
    SOURCE_WORDS,
    STOP,
)

Extracted = tuple[Match, str]
"""(the conditions an extractor found, the text it leaves for the next)"""

NOTHING = Match()

FUNCTION_WORDS = function_words()
"""Words of every supported language that carry no condition of their own."""
QUOTED = re.compile(r"[\"“”„«»]([^\"“”„«»]{1,80})[\"“”„«»]|(?<![\w])'([^']{1,80})'(?![\w])")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
DOMAIN = re.compile(r"(?<![\w.@-])@?((?:[a-z0-9][a-z0-9-]*\.)+[a-z]{2,})(?![\w-])", re.I)
PARENS = re.compile(r"\(([^()]*)\)")
UNITS = (
    r"(minutes?|mins?|hours?|hrs?|h|days?|weeks?|minutos?|horas?|dias?|semanas?|minuten|"
    r"stunden?|tagen?|tage|wochen?|heures?|jours?|semaines?|minuti|ore|giorni|settimane?|uur|"
    r"dagen|weken)"
)
NUMBER = "|".join(sorted(map(re.escape, NUMBER_WORDS), key=lambda w: (-len(w), w)))
"""Any number word of the supported languages (``engine.triage.language``)."""
MAX_COUNT = 1_000_000
MAX_WITHIN = timedelta(days=36_525)
"""A rule's "within N days" is held to a century: any longer means the same, and a date that
far off could not be computed."""
DURATION = re.compile(
    r"\b(?:in|within|during|en|dentro de|innerhalb(?: von)?|dans|nas?|em|nelle|entro|nei|"
    r"in den)\s+(?:the\s+|las\s+|los\s+|les\s+|as\s+|os\s+|le\s+)?"
    r"(?:next\s+|proximas\s+|proximos\s+|nachsten\s+|prochaines\s+|prochains\s+|"
    r"prossime\s+|prossimi\s+)?(?:less than\s+|under\s+|menos de\s+|weniger als\s+|"
    r"moins de\s+|meno di\s+)?"
    rf"(\d+|{NUMBER})\s*" + UNITS + r"\b",
    re.I,
)
_ABOUT_END = (
    r"(?=$|[.;:!?]|\s+(?:within|in the next|dentro de|innerhalb|dans les|nas proximas|entro)\b|"
    r"\bonly\b|\bif\b|\bwhen\b|\bunless\b|\bfrom\b|\bnot\b|,\s*"
    r"(?:always|never|tell|notify|whoever|even|or|and|o|y|ou|et|oder|und|e)\b)"
)


def _connector(phrase: str) -> str:
    """One "about" connector as a regular expression, with the space after it ("a propos d'"
    runs into its word)."""
    if phrase.endswith("'"):
        return phrase_regex(phrase[:-1]) + r"['’]\s*"
    return phrase_regex(phrase) + r"\s+"


_CONJUNCTIONS = ("to", "or", "and", "o", "y", "u", "e", "ou", "et", "oder", "und", "of", "en")
"""Words that cannot start what a clause is about ("about to start", "mentions or …")."""


def _about_patterns() -> tuple[tuple[re.Pattern[str], bool], ...]:
    """The clause's "about X" (``clauses.about``, ``clauses.mentioning``: X runs to the
    next clause) and the frames that hold X inside them (``clauses.about_frames``: "es um X
    geht"), from the language data; X is the group ``topic``. Each pattern comes with
    whether a list of people it names is whom the line means ("about Mãe or Pai": only
    after "about"). X is never the user ("mentions me" is a mention) nor the start of
    "about to"."""
    not_topic = "|".join(phrase_regex(p) for p in (*phrases("words.me"), *_CONJUNCTIONS))
    frames = [
        rf"(?<![\w'-]){phrase_regex(before)}\s+(?P<topic>.+?)\s+{phrase_regex(after)}(?![\w'-])"
        for before, after in (frame.split("{}") for frame in phrases("clauses.about_frames"))
        if before.strip() and after.strip()
    ]

    def prefixed(key: str) -> str:
        connectors = "|".join(_connector(p) for p in phrases(key))
        return (
            rf"(?<![\w'@-])(?:{connectors})(?!(?:{not_topic})(?![\w'-]))"
            rf"(?P<topic>.+?){_ABOUT_END}"
        )

    return (
        *((re.compile(f), False) for f in frames),
        (re.compile(prefixed("clauses.mentioning")), False),
        (re.compile(prefixed("clauses.about")), True),
    )


ABOUT = _about_patterns()


SENDER_PREP = re.compile(
    r"(?:^|\s)(?:from|by|at|on|de la part de|de|del|de la|de los|de las|von|vom|von der|der|dem|"
    r"du|des|de l'|d'|do|da|dos|das|di|dal|dalla|della|dello|dai|degli|bei|van|van de|"
    r"van het)\s+(?=\S)",
    re.I,
)
OTHER_ALIKE = re.compile(
    r"\b(?:or|and|y|u|o|e|und|oder|et|ou)\s+(?:any\s+|all\s+)?(?:other|otros?|otras?|andere[n]?|"
    r"autres?|outros?|outras?|altri|altre)\b|\betc\b|\band the like\b|\by similares\b|"
    r"\bund [äa]hnliche\b|\bet similaires\b",
    re.I,
)
BARE_WHO = {
    "apps",
    "app",
    "tools",
    "tool",
    "services",
    "software",
    "platforms",
    "platform",
    "systems",
    "system",
    "machines",
    "machine",
    "servicios",
    "aplicaciones",
    "plataformas",
    "plataforma",
    "sistemas",
    "sistema",
    "diensten",
    "dienste",
    "anwendungen",
    "systeme",
    "applications",
    "systemes",
    "aplicativos",
    "servicos",
    "servizi",
    "applicazioni",
    "sistemi",
    "piattaforme",
}
CONNECTORS = {
    "other",
    "any",
    "automated",
    "automatic",
    "the",
    "from",
    "and",
    "or",
    "by",
    "of",
    "de",
    "del",
    "des",
    "du",
    "do",
    "da",
    "di",
    "von",
    "vom",
    "y",
    "e",
    "und",
    "et",
    "ou",
    "o",
    "les",
    "los",
    "las",
    "a",
    "an",
    "all",
    "my",
    "mis",
    "meine",
    "mes",
    "meus",
    "miei",
    "some",
    "various",
    "otros",
    "otras",
    "andere",
    "anderen",
    "autres",
    "outros",
    "altri",
    "la",
    "le",
    "el",
    "der",
    "die",
    "das",
    "den",
    "dem",
}


MATCH_FIELDS = fields(Match)


def combine(found: Match, more: Match) -> Match:
    """Conditions of two extractors together: sets are joined, lists appended, and a value
    ``more`` sets (a flag, a number) replaces ``found``'s default."""
    if more == NOTHING:
        return found
    if found == NOTHING:
        return more
    changes: dict[str, Any] = {}
    for f in MATCH_FIELDS:
        mine, theirs = getattr(found, f.name), getattr(more, f.name)
        if isinstance(mine, frozenset):
            changes[f.name] = mine | theirs
        elif isinstance(mine, tuple):
            changes[f.name] = mine + theirs
        elif theirs != f.default:
            changes[f.name] = theirs
    return replace(found, **changes)


def _has(text: str, phrases: tuple[str, ...]) -> bool:
    return any(re.search(rf"(?<![\w-]){re.escape(p)}(?![\w-])", text) for p in phrases)


def _topic_words(text: str, *, keep_roles: bool = True) -> tuple[str, ...]:
    """The words of ``text`` that can carry a topic (role words such as "boss" too, unless
    ``keep_roles`` is False)."""
    return tuple(
        w
        for w in words(text)
        if w not in STOP and w not in VOCAB and (keep_roles or w not in ROLE_WORDS) and len(w) > 2
    )


# 1. literals --------------------------------------------------------------------------------


GROUP_WORD_BARE = r"(?:group|grupo|gruppe|groupe|gruppo|groep|appgroep|groepsapp|chat)"
_CHAT_BEFORE = re.compile(
    rf"\b{GROUP_WORD_BARE}\s+(?:(?:de|on|in|auf|su|no|em|sur|di|del)\s+)?whatsapp\s*[:,]?\s*"
    r"[\"“”„«»‘’']?$"
)
"""A quoted chat after its words for a WhatsApp group: 'el grupo de WhatsApp "Padres 3ºB"'."""


def quoted(text: str) -> Extracted:
    """Phrases in quotes: a subject phrase when "subject" or "title" is near, a chat when
    "group", "chat" or "channel" is, else a name. An address in quotes stays for
    ``addresses``."""
    low = fold(text)
    subject_phrases: list[str] = []
    chats: list[str] = []
    names: list[str] = []
    kinds_quoted: list[str] = []
    contained: list[str] = []
    for q1, q2 in QUOTED.findall(text):
        q = q1 or q2
        at = low.find(fold(q))
        after, before = low[at + len(q) :][:40], low[:at][-30:]
        near = f"{after} {before}"
        if _said_quote(before, after):
            contained.append(q)  # "messages containing "hotfix"", "wenn „dringend“ drinsteht"
        elif re.search(r"\b(subject|title|asunto|betreff|objet|assunto|oggetto)\b", near):
            subject_phrases.append(q)
        elif (
            re.search(
                r"\b(group|chat|channel|grupo|gruppe|groupe|gruppo|groep|appgroep|groepsapp)\b",
                after[:25] + " " + before[-12:],
            )
            or _CHAT_BEFORE.search(before)
            or _in_a_group_aside(low[: max(at, 0)])
        ):
            chats.append(q)
        elif any(k.pattern.fullmatch(fold(q).strip()) for k in KIND_WORDS):
            kinds_quoted.append(q)  # «fuera de la oficina»: a kind in quotes, read as one
        elif _said_in_a_message(q) or (q == q.lower() and "@" not in q and q.strip()):
            # "your order has shipped", DocuSign "completed" emails: what the message says,
            # not who sends it (a name in quotes has its capitals)
            subject_phrases.append(q)
        else:
            names.append(q)
    for q in kinds_quoted:
        text = re.sub(rf"[\"“”„«»‘’']{re.escape(q)}[\"“”„«»‘’']", f" {q} ", text)
    described: list[str] = []
    for name in names:
        said, text = _apposition(text, name)
        described += said
    found = Match(
        names=tuple(n.strip() for n in names),
        chats=tuple(c.strip() for c in chats),
        subject_phrases=tuple(p.strip() for p in subject_phrases),
        described=tuple(described),
    )
    if contained:
        topics = tuple(w for q in contained for w in words(q))
        one = len(contained) == 1
        found = replace(found, topics=topics, topic_min=len(topics) if one else 1)
        text = re.sub(SAID_QUOTE, " ", text, flags=re.I)
    return found, QUOTED.sub(_addresses_in_quotes, text)


def _in_a_group_aside(before: str) -> bool:
    """A quote that opens an aside after the word for a group: "el grupo de WhatsApp de los
    vecinos («Comunidad Finca Roja»)"."""
    return bool(
        re.search(rf"\b{GROUP_WORD_BARE}\b[^().;:]{{0,40}}\(\s*[\"“”„«»']?\s*$", before[-60:])
    )


def _said_connectors() -> tuple[str, str]:
    """What says a quoted word is in the message: a connector before it ("containing",
    "que mencionen", "about") or, where the verb comes last, a verb after it ("drinsteht")."""
    before = "|".join(
        phrase_regex(p) for p in (*phrases("clauses.mentioning"), *phrases("clauses.about"))
    )
    after = "|".join(phrase_regex(p) for p in phrases("clauses.said_after"))
    return before, after


_SAID_BEFORE, _SAID_AFTER = _said_connectors()
SAID_QUOTE = (
    rf"(?<![\w'-])(?:{_SAID_BEFORE})(?=\s*{QUOTED.pattern})"
    rf"|(?<=[\"“”„«»'])\s*(?:{_SAID_AFTER})(?![\w'-])"
)
"""A connector that says the quote beside it is what a message contains, to take out of the
text once the quote is read."""


def _said_quote(before: str, after: str) -> bool:
    """The quote between ``before`` and ``after`` (folded) is what a message says."""
    return bool(
        re.search(rf"(?<![\w'-])(?:{_SAID_BEFORE})\s*[\"“”„«»']?$", before)
        or (_SAID_AFTER and re.match(rf"[\"“”„«»']?\s*(?:{_SAID_AFTER})(?![\w'-])", after))
    )


SECOND_PERSON = re.compile(phrase_pattern("words.second_person"))
"""How a message speaks to its reader ("your order", "Ihre Bestellung"): language data."""


def _said_in_a_message(quote: str) -> bool:
    """A quoted sentence, not a name: three or more words, lower case, or speaking to the
    reader ("your order has shipped", "Ihre Bestellung ist unterwegs")."""
    tokens = quote.split()
    lower = sum(1 for t in tokens if t[:1].islower())
    return len(tokens) >= 3 and (lower >= 2 or bool(SECOND_PERSON.search(fold(quote))))


APPOSITION_WORD = re.compile(r"([^\W\d][\w'’-]*)[\s(]*$")


def _apposition(text: str, name: str) -> tuple[list[str], str]:
    """The words right before a quoted name that say what it is, and the text without
    them: "la tintorería «Nácar»", "die Kita „Sonnenkäfer"", "the dry cleaner "Spotless"",
    "los vecinos («Finca Roja»)". At most two, none a function word or a word the reader
    knows (those keep their meaning: "newsletters "Lens & Co"")."""
    at = text.find(name)
    if at <= 0:
        return [], text
    cut = at
    while cut > 0 and text[cut - 1] in "\"“”„«»‘’' (":
        cut -= 1
    said: list[str] = []
    while len(said) < 2:
        m = APPOSITION_WORD.search(text[:cut])
        if m is None or m.group(1) != text[m.start(1) : m.end(1)]:
            break
        folded = fold(m.group(1))
        if folded in function_words() or folded in VOCAB or folded in STOP:
            break
        said.insert(0, m.group(1))
        cut = m.start(1)
    if said:
        quote_start = at
        while quote_start > 0 and text[quote_start - 1] in "\"“”„«»‘’'(":
            quote_start -= 1
        return said, text[:cut] + " " + text[quote_start:]
    return _apposition_after(text, at + len(name))


def _apposition_after(text: str, end: int) -> tuple[list[str], str]:
    """The words right after a quoted name that say what it is, when a kind follows them:
    ""Lens & Co" camera shop newsletters"."""
    m = re.match(r"[\"“”„«»‘’')]*\s+((?:[^\W\d][\w'’-]*\s+){1,2})(\S+)", text[end:])
    if m is None:
        return [], text
    said = m.group(1).split()
    if fold(m.group(2)).strip(",.;:") not in VOCAB or any(
        fold(w) in function_words() or fold(w) in VOCAB or fold(w) in STOP for w in said
    ):
        return [], text
    return said, text[: end + m.start(1)] + " " + text[end + m.end(1) :]


def _addresses_in_quotes(quote: re.Match[str]) -> str:
    inside = EMAIL.findall(quote.group(0))
    return f" {' '.join(inside)} " if inside else " "


def recipients(text: str) -> Extracted:
    """ "reports to security@example.org": where mail is sent, which events do not say."""
    return Match(), re.sub(r"\b(?:to|an|a|à|para)\s+[\w.+-]+@[\w-]+(?:\.[\w-]+)+", " ", text)


def addresses(text: str) -> Extracted:
    """E-mail addresses: bob@example.com."""
    found = tuple(fold(a) for a in EMAIL.findall(text))
    return Match(addresses=found), EMAIL.sub(" ", text)


PHONE = re.compile(r"(?<![\w+])\+\d{1,3}(?:[\s().-]{0,2}\d){6,14}(?![\d])")


def phone_digits(text: str) -> str:
    """A phone number as the digits that identify it: "+49 171 555-0392" → "+491715550392"."""
    return "+" + digits(text)


def phones(text: str) -> Extracted:
    """Phone numbers in international form, a WhatsApp contact's identity: +49 171 5550392."""
    found = tuple(phone_digits(m) for m in PHONE.findall(text))
    return Match(addresses=found), PHONE.sub(" ", text)


_TLD_LIST = (
    "com org net edu gov mil int info biz name pro io ai app dev co me tv cc ly fm gg xyz "
    "online site shop store tech cloud email help link page blog news life live world today "
    "agency studio design digital media group company team work works solutions services "
    "global network systems software academy school health care law legal finance bank "
    "money travel events photo photography art berlin paris london nyc tokyo amsterdam "
    "barcelona madrid wien swiss eus cat gal asia africa lat mobi tel coop aero museum "
    "jobs example test local invalid localhost"
)
GENERIC_TLDS = frozenset(_TLD_LIST.split(" "))
"""Top-level domains beside the two-letter country codes: "dott.ssa" is a title, not a
domain."""


def _a_domain(m: re.Match[str]) -> bool:
    tld = m.group(1).rsplit(".", 1)[-1].lower()
    if fold(m.group(0)) in phrases("words.titles"):
        return False  # "la Sig.ra X", "Dott.ssa Y": a title
    return m.group(0).startswith("@") or len(tld) == 2 or tld in GENERIC_TLDS


def domains(text: str) -> Extracted:
    """Domains: example.org, @example.org."""
    hits = [m for m in DOMAIN.finditer(text) if _a_domain(m)]
    found = tuple(fold(m.group(1)) for m in hits)
    for m in reversed(hits):
        text = text[: m.start()] + " " + text[m.end() :]
    return Match(domains=found), text


ROLE_ASIDE = re.compile(
    r"\b((?:my|our|mi|mis|nuestr[oa]s?|meine[nr]?|unser[en]?|mes|mon|ma|notre|nos|meus|minhas?|"
    r"meu|nosso|nossa|miei|mie|mio|mia|nostr[oa])\s+\w+)\s*"
    r"\(([^()]*)\)",
    re.I,
)


FROM_ASIDE = re.compile(
    r"\b((?:from|de|von|vom|du|des|do|da|di|del|dal)\s+(?:the\s+|la\s+|el\s+|le\s+|der\s+|"
    r"dem\s+|o\s+|a\s+|il\s+|l')?[^\W\d][\w'-]*(?:\s+[^\W\d][\w'-]*){0,3})\s*\(([^()]*)\)",
    re.I,
)


def asides(text: str) -> tuple[tuple[str, ...], str]:
    """What is said in parentheses, taken out to be read last (``aside_names``). Names
    given for a role ("my kids (Leo and Mia)") or for a sender ("from the external lab
    (Vetlab, IDEXX)") stay in the text, where they are read as senders."""
    text = ROLE_ASIDE.sub(_role_names, text)
    text = FROM_ASIDE.sub(_sender_names, text)
    return tuple(PARENS.findall(text)), PARENS.sub(" ", text)


def _sender_names(m: re.Match[str]) -> str:
    inner = m.group(2)
    if example_list(inner) and not re.search(r"\b(?:e\.g|like|such as|etc|not|no|pas)\b", inner):
        return f"{m.group(1)} {inner}"
    return m.group(0)


def _role_names(m: re.Match[str]) -> str:
    inner = m.group(2)
    role = fold(m.group(1).split()[-1])
    if role in ROLE_WORDS | identity_words() and name_list(inner) and "saved" not in inner:
        return f"{m.group(1)} {inner}"
    return m.group(0)


RELATIVE = re.compile(
    r"\b(?:(?:who|que|die|qui|che)\s+(?:want|wants|wish|wishes|quieren|quiere|desean|wollen|"
    r"mochten|mochte|veulent|veut|souhaitent|querem|quer|desejam|vogliono|vuole|desiderano)"
    r"\s+(?:to\s+)?|(?:telling|informing|warning) me (?:that |about )?|saying (?:that )?|"
    r"(?:diciendome|avisandome) (?:que )?|(?:m'informant|me disant) (?:que )?|"
    r"(?:me avisando|me dizendo) (?:que )?|(?:dicendomi|avvisandomi) (?:che )?)(.+)$",
    re.I,
)


def wanting(text: str) -> Extracted:
    """ "patients who want to cancel or move an appointment": what they want is a topic,
    and one of its words is enough."""
    m = RELATIVE.search(text)
    if not m:
        return Match(), text
    topics = _topic_words(m.group(1))
    return Match(topics=topics, topic_min=1), text[: m.start()]


# 2. kind phrases ----------------------------------------------------------------------------


def _proper_noun(text: str, start: int, end: int, german: bool) -> bool:
    """ "Seguridad Social" is an office, not security: a capitalised phrase next to another
    capitalised word, away from the start of the clause (German capitalises every noun)."""
    if german:
        return False
    word = text[start:end]
    if not word[:1].isupper() or word.isupper():
        return False
    before = text[:start].rstrip()
    if not before or before[-1] in ":;.!?(—–-":
        return False
    prev = before.split()[-1] if before.split() else ""
    nxt = (text[end:].split() or [""])[0]

    def name_like(token: str) -> bool:
        core = token.strip(".,;:'’()«»\"")
        return core[:1].isupper() and not is_kind_word(core, fold) and fold(core) not in STOP

    return name_like(prev) or name_like(nxt)


def _bare_noun_without_owner(low: str, start: int, word: str) -> bool:
    """ "delivery apps" is a kind of app the reader does not know, not any automated sender."""
    if word not in BARE_WHO:
        return False
    prev = low[:start].split()[-1:] if low[:start].split() else []
    return bool(prev) and prev[0] not in CONNECTORS and prev[0] not in STOP


def _negated(low: str, start: int) -> bool:
    """ "emails that don't need a reply": the words just before deny it."""
    before = " ".join(low[:start].split()[-3:])
    return bool(
        re.search(
            r"\b(?:don'?t|doesn'?t|do not|does not|not|no|never|without|nothing|no need|"
            r"sin|ohne|keine?|nicht|sans|pas|ne|sem|nao|senza|non)\b",
            before,
        )
    )


def _not_a_sender(text: str, low: str, start: int, end: int) -> bool:
    """ "8 personnes" counts people; "in person" is a place; in "people from Kessler" and
    "Kessler people" the sender is Kessler: none of them says a person writes."""
    before = low[:start].rstrip()
    if re.search(r"(?:\d|\+|\bin|\bin-|\ben|\bdi|\bvor)$", before):
        return True
    if re.search(
        r"\b(?:for|para|pour|fur|per|to)(?:\s+(?:my|mis|mi|meine[nr]?|mes|meus|miei|our|"
        r"the|los|las|les|die))?$",
        before,
    ):
        return True  # "results for my patients": whom it is about, not who writes
    after = text[end:]
    if re.match(r"\s+(?:from|at|of|de|del|von|vom|du|des|do|da|di)\s+(?:the\s+)?[A-Z0-9@]", after):
        return True
    prev = text[:start].split()[-1:] if text[:start].split() else []
    return bool(prev) and prev[0][:1].isupper() and not is_kind_word(prev[0], fold)


def _kind_spans(
    entry: KindWord, text: str, low: str, origin: list[int], german: bool
) -> tuple[list[tuple[int, int]], list[int]]:
    """Where ``entry`` says a kind in the text (as written, and its start in ``low``): not
    in a proper noun ("Amazon Orders Ltd"), not a bare noun nobody owns, and a person's word
    only where it names a sender."""
    spans: list[tuple[int, int]] = []
    spans_low: list[int] = []
    for m in entry.pattern.finditer(low):
        if not m.group(0).strip():
            continue
        start, end = origin[m.start()], origin[m.end() - 1] + 1
        if _proper_noun(text, start, end, german):
            continue
        if _bare_noun_without_owner(low, m.start(), m.group(0).strip()):
            continue
        if "person" in entry.kinds and _not_a_sender(text, low, start, end):
            continue
        spans.append((start, end))
        spans_low.append(m.start())
    return spans, spans_low


def kind_words(text: str, german: bool | None = None) -> Extracted:
    """Kinds of events and senders, taken out of the text phrase by phrase."""
    german = is_german(text) if german is None else german
    kinds: set[str] = set()
    senders: set[str] = set()
    asks = urgent = direct = automated = None
    who = _who_spans(text)
    low, origin = fold_with_map(text)
    for entry in KIND_WORDS:
        if not entry.pattern.search(low):
            continue
        spans, spans_low = _kind_spans(entry, text, low, origin, german)
        if not spans:
            continue
        # "emails from CI systems": every mention is where the line says who sends
        in_who = all(any(a <= start < b for a, b in who) for start, _ in spans)
        if entry.role == "what" and in_who and "person" not in entry.kinds:
            senders |= entry.kinds  # "emails from CI systems": who sends them
        elif entry.role == "what":
            kinds |= entry.kinds
        elif entry.role == "who":
            senders |= entry.kinds
        elif entry.role == "auto":
            automated = True
        elif entry.role == "asks":
            asks = not _negated(low, spans_low[0])
        elif entry.role == "urgent":
            urgent = True
        else:
            direct = True
        for start, end in reversed(spans):
            text = text[:start] + " " * (end - start) + text[end:]
        low, origin = fold_with_map(text)
    found = Match(
        kinds=frozenset(kinds),
        sender_kinds=frozenset(senders),
        asks=asks,
        urgent=urgent,
        direct=direct,
        automated=automated,
    )
    return found, text


# 3. keywords (read from folded text, which they leave as it is) -----------------------------


AMBIGUOUS_SOURCES = re.compile(r"(?<=\S)(\s+)(?:Correos|Correios|Posta)(?![\w-])")
"""Source words that are also a company's name when capitalised (the Spanish and Brazilian
postal services)."""


SOURCE_PATTERN = "|".join(
    rf"(?<![\w-]){re.escape(p)}(?![\w]|-(?=[a-z]))|(?<=-){re.escape(p)}(?![\w-])"
    for said in SOURCE_WORDS.values()
    for p in said
)
"""A source word, alone or in a compound ("WhatsApp-Gruppe", "Kalender-Einträge")."""


def sources(low: str) -> Extracted:
    """Email, WhatsApp, calendar words (give it the text with "Correos" the company taken
    out: ``without_companies``)."""
    return Match(sources=frozenset(s for s, v in SOURCE_WORDS.items() if _has(low, v))), low


def without_companies(text: str) -> str:
    """The text without "Correos" the company (capitalised, not at the start)."""
    return AMBIGUOUS_SOURCES.sub(" ", text)


def at_start_lower(text: str) -> str:
    """ "Correos de mi jefa …": at the start of a line, said of whose they are, the word is
    the source, not the company; alone ("Correios: não") it is the company, the narrower
    reading (a line is never broadened to every e-mail)."""
    m = re.match(r"^(\s*)(Correos|Correios)\b(?=\s+(?:de|da|do|das|dos|del|di)\b)", text)
    return f"{m.group(1)}{m.group(2).lower()}{text[m.end() :]}" if m else text


def event_kinds(low: str) -> Extracted:
    """Reminders; invitations and new events."""
    found: set[str] = set()
    if re.search(REMINDERS, low):
        found.add("calendar.reminder")
    if re.search(INVITATIONS, low):
        found.add("calendar.created")
    return Match(event_types=frozenset(found)), low


GROUPS = (
    r"\bgroup (chats?|messages?|chatter)\b|\bgroups?\b|\bgrupos?\b|\bgruppen?\b|"
    r"\bgroupes?\b|\bgrupp[oi]\b|\bgroep(?:en)?\b|\bappgroep(?:en)?\b|\bgroepsapps?\b"
)
DIRECT_CHATS = (
    r"\b(direct|private|one[- ]on[- ]one|1:1) (messages?|chats?)\b|\bmensajes? (directos?|"
    r"privados?)\b|\b(direkt|privat)nachrichten\b|\bmessages? (directs?|prives?)\b|"
    r"\bmensagens? (diretas?|privadas?)\b|\bmessaggi (diretti|privati)\b"
)


def group_or_direct(low: str) -> Extracted:
    """Group chats (True) or direct messages (False); a named chat is settled later."""
    group: bool | None = None
    if re.search(GROUPS, low):
        group = True
    if re.search(DIRECT_CHATS, low):
        group = False
    return Match(group=group), low


MENTION = (
    r"\bmentions? me\b|\bmentioned\b|\bmentioning me\b|@[- ]?mention|\btags? me\b|\btagged\b|"
    r"@'?s me\b|"
    r"@me\b|\bme mencion\w*|\bmencion\w*|\berwahnt\w*|\bme mentionne\w*|\bmentionne\w*|"
    r"\bme marc\w*|\bmarqu\w*|\bmi menzion\w*|\bmenziona\w*|\bmi tagga\w*|"
    r"\b(?:me|mij) noem\w*|\bnoemt\b|\bgenoemd\b|\b(?:me|mij) tag\w*|\bgetagd\b|"
    r"\bme etiquet\w*|\bmich markier\w*|\bmarkiert\b|\bmich tagg?t\b|\bmich verlinkt\b|"
    r"\bm'identifi\w*|\bme tagu\w*"
)


DIRECTLY = (
    r"\bdirect(ly)?\b|\bprivate\b|\bdirecta(mente)?\b|\bdirekt\b|\bdirectement\b|"
    r"\bdireta(mente)?\b|\bdirett(o|amente)\b"
)


def mentions(low: str) -> Extracted:
    """The user is @-mentioned or tagged; "in a direct message or by mentioning me" means
    addressed to the user either way."""
    said = re.search(MENTION, low)
    if not said:
        return Match(), low
    if re.search(DIRECTLY, low):
        return Match(addressed=True), low
    return Match(mentions_me=True), low


ADDED_TODAY = r"\b(added|created|scheduled|booked|new) today\b"


def added_today(low: str) -> Extracted:
    """Calendar events added today."""
    said = re.search(ADDED_TODAY, low)
    return Match(added_today=bool(said)), low


MOVED = (
    r"\b(rescheduled|moved|postponed|time changes?|(?:se )?cambian? de (?:hora|fecha|dia)|"
    r"se cambian|cambiad[oa]s?|cambios de hora|"
    r"verschoben|verlegt|deplace(e|es|s)?|reporte(e|es|s)?|decale(e|es|s)?|remarcad[oa]s?|"
    r"adiad[oa]s?|spostat[oie]|rinviat[oie])\b"
    rf"|{phrase_pattern('calendar.moved_verbs')}"
)
CANCELLED = (
    r"\b(cancel+ed|cancel+ations?|se cancelan|cancelad[oa]s?|anulad[oa]s?|abgesagt|storniert|"
    r"annule(e|es|s)?|annulations?|annullat[oie]|cancellat[oie])\b"
    rf"|{phrase_pattern('calendar.cancelled_verbs')}"
)
CHANGES = (
    r"\b(changes?|changed|cambios?|anderungen?|changements?|mudancas?|alterad[oa]s?|modifiche)\b"
)


MEETING_WORDS = (
    r"\b(calendar|meetings?|events?|appointments?|reunion(?:es|s)?|citas?|eventos?|termine?|"
    r"besprechung(?:en)?|rendez-vous|rdv|evenements?|reuniao|reunioes|compromissos?|"
    r"riunion[ei]|appuntament[oi]|event[oi]|vergadering(?:en)?|afspra(?:ak|ken))\b"
)
"""The words for any meeting or appointment, which name no event of their own."""


def _qualifies(found: Match, low: str) -> bool:
    """ "check-in reminders", "webinar invitations": with a kind named and no meeting, a
    calendar word only qualifies that kind of e-mail."""
    return bool(found.kinds - {"booking"}) and not re.search(MEETING_WORDS, low)


def calendar_changes(low: str, found: Match = NOTHING) -> Extracted:
    """Cancelled or moved events; cancelled alone is also a kind of event. Not when the
    clause is about another kind of thing ("flight cancellations"); "changes" only when it
    is about the calendar."""
    calendar = "calendar" in found.sources and not _qualifies(found, low)
    if found.kinds and not calendar:
        return Match(), low
    cancelled = bool(re.search(CANCELLED, low))
    moved = bool(re.search(MOVED, low)) or (calendar and bool(re.search(CHANGES, low)))
    kinds = frozenset({"calendar.cancelled"}) if cancelled and not moved else frozenset()
    if moved and not cancelled and not re.search(CHANGES, low):  # "moved", not "changed"
        kinds = frozenset({"calendar.updated"})  # a moved meeting is not a cancelled one
    return Match(calendar_change=cancelled or moved, event_types=kinds), low


EVENT_NOUN = phrase_pattern("calendar.event_nouns")
_EVENT_WORD = r"[^\W\d][\w'’-]*"
_OF = r"(?:de|da|do|di|du|des|del|della|dello|dei|d'|of|von|van|vom|der|zum|zur)"
"""The words for "of" a place or an event is said with ("la clase de yoga", "escola da Bia")."""
_EVENT_OF = rf"{_OF}\s+(?:(?:la|le|las|los|el|il|lo|l'|the|o|a|os|as|de|het)\s+)?"
EVENT_AFTER = re.compile(
    rf"(?P<noun>{EVENT_NOUN})\s+(?:{_EVENT_OF})?(?P<what>{_EVENT_WORD}(?:\s+{_EVENT_WORD}){{0,2}})"
)
EVENT_BEFORE = re.compile(rf"(?P<what>{_EVENT_WORD}(?:\s+{_EVENT_WORD})?)\s+(?P<noun>{EVENT_NOUN})")


def _event_title_words(said: str, *, first: bool) -> list[str]:
    """The words of what an event is called, up to the first word that says something else
    (a function word, a weekday, a word for the change itself)."""
    out: list[str] = []
    seq = said.split()
    for w in seq if first else reversed(seq):
        low = fold(w)
        if (
            low in FUNCTION_WORDS
            or re.split(r"['’]", low)[-1] in FUNCTION_WORDS  # "qu'une réunion"
            or low in STOP
            or low in weekdays()
            or re.fullmatch(rf"{CANCELLED}|{MOVED}|{RECURRING}|{EVENT_NOUN}|{MEETING_WORDS}", low)
            or re.fullmatch(SOURCE_PATTERN, low)
        ):
            break
        out.append(w)
    return out if first else out[::-1]


def named_event(text: str) -> Extracted:
    """ "cuando cancelen las clases de pilates", "when the yoga class is moved", "la lezione
    di inglese": with a change to an event said, the event is named by what it is called,
    and the words of its name are looked for in the event's title."""
    low, origin = fold_with_map(text)
    if not (re.search(CANCELLED, low) or re.search(MOVED, low)):
        return Match(), text
    bare: re.Match[str] | None = None
    for pattern, first in ((EVENT_AFTER, True), (EVENT_BEFORE, False)):
        for m in pattern.finditer(low):
            if first and re.match(rf"\s*(?:{MOVED}|{CANCELLED})", low[m.end("noun") :]):
                continue  # "cambian una reunión de hora": what follows is the change
            title = _event_title_words(m.group("what"), first=first)
            if not title:
                if bare is None and not re.fullmatch(MEETING_WORDS, m.group("noun")):
                    bare = m
                continue
            said = " ".join(title)
            what = m.start("what")
            if first:  # "clases de pilates": the noun, then the name's first words
                a, b = m.start("noun"), what + len(said)
            else:  # "the yoga class": the name's last words, then the noun
                a, b = what + len(m.group("what")) - len(said), m.end()
            start, end = origin[a], origin[b - 1] + 1
            found = Match(topics=tuple(title), topic_min=len(title), calendar_change=True)
            return found, text[:start] + " " + text[end:]
    if bare is not None:  # "les annulations de cours": the kind of event is its name
        start, end = origin[bare.start("noun")], origin[bare.end("noun") - 1] + 1
        return Match(topics=(text[start:end],), topic_min=1, calendar_change=True), (
            text[:start] + " " + text[end:]
        )
    return Match(), text


RECURRING = (
    r"\b(recurring|repeating|daily|weekly|regular|recurrentes?|semanales?|diari[oa]s?|"
    r"wiederkehrende\w*|wochentliche\w*|recurrent(e|es|s)?|hebdomadaires?|recorrentes?|"
    r"semanais|ricorrent[ei]|settimanali)\b"
)


def recurring(low: str) -> Extracted:
    """Recurring events; kept by ``settle`` only when the clause is about the calendar."""
    said = re.search(RECURRING, low)
    return Match(recurring=True if said else None), low


IN_PERSON = (
    r"\b(in[- ]person|physical (?:address|location)|physical(ly)?|on[- ]site|face[- ]to[- ]face|"
    r"real (?:location|address)|a location|"
    r"presencial(es)?|en persona|vor ort|en personne|sur place|di persona)\b"
)
VIDEO = (
    r"\b(video|zoom|google meet|teams|online|virtual(es)?|videollamadas?|videoconferencias?|"
    r"visio(conference)?s?|videochiamat[ae])\b"
)


def place(low: str) -> Extracted:
    """In-person events, or video calls (in person wins when both are said). With another
    kind named and no meeting ("online booking confirmations") ``settle`` drops them."""
    in_person = re.search(IN_PERSON, low)
    video = re.search(VIDEO, low)
    if in_person:
        return Match(in_person=True), low
    return Match(video=True if video else None), low


ANYTHING = phrase_pattern("words.anything")
"""Any message at all: "anything", "everything", "nothing at all", "gar nichts"."""


def anything(low: str) -> Extracted:
    """ "Anything", "everything", "all messages"."""
    return Match(anything=bool(re.search(ANYTHING, low))), low


PEOPLE_UNIT = (
    r"(?:people|persons|guests|personnes|couverts|personas|comensales|personen|gaste|pessoas|"
    r"persone|coperti|pax)"
)


PARTY_SIZES: tuple[tuple[str, str, int], ...] = (
    (
        rf"(\d+)\s*\+?\s*{PEOPLE_UNIT}?\s*(?:or more|ou plus|o mas|oder mehr|ou mais|o piu|"
        rf"and up|\+)",
        "min_people",
        0,
    ),
    (rf"(\d+)\+\s*{PEOPLE_UNIT}", "min_people", 0),
    (
        rf"(?:at least|au moins|al menos|mindestens|pelo menos|almeno)\s+(\d+)\s*{PEOPLE_UNIT}",
        "min_people",
        0,
    ),
    (
        rf"(?:more than|plus de|mas de|mehr als|mais de|piu di|over)\s+(\d+)\s*{PEOPLE_UNIT}",
        "min_people",
        1,
    ),
    (
        rf"(?:fewer than|less than|under|moins de|menos de|weniger als|meno di)\s+(\d+)\s*"
        rf"{PEOPLE_UNIT}",
        "max_people",
        -1,
    ),
)
"""How a threshold on the number of people is said: (pattern, the field it sets, what to
add to the number said: "more than 8" is at least 9)."""


def party_size(low: str) -> Extracted:
    """ "for 8 people or more", "pour moins de 8 personnes": a threshold on how many."""
    for pattern, name, shift in PARTY_SIZES:
        m = re.search(pattern, low)
        if m:
            count = int(m.group(1)) + shift
            found = Match(min_people=count) if name == "min_people" else Match(max_people=count)
            return found, low
    return Match(), low


MY = r"\b(?:my|mi|mis|meine?[nr]?|ma|mon|mes|minha|minhas|meu|meus|mia|mio|miei|mie|mijn)\s+"
_FROM_A_PARENT = r"\b(?:from|de|da|do|von|vom|van|di|dalla)\s+"
FAMILY = {
    role: rf"(?:^\s*|{MY}|{_FROM_A_PARENT})(?:{'|'.join(said)})\b"
    for role, said in FAMILY_ROLES.items()
}
"""A parent: "my mother", "mi madre", the word alone at the start of a line ("mum, even
if …"), or after "from" ("Cualquier cosa de mamá", "Alles von Mama")."""


PARENTS = rf"(?:{MY}|{_FROM_A_PARENT})(?:{'|'.join(PARENT_WORDS)})\b"
"""Both parents: "my parents", "os meus pais", "von meinen Eltern"."""


def family(low: str) -> Extracted:
    """ "my mother", "mi madre": a parent, saved in the phone as Mum, Mamá, Mamma...; "my
    parents": either of them."""
    roles = tuple(role for role, pattern in FAMILY.items() if re.search(pattern, low))
    if re.search(PARENTS, low):
        roles = tuple(dict.fromkeys((*roles, *FAMILY_ROLES)))
    return Match(roles=roles), low


KEYWORDS: tuple[Callable[[str], Extracted], ...] = (
    sources,
    event_kinds,
    group_or_direct,
    mentions,
    added_today,
    recurring,
    place,
    anything,
    party_size,
    family,
)


# 4. phrases ---------------------------------------------------------------------------------


def subject_in_capitals(text: str) -> Extracted:
    """ "with URGENT in the subject"."""
    m = re.search(r"\bwith ([A-Z][A-Z0-9 !-]{1,40}?) in the (?:subject|title)", text)
    if not m:
        return Match(), text
    return Match(subject_phrases=(m.group(1).strip(),)), text.replace(m.group(1), " ")


GROUP_WORD = r"(?:group|grupo|gruppe|groupe|gruppo|groep|appgroep|groepsapp|groepschat)"
_NAME_WORD = r"[A-ZÀ-Þ0-9][\w'’&.-]*"
_NAME_JOIN = r"(?:de|del|da|do|di|du|des|la|le|von|van|der|dos|das|e|y|&)"
GROUP_BEFORE = re.compile(
    rf"\b(?:in|from|the)\s+(?:the\s+)?({_NAME_WORD}(?:\s+{_NAME_WORD})*)"
    rf"\s+(?:whatsapp\s+)?(?:group|chat)\b"
)
"""A chat named before the word "group": "in the Book Club group", "mute the Family chat"."""
GROUP_AFTER = re.compile(
    rf"\b{GROUP_WORD}\s+(?:(?:de\s+)?whatsapp\s+)?"
    rf"({_NAME_WORD}(?:\s+(?:{_NAME_JOIN}\s+)?{_NAME_WORD})*)",
    re.I,
)
"""A chat named after the word for a group: "el grupo Familia Ruiz", "le groupe Parents CM1"."""
GROUP_ASIDE = re.compile(
    rf"(?i:\b{GROUP_WORD}\b)[^().;:]{{0,40}}?"
    rf"\(\s*[\"“”„«»']?({_NAME_WORD}(?:\s+(?:{_NAME_JOIN}\s+)?{_NAME_WORD})*)[\"“”„«»']?\s*\)"
)
"""A chat named in an aside after the word for a group: "the family group (Familia Ruiz)",
"el grupo de la familia (Familia Ruiz)"."""


def named_chat(text: str) -> Extracted:
    """ "in the Book Club group", "in the Family WhatsApp chat", "silencia el grupo Familia
    Ruiz": a chat named in capitals beside the word for a group."""
    for pattern in (GROUP_BEFORE, GROUP_AFTER):
        for m in pattern.finditer(text):
            name = re.sub(r"\s+whatsapp$", "", m.group(1).strip(), flags=re.I)
            if not name[:1].isupper() or _group_word_alone(name):
                continue
            return Match(chats=(name,)), text.replace(name, " ")
    return Match(), text


def chat_aside(text: str) -> Extracted:
    """ "the family group (Familia Ruiz)": the aside after the word for a group is the chat's
    name, read before asides are set apart."""
    m = GROUP_ASIDE.search(text)
    if m is None or _group_word_alone(m.group(1)):
        return Match(), text
    return Match(chats=(m.group(1).strip(),)), text[: m.start(1) - 1] + " " + text[m.end() :]


def _group_word_alone(name: str) -> bool:
    """A "name" that is only words that carry nothing ("the Other group", "the WhatsApp
    group": WhatsApp is where the group is, not its name)."""
    return all(
        fold(w) in STOP or fold(w) in FUNCTION_WORDS or fold(w) == "whatsapp" for w in name.split()
    )


def _about_match(text: str) -> tuple[str, str, bool]:
    """The clause's "about" phrase, the whole of what says it ("mentioning a fee"), as
    written, and whether people it lists are whom the line means; ("", "", False) when
    there is none."""
    low, origin = fold_with_map(text)
    found = [(m, people) for pattern, people in ABOUT if (m := pattern.search(low))]
    if not found:
        return "", "", False
    m, people = min(found, key=lambda pair: pair[0].start())

    def written(a: int, b: int) -> str:
        return text[origin[a] : origin[b - 1] + 1] if b > a else ""

    return written(*m.span("topic")), written(*m.span()), people


def about_phrase(text: str) -> str:
    """What follows "about" (or "regarding", "mentioning", ...) up to the next clause, or
    what a frame holds ("wenn es um X geht"), or ""."""
    return _about_match(text)[0]


def about(text: str) -> Extracted:
    """ "about X": a list of people ("about Mãe, Pai or the school") is names and stays in
    the text; anything else is topics and is taken out."""
    phrase, said, of_people = _about_match(text)
    if not phrase.strip():
        return Match(), text
    channels = {w for said in SOURCE_WORDS.values() for w in said}
    if all(w in channels or w in STOP for w in words(phrase)):
        return Match(), text  # "escriba por WhatsApp": the channel it writes on, no topic
    # "about Mãe or Pai" names whom the line means; "from the school about our daughter
    # Fenna" names who sends, and Fenna is what it is about
    sender_named = bool(_who_segments(text.replace(said, " ")))
    people = name_list(phrase) if of_people and not sender_named else []
    other = [
        w
        for w in words(phrase)
        if w not in STOP and w not in ROLE_WORDS and not any(w in words(n) for n in people)
    ]
    if people and not other:
        return Match(names=tuple(people)), text
    as_kinds, left = kind_words(phrase)
    if as_kinds.kinds and len(_topic_words(left)) * 2 <= len(_topic_words(phrase)):
        # "sobre paquetes", "about unusual transactions or failed payments": kinds
        return Match(kinds=as_kinds.kinds), text.replace(said, " ")
    # every word of the phrase is its topic, a kind word too ("the Serena legal matter")
    topics = tuple(
        w
        for w in words(phrase)
        if w not in STOP and w not in FUNCTION_WORDS and w not in NUMBER_WORDS and len(w) > 2
    )
    named = [w for w in topics if w not in identity_words()]
    if named and len(named) < len(topics) and name_list(phrase):
        topics = tuple(named)  # "our daughter Fenna": the message says Fenna
    listed = "," in phrase or bool(set(words(phrase)) & _or_words(text))
    found = Match(topics=topics, topic_min=1 if listed else 2) if topics else Match()
    return found, text.replace(said, " ")


def _or_words(text: str) -> frozenset[str]:
    """The words that join alternatives in the language ``text`` is in, with English's; in
    text of no clear language, every language's that is no other language's function word
    (Dutch "of" is English "of")."""
    code = language(text)
    if code is not None:
        return frozenset({*_joining(code), *_joining("en")})
    every = {w for c in LANGUAGES for w in _joining(c)}
    return frozenset(
        w
        for w in every
        if not any(w in language_data(c).function_words and w not in _joining(c) for c in LANGUAGES)
    )


def _joining(code: str) -> tuple[str, ...]:
    return language_data(code).phrases["words.or"]


def topic_at_head(text: str, found: Match = NOTHING) -> Extracted:
    """ "Payslips from ...": the words before "from" are a topic, and one of them is enough.
    Only when no topic or kind was found yet."""
    head = re.match(r"^\s*(?:the\s+|any\s+|all\s+)?([a-z][a-z ]{2,40}?)\s+from\b", text, re.I)
    if found.topics or found.kinds or found.sender_kinds or not head:
        return Match(), text
    topics = _topic_words(head.group(1), keep_roles=False)
    return (Match(topics=topics, topic_min=1) if topics else Match()), text


def topic_of_events(low: str, found: Match = NOTHING) -> Extracted:
    """ "Reminders for the dentist", "meetings called Sprint Planning": the words after the
    connector are a topic. Reads folded text; only when no topic was found yet."""
    connector = r"\b(?:for|about|of|called|titled)\b"
    events = r"\b(reminders?|meetings?|events?|invitations?|invites?)\s+"
    if found.topics or not re.search(events + connector, low):
        return Match(), low
    tail = re.split(connector, low, maxsplit=1)[1]
    return Match(topics=_topic_words(tail, keep_roles=False)), low


START_VERBS = (
    r"\b(start|starts|starting|begin|begins|happen|happens|in|within|empiez\w*|comienz\w*|"
    r"beginn\w*|commenc\w*|comec\w*|inizi\w*|en|dans|nas|entro)\b"
)


def starts_within(text: str, low: str) -> Extracted:
    """ "starts within 2 hours", "in the next 30 minutes": ``text`` gives the duration, and the
    whole clause (folded, ``low``) must say it is about a start. Leaves the text as it is:
    the words around the duration are still read for names."""
    m = DURATION.search(fold(text))
    if not m or not re.search(START_VERBS, low):
        return Match(), text
    count, unit = m.group(1).lower(), m.group(2).lower()
    n = NUMBER_WORDS.get(count) or min(int(count[:9]), MAX_COUNT)  # no overflow, however long
    return Match(starts_within=min(n * _unit(unit), MAX_WITHIN)), text


FAR = re.compile(
    r"\b(?:(?:more than|over|at least|later than|further than)\s+(\w+)\s+" + UNITS + r"\s+"
    r"(?:away|ahead|out|from now|later|in advance|off)"
    r"|(?:starting|that start|in)\s+more than\s+(\w+)\s+" + UNITS + r""
    r"|a mas de\s+(\w+)\s+" + UNITS + r""
    r"|mehr als\s+(\w+)\s+" + UNITS + r"\s+(?:entfernt|im voraus|spater)"
    r"|(?:a|dans) plus de\s+(\w+)\s+" + UNITS + r""
    r"|(?:a|daqui a) mais de\s+(\w+)\s+" + UNITS + r""
    r"|(?:a|tra) piu di\s+(\w+)\s+" + UNITS + r")",
    re.I,
)


def far_ahead(text: str) -> Extracted:
    """ "invites for events more than a week away": events that start later than that."""
    m = FAR.search(fold(text))
    if not m:
        return Match(), text
    groups = [g for g in m.groups() if g]
    count, unit = groups[0].lower(), groups[1].lower()
    n = NUMBER_WORDS.get(count) or (min(int(count[:9]), MAX_COUNT) if count.isdigit() else None)
    if n is None:
        return Match(), text
    return Match(starts_after=min(n * _unit(unit), MAX_WITHIN)), text[: m.start()] + " " + text[
        m.end() :
    ]


NAMED_THING = re.compile(
    r"\b(?:for|on|in|about)\s+(?:the|our|my)\s+(?P<name>[\w][\w.-]*[\w])\s+"
    r"(?:service|project|system|repo|repository|app|server|cluster|environment|site|product|"
    r"branch|pipeline)\b",
    re.I,
)


def named_thing(text: str) -> Extracted:
    """ "alerts for the payments-api service", "builds on our atlas repo": the name of what
    they are about, which the message names too."""
    m = NAMED_THING.search(text)
    if m is None or fold(m.group("name")) in STOP:
        return Match(), text
    said = words(m.group("name"))
    found = Match(topics=said, topic_min=len(said))
    return found, text[: m.start()] + " " + text[m.end() :]


def amount_limit(text: str) -> Extracted:
    """ "invoices over 300 euros", "solo si el importe pasa de trescientos euros": messages
    that name an amount over (or under) it."""
    low, origin = fold_with_map(text)
    limit = limit_in(low)
    if limit is None:
        return Match(), text
    start, end = origin[limit.span[0]], origin[limit.span[1] - 1] + 1
    found = Match(min_amount=limit.amount) if limit.over else Match(max_amount=limit.amount)
    return found, text[:start] + " " + text[end:]


def _unit(unit: str) -> timedelta:
    if unit.startswith("m"):
        return timedelta(minutes=1)
    if unit.startswith(("w", "sem", "sett", "woch")):
        return timedelta(weeks=1)
    if unit.startswith(("h", "s", "o")):  # hours, horas/heures, stunden, ore
        return timedelta(hours=1)
    return timedelta(days=1)


_A_NOTICE_BEFORE = re.compile(
    rf"(?<![\w'-])(?:{'|'.join(re.escape(w) for w in phrases('words.messages') if ' ' not in w)})"
    r"\s*$"
)
"""A word for a message right before "de" ("avis de livraison"): what it is a notice of."""


def _who_spans(text: str) -> list[tuple[int, int]]:
    """Where a clause says who sends: what follows "from", "de", "von", ... up to the end of
    the clause."""
    spans = []
    for m in SENDER_PREP.finditer(text):
        of = re.match(r"\s*(?:de|del|di|da|do|des|du|of)\s+[a-zà-ÿ]", text[m.start() :])
        before = text[: m.start()].split()[-1:]
        kind_before = bool(before) and is_kind_word(before[0].strip(",;"), fold)
        if of and (kind_before or _A_NOTICE_BEFORE.search(fold(text[: m.start()]))):
            continue  # "avis de livraison", "avisos de entrega": a notice of, not from
        rest = text[m.end() :]
        end = re.search(
            r"[.;:!?—–]|,\s+(?=[a-zà-ÿ]+\s+(?:de|di|da|do|of)\s)|"
            r"\s(?:that|which|who|que|qui|die|che|about|sobre|zu|zum|zur|uber|over|with|"
            r"mit|con|avec|com|for|fur|pour|para|per|a propos|asking|writing|wanting)\s",
            fold(rest),
        )
        spans.append((m.end(), m.end() + (end.start() if end else len(rest))))
    return spans


def _who_segments(text: str) -> list[str]:
    return [text[a:b] for a, b in _who_spans(text)]


BRAND = re.compile(r"^(?:[A-Z0-9]{2,}|\w*[a-z]\w*[A-Z]\w*|\S*\d\S*)$")
TITLE_RUN = re.compile(
    r"(?<![\w'’])[A-ZÀ-Þ][\w'’.&-]*(?:\s+(?:(?:de|del|da|do|di|la|le|von|van|der|&)\s+)?"
    r"[A-ZÀ-Þ][\w'’.&-]*)+"
)


def _clean(name: str) -> str:
    """ "l'URSSAF" → "URSSAF", "d'Anna" → "Anna"."""
    return re.sub(r"^(?:[ldLD]['’])", "", name).strip(" .")


def _title_runs(text: str) -> list[str]:
    """Runs of two or more capitalised words, kept whole even when a word alone would be
    a kind word: "Seguridad Social", "Google Drive"."""
    found = []
    for m in TITLE_RUN.finditer(text):
        before = text[: m.start()].rstrip()
        tokens = m.group(0).split()
        if not before or before[-1] in ":;.!?(":
            continue  # the start of a clause is capitalised anyway
        if all(is_kind_word(t, fold) or fold(t) in STOP for t in tokens):
            continue
        found.append(m.group(0))
    return found


def names(
    text: str,
    found: Match = NOTHING,
    topic_phrase: str = "",
    *,
    german: bool = False,
    introduced: frozenset[str] = frozenset(),
    casual: bool = False,
    said: str = "",
) -> Extracted:
    """Capitalised names left in the text, but not a subject phrase already found nor, when
    the clause has topics, anything inside its topic phrase (``topic_phrase``).

    When the clause names kinds of events, a name says who sends them only when it follows
    "from" (or "de", "von", ...): "build failures from GitHub". Other names are examples of
    the kinds ("reviews: Google, Tripadvisor"), and so are names followed by "or any other"
    something the reader does not know. In German, where every noun is capitalised, a
    single capitalised word is a name only where a sender is named, when it looks like a
    brand (DHL, TheFork), when an aside says who it is (``introduced``: "Miriam (meine
    Frau)"), or when it is all the clause says ("außer Miriam"). In a line written all in
    lower case (``casual``), the words after "from" that the reader does not know are a
    name ("stop notifying me about anything from harbour & pine")."""
    subjects = {fold(p) for p in found.subject_phrases}
    topic = fold(topic_phrase) if found.topics else None
    runs = [] if german else _title_runs(text)
    listed = runs + [
        n
        for n in name_list(text)
        if not any(fold(n) in fold(r).split() or fold(n) == fold(r) for r in runs)
    ]
    kept = [
        n
        for n in listed
        if fold(n) not in subjects and not (topic is not None and fold(n) in topic)
    ]
    kept += [n for n in _listed_beside(text, kept) if n not in kept]
    said_else = found.kinds or found.sender_kinds or found.topics
    if casual:
        kept += [n for n in _lower_case_senders(text) if n not in kept]
        common = set(words(text)) & _INDEFINITE  # "tell me a joke": a noun, not a name
        alone = None if said_else or kept or common else _only_word(text)
        written = [w.strip(".,;:!?") for w in text.split()]
        kept += [w for w in written if alone and _unknown(alone) and fold(w) == alone][:1]
    who: list[str] = []
    for segment in _who_segments(text):
        if OTHER_ALIKE.search(segment) and not found.sender_kinds:
            continue
        in_segment = fold(segment)
        who += [n for n in kept if fold(n) in in_segment]
    if german:
        alone = None if said_else else _only_word(text)
        kept = [
            n
            for n in kept
            if n in who or BRAND.match(n) or " " in n or fold(n) in introduced or fold(n) == alone
        ]
    kept = [n for n in kept if n in who or BRAND.match(n) or not _common_nouns(n, german=german)]
    before_kind = [n for n in kept if n not in who and _before_a_kind(n, said or text)]
    who += before_kind + _listed_before(kept, before_kind, said or text)
    listed_as_options = set(words(said or text)) & _or_words(said or text)
    if (
        "," not in (said or text)
        and not listed_as_options
        and any(_after_a_kind(n, said or text) for n in kept)
    ):
        # "Les confirmations de commande Vinted", "conferme di prenotazione Trenitalia e
        # Italo": names said right after the kind, with no list around them, send it
        who += [n for n in kept if n not in who]
    if found.kinds:
        examples = tuple(_clean(n) for n in kept if n not in who)
        named = tuple(_clean(n) for n in kept if n in who)
    else:
        examples, named = (), tuple(_clean(n) for n in kept)
    for n in kept:
        pattern = r"\s+".join(re.escape(t) for t in n.split())
        text = re.sub(rf"(?<![\w'’&-]){pattern}(?![\w'’&-])", " ", text)
    return Match(names=named, examples=examples), text


def _before_a_kind(name: str, text: str) -> bool:
    """A name said right before a kind of message qualifies it as its sender ("Xero
    invoices", "Zillow listings", "LinkedIn notifications"): what it sends, not an example."""
    pattern = r"\s+".join(re.escape(t) for t in name.split())
    m = re.search(rf"(?<![\w'’&(-]){pattern}\s+([\w'’-]+)", text)
    return m is not None and is_kind_word(m.group(1), fold)


def confirmations(text: str) -> Extracted:
    """ "ShowingTime confirmations: no": a confirmation no kind word took ("booking
    confirmations" is a booking) is what the message must say, in any of the forms its
    language says it with; the sender's other messages are not meant."""
    low, origin = fold_with_map(text)
    said = re.search(phrase_pattern("words.confirmations"), low)
    if said is None:
        return Match(), text
    forms = tuple(
        dict.fromkeys(
            form
            for code in LANGUAGES
            if said.group(0) in (own := language_data(code).phrases["words.confirmations"])
            for form in own
        )
    )
    start, end = origin[said.start()], origin[said.end() - 1] + 1
    return Match(topics=forms, topic_min=1), text[:start] + " " + text[end:]


def _listed_before(kept: list[str], senders: list[str], text: str) -> list[str]:
    """Names listed with a sender said before its kind send it too: "new Google or Yelp
    reviews", "Jira and Linear issue updates"."""
    found: list[str] = []
    changed = bool(senders)
    while changed:
        changed = False
        for n in kept:
            if n in senders or n in found:
                continue
            for s in [*senders, *found]:
                said = r"\s+".join(re.escape(w) for w in n.split())
                other = r"\s+".join(re.escape(w) for w in s.split())
                if re.search(rf"{said}\s*(?:,\s*|\s+(?:{JOIN_WORDS})\s+){other}", text):
                    found.append(n)
                    changed = True
                    break
    return found


def _after_a_kind(name: str, text: str) -> bool:
    """A name said right after a kind of message ("confirmations de commande Vinted")."""
    pattern = r"\s+".join(re.escape(t) for t in name.split())
    m = re.search(rf"(?<![\w'’&-]){pattern}(?![\w'’&-])", text)
    if m is None:
        return False
    before = fold(text[: m.start()]).rstrip()
    return any(k.end() == len(before) for e in KIND_WORDS for k in e.pattern.finditer(before))


def _common_nouns(name: str, *, german: bool) -> bool:
    """Every word of a "name" is a function word or ends as a German common noun does
    ("Diese Lesebestätigungen", "nur Erwähnungen"): nobody's name. Outside a German line
    only a long word counts ("Jung" is a surname)."""
    endings = tuple(phrases("words.noun_endings"))
    said = [fold(w) for w in name.split()]
    least = 0 if german else 7
    return bool(endings) and all(
        w in FUNCTION_WORDS or (w.endswith(endings) and len(w) >= least) for w in said
    )


def _unknown(word: str) -> bool:
    """A folded word the reader has no meaning for (so, written alone, a name): not a
    pronoun, which stands for a name said elsewhere."""
    known = STOP | VOCAB | ROLE_WORDS | FUNCTION_WORDS | identity_words() | _PRONOUNS
    return word.isalpha() and word not in known and not is_kind_word(word, fold)


def _lower_case_senders(text: str) -> list[str]:
    """The words that end a "from …" segment and that the reader does not know, as one
    name each segment: "from linkedin", "de harbour & pine"."""
    out: list[str] = []
    for segment in _who_segments(text):
        tokens = segment.split()
        run: list[str] = []
        for token in reversed(tokens):
            bare = fold(token.strip(".,;:!?()\"'“”«»"))
            if token == "&" and run:
                run.insert(0, token)
                continue
            if not _unknown(bare):
                break
            run.insert(0, token.strip(".,;:!?()\"'“”«»"))
        while run and run[0] == "&":
            run.pop(0)
        if run:
            out.append(" ".join(run))
    return out


def _introduced(whole: str) -> frozenset[str]:
    """Words an aside right after them says who they are, folded: "Miriam (meine Frau)",
    "Albers (our landlord)": the aside has a possessive or a word for a role."""
    return frozenset(fold(w) for w in introduced_names(whole))


def introduced_names(whole: str) -> list[str]:
    """Names an aside right after them says who they are, as written, in lower case too:
    "Miriam (meine Frau)", "a vera (ex-colega)", "davide (il mio ex)"."""
    said: list[str] = []
    for m in re.finditer(r"([^\W\d][\w'’-]*)\s*\(([^()]*)\)", whole):
        inner = set(words(m.group(2)))
        if inner & (_POSSESSIVES | ROLE_WORDS | identity_words()):
            said.append(m.group(1))
    return said


_POSSESSIVES = frozenset(phrases("definitions.possessives"))
_INDEFINITE = frozenset(phrases("words.indefinite"))
_PRONOUNS = frozenset(phrases("words.pronouns"))


def _only_word(text: str) -> str | None:
    """The clause's one word that carries something, folded, when it has only one."""
    content = [w for w in words(text) if w not in FUNCTION_WORDS and w not in STOP]
    return content[0] if len(content) == 1 else None


JOIN_WORDS = r"or|and|nor|y|o|u|e|ni|nem|und|oder|et|ou|en|of|pis"
"""Words that join the items of a list in the supported languages ("Ana and Bea", "X o Y")."""
LIST_JOIN = r"\s*(?:,|\s(?:or|and|y|o|e|und|oder|et|ou|ni|nor|pis))\s+"


def _listed_beside(text: str, found: list[str]) -> list[str]:
    """A brand written in lower case in a list beside names: "Emirates or flydubai"."""
    out: list[str] = []
    for n in found:
        name = re.escape(n)
        for pattern in (
            rf"{name}{LIST_JOIN}([a-z][\w&'-]{{2,}})\b",
            rf"\b([a-z][\w&'-]{{2,}}){LIST_JOIN}{name}",
        ):
            for m in re.finditer(pattern, text):
                w = m.group(1)
                low = fold(w)
                known = STOP | VOCAB | ROLE_WORDS | function_words() | identity_words() | _PRONOUNS
                if low in known or low.rstrip("s") in known or is_kind_word(w, fold):
                    continue
                if nearest(low) is not None:
                    continue  # "newsletters or promotons": a typo, not a brand
                out.append(w)
    return out


def aside_names(
    notes: tuple[str, ...], found: Match, *, quoted: bool, casual: bool = False
) -> Match:
    """Names in asides: a list of examples when the clause names a category or no one else
    ("Newsletters (Substack, Morning Brew, etc.)"), a single name standing for what precedes
    it ("the research office (ARIC)"), and "saved as X" when nothing is quoted. In a line
    written all in lower case (``casual``), the names in a list are lower case too."""
    found_names: list[str] = []
    examples: list[str] = []
    for inner in notes:
        named_else = found.names or found_names or found.chats or found.domains or found.addresses
        listed = name_list(inner)
        if casual and example_list(inner, casual=True):
            listed = [p.strip() for p in re.split(r",|\bor\b|\band\b|\betc\b", inner) if p.strip()]
            listed = [p for p in listed if len(p.split()) <= 3 and fold(p) not in STOP]
        if (example_list(inner) or casual) and (found.kinds or found.sender_kinds):
            examples += listed
        elif ((example_list(inner) or (casual and listed)) and not named_else) or (
            len(listed) == 1 and fold(listed[0]) == fold(inner.strip())
        ):
            found_names += listed
        saved = re.search(r"saved as\s+(\S+)", inner, re.I)
        if saved and not quoted:
            found_names.append(saved.group(1).strip(".,'\""))
    return Match(names=tuple(found_names), examples=tuple(examples))


def topic_context(notes: tuple[str, ...], found: Match) -> Match:
    """ "anything about the wedding (Lucía and I get married in Toledo)": the names said
    about a topic are words of that topic too, in any language, and one is enough."""
    if not found.topics:
        return Match()
    said = [
        w
        for inner in notes
        if not example_list(inner)
        for n in name_list(inner)
        for w in words(n)
        if len(w) > 2
    ]
    return Match(topics=tuple(said), topic_min=1) if said else Match()


_ALSO = r"(?:also|too|as well|even|anche|pure|auch|aussi|meme|tambien|incluso|tambem|ate|ook|zelfs)"
_ALSO_ON = re.compile(
    rf"\b{_ALSO}\s+(?:\w+\s+){{0,2}}(?:whatsapp|e-?mails?|correos?|mails?)\b"
    rf"|\b(?:whatsapp|e-?mails?)\s+{_ALSO}\b"
)


def _channels_said(found: Match, low: str) -> set[str]:
    """The channels a clause keeps to. "Chiara, anche su WhatsApp" (also by email): as well,
    not only there; "aiko@…jp or WhatsApp +81 …": both, each by its own address."""
    kept = set(found.sources)
    if _ALSO_ON.search(low):
        kept -= {"whatsapp", "email"}
    if "whatsapp" in kept and found.addresses and not (found.chats or found.group):
        kept.add("email")
    return kept


def settle(found: Match, low: str) -> Match:
    """What the conditions imply, once all are read. A named chat is more than "a group";
    "weekly" is a recurring event only in a clause about the calendar; a named chat, a group
    or a mention is on WhatsApp, a calendar condition on the calendar; a name ending in "bot"
    is the bot kind when the clause speaks of bots; writing "directly" on WhatsApp is a
    direct chat. Duplicates are dropped."""
    names = found.names
    if found.sender_kinds & {"automated", "bot"} and re.search(r"\bbots?\b", low):
        names = tuple(n for n in names if not re.search(r"bot\b", fold(n)))
    group = None if found.group and found.chats else found.group
    sources_said, event_types_said = set(found.sources), found.event_types
    if _qualifies(found, low):  # "check-in reminders", "webinar invitations": e-mails
        sources_said.discard("calendar")
        event_types_said = frozenset()
        found = replace(found, video=None, in_person=None)
    found = replace(found, sources=frozenset(sources_said), event_types=event_types_said)
    calendar = (
        "calendar" in found.sources
        or found.starts_within is not None
        or found.starts_after is not None
    )
    is_recurring = found.recurring if calendar else None
    kept = _channels_said(found, low)
    if found.chats:
        kept.add("whatsapp")
    if calendar or found.added_today or found.calendar_change or is_recurring:
        kept.add("calendar")
    if found.in_person or found.video:
        kept.add("calendar")
    direct = found.direct
    chat_said = re.search(
        r"\b(whatsapp|chats?|groups?|grupos?|gruppen?|groupes?|gruppi|gruppo)\b", low
    )
    if group is False and not chat_said and not found.chats:
        group, direct = None, True  # "direct messages from people": written to the user
    if group is not None or found.mentions_me is not None:
        kept.discard("email")
        kept.add("whatsapp")
    if direct and kept == {"whatsapp"} and group is None and not found.chats:
        group = False
    mentions_me = found.mentions_me
    if found.addressed:
        group, mentions_me = None, None  # "in a direct message or by mentioning me"
    automated, senders = found.automated, found.sender_kinds
    if found.names or found.domains or found.addresses or found.chats or found.roles:
        # "Kessler Maschinenbau, my biggest client", "our lawyers at Brennan & Shaw": who it is
        senders = senders - {"person", "legal"}
    if automated and not found.has_identity():
        automated, senders = None, senders | {"automated"}  # "automated alerts": who sends
    event_types, change = found.event_types, found.calendar_change
    if "calendar.created" in event_types and change:  # "invitations, changes and cancellations"
        event_types = event_types | {"calendar.updated"}
        if re.search(CANCELLED, low):
            event_types = event_types | {"calendar.cancelled"}
        change = False
    return replace(
        found,
        event_types=event_types,
        calendar_change=change,
        sources=frozenset(kept),
        names=tuple(dict.fromkeys(n for n in names if n)),
        examples=tuple(dict.fromkeys(n for n in found.examples if n and n not in names)),
        domains=tuple(dict.fromkeys(found.domains)),
        addresses=tuple(dict.fromkeys(found.addresses)),
        topics=tuple(dict.fromkeys(found.topics)),
        group=group,
        mentions_me=mentions_me,
        automated=automated,
        sender_kinds=senders,
        direct=direct,
        recurring=is_recurring,
    )


def _step(found: Match, extracted: Extracted) -> Extracted:
    more, text = extracted
    return combine(found, more), text


_COMPOUND = re.compile(
    r"(?<![\w-])([A-ZÀ-Þ][\w.&]+)-((?i:(?:e-)?mails?|nachrichten|benachrichtigungen|mitteilungen|"
    r"notificaties|meldingen|berichten|notifications?|notifiche|avisos|notificaciones|"
    r"notificacoes))(?![\w-])"
)
"""A sender's name joined to a word for its messages ("Kleinanzeigen-Mails", "GitHub-
notificaties"): read as the messages from that sender."""


_GROUP_COMPOUND = re.compile(rf"(?i)\b(whatsapp)-({GROUP_WORD_BARE})\b")
"""A word for a group joined to "WhatsApp" ("WhatsApp-Gruppe"): the two words, no name."""


@lru_cache(maxsize=4096)
def parse_fragment(
    raw: str,
    *,
    german: bool | None = None,
    casual: bool | None = None,
    context: Match = NOTHING,
) -> Match:
    """Read one clause of a rule into a Match, running the extractors in the order above.
    Besides the text left, two things are passed on: the folded text after the literals and
    kind phrases (``low``), which keywords, event topics and the start window read whole,
    and the topic phrase, whose words are not taken for senders' names.

    ``german`` and ``casual`` (all lower case) describe the whole line, which a clause alone
    may not show; ``context`` is what the line's label already says (its kinds)."""
    whole = _COMPOUND.sub(
        lambda m: f"{m.group(2).lower()} from {m.group(1)}", at_start_lower(raw.strip())
    )
    whole = _GROUP_COMPOUND.sub(lambda m: f"{m.group(1)} {m.group(2)}", whole)
    german = is_german(whole) if german is None else german
    casual = whole == whole.lower() if casual is None else casual
    found, text = Match(), whole
    for literal in (quoted, recipients, addresses, phones, domains):
        found, text = _step(found, literal(text))
    found, text = _step(found, chat_aside(text))
    notes, text = asides(text)
    found, text = _step(found, far_ahead(text))
    found, text = _step(found, amount_limit(text))
    found, text = _step(found, named_thing(text))
    found, text = _step(found, wanting(text))
    for phrase in (subject_in_capitals, named_chat, named_event):
        found, text = _step(found, phrase(text))
    topic_phrase = about_phrase(text)
    found, text = _step(found, about(text))
    found, text = _step(found, kind_words(text, german))
    if not found.topics:
        found, text = _step(found, confirmations(text))
    low = fold(without_companies(text))
    for keyword in KEYWORDS:
        found, _ = _step(found, keyword(low))
    found, _ = _step(found, calendar_changes(low, combine(found, Match(kinds=context.kinds))))
    found, text = _step(found, topic_at_head(text, found))
    found, _ = _step(found, topic_of_events(low, found))
    found, _ = _step(found, starts_within(text, low))
    introduced = _introduced(whole)
    found, _ = _step(
        found,
        names(
            text,
            found,
            topic_phrase,
            german=german,
            introduced=introduced,
            casual=casual,
            said=whole,
        ),
    )
    if found.names and (owners := _owners(found.names, whole)):
        # "la escuela de Pablo", "Mia's school": whose it is, not who writes
        found = replace(found, names=tuple(n for n in found.names if n not in owners))
    if found.names:
        found = _without_affiliations(found, whole)
    if found.names:
        people = [_owned(without_role(n), whole) for n in found.names]
        if len(people) > 1:
            people = [n for n in people if not _only_roles(n)] or people
        found = replace(found, names=tuple(dict.fromkeys(people)))
    quote = QUOTED.search(whole) is not None
    found = combine(found, topic_context(notes, found))
    found = combine(found, aside_names(notes, found, quoted=quote, casual=casual))
    if found.topics and found.has_identity():
        # "anything from ARIC about my grants": ARIC writes in Italian; the sender says enough
        found = replace(found, topic_language=language(whole))
    left = _without_described(text, whole)
    found = replace(found, unread=unread_words(left, found, whole) + _group_described(whole, found))
    return _kind_of_what_they_send(settle(found, low), whole)


_SENDERS_OF_ANY_KIND = frozenset({"person", "automated"})


def _kind_of_what_they_send(found: Match, whole: str) -> Match:
    """ "Confirmações de encomenda da Worten e do Continente": a kind said with "de" reads
    as a kind of sender, which beside named senders would be one more of them (Worten,
    Continente or any shop). Said with no "or", it is what the named ones send."""
    listed = set(words(whole)) & _or_words(whole)
    if "automated" in found.sender_kinds and found.names and not listed:
        # "los accesos de la app de ING": ING's app, not ING or any automated sender
        found = replace(found, sender_kinds=found.sender_kinds - {"automated"}, automated=True)
    kinds = found.sender_kinds - _SENDERS_OF_ANY_KIND
    if not (kinds and found.names and not found.kinds) or listed:
        return found
    low = fold(whole)
    said_first = min((k.start() for e in KIND_WORDS for k in e.pattern.finditer(low)), default=-1)
    named_at = [low.find(fold(n)) for n in found.names]
    if said_first < 0 or any(0 <= at < said_first for at in named_at):
        return found  # "von Anna und vom Paketdienst": the kind is one more sender
    return replace(found, kinds=kinds, sender_kinds=found.sender_kinds - kinds)


_GROUP_OF = re.compile(
    rf"\b(?P<before>[\w'-]+)\s+(?:whatsapp\s+)?{GROUP_WORD}\b"
    rf"|\b{GROUP_WORD}\s+(?:(?:de|of|des|der|di|do|da|du|del|dei|della)\s+)?"
    r"(?:(?:the|la|los|las|le|les|l'|il|o|os|a|as|die|den)\s+)?(?P<after>[\w'-]+)",
    re.I,
)


def _group_described(whole: str, found: Match) -> tuple[str, ...]:
    """A word for people that says which group, not who sends ("the family group", "el
    grupo de la familia"): with no chat named, it is left unread, so the line is flagged
    rather than read as every group message from a person."""
    if found.chats:
        return ()
    out = []
    for m in _GROUP_OF.finditer(fold(whole)):
        word = m.group("before") or m.group("after")
        if word and is_kind_word(word, fold) and fold(word) not in FUNCTION_WORDS:
            out.append(word)
    return tuple(dict.fromkeys(out))


NAMED_ASIDE = re.compile(r"((?:[^\W\d][\w'’-]*\s+){1,6})\(([^()]*)\)")


def _without_described(left: str, whole: str) -> str:
    """What was left of a clause without the words a name in parentheses stands for: in
    "the research office (ARIC)" ARIC is who "research office" is."""
    for m in NAMED_ASIDE.finditer(whole):
        inner = m.group(2).strip()
        listed = name_list(inner)
        bare = " ".join(re.sub(r"(?<![\w.])\d+(?![\w.])", " ", inner).split())  # "… 1450"
        address = re.fullmatch(r"[\w.+-]*@[\w-]+(?:\.[\w-]+)+", inner)  # "(direction@…)"
        if address or (len(listed) == 1 and fold(listed[0]) in (fold(inner), fold(bare))):
            for w in m.group(1).split():
                left = re.sub(rf"(?<![\w'’-]){re.escape(w)}(?![\w'’-])", " ", left)
    return left


KEYWORD_PATTERNS: tuple[str, ...] = (
    REMINDERS,
    INVITATIONS,
    GROUPS,
    DIRECT_CHATS,
    DIRECTLY,
    MENTION,
    ADDED_TODAY,
    MOVED,
    CANCELLED,
    RECURRING,
    IN_PERSON,
    VIDEO,
    ANYTHING,
    DURATION.pattern,
    *(pattern for pattern, _, _ in PARTY_SIZES),
    *FAMILY.values(),
    PARENTS,
)
"""What the keyword extractors read without taking it out of the text: the words they
match are accounted for."""


def unread_words(left: str, found: Match, whole: str = "") -> tuple[str, ...]:
    """The words of ``left`` (what the extractors left of a clause) that no condition of
    ``found`` accounts for: not a keyword the reader knows, not a function word, not a word
    of a name or topic it read. A role word ("my husband Andrés") is accounted for when
    the clause names someone; a calendar word when it reads a calendar change or a start."""
    low = fold(without_companies(left))
    for pattern in KEYWORD_PATTERNS:
        low = re.sub(pattern, " ", low)
    low = re.sub(SOURCE_PATTERN, " ", low)
    if found.calendar_change:
        low = re.sub(CHANGES, " ", low)
    if found.starts_within is not None:
        low = re.sub(START_VERBS, " ", low)
    for pattern, applies in _SAID_WITH:
        if applies(found):
            low = re.sub(pattern, " ", low)
    said = " ".join(
        (
            *found.names,
            *found.examples,
            *found.topics,
            *found.chats,
            *found.subject_phrases,
            *found.described,
        )
    )
    taken = set(words(said)) | function_words()
    if found.has_identity():
        roles = ROLE_WORDS | {f"{w}s" for w in ROLE_WORDS} | identity_words()
        roles |= {w for w in words(low) if _former_role(w)}  # "mi excuñado, …"
        taken |= roles - joined_roles(whole or left)
    if len(found.names) == 1:
        taken |= _PRONOUNS  # "what Valentina sends, even if she …": the one person named
    return tuple(dict.fromkeys(w for w in words(low) if w not in taken))


def _only_roles(name: str) -> bool:
    """A "name" that is only the words for who someone is ("Meine Chefin, Dr. Anke Roth":
    "Chefin" is what she is, not a second sender)."""
    said = [fold(w.rstrip(".")) for w in name.split()]
    titles = set(phrases("words.titles"))
    return all(_a_role(w) and w not in titles for w in said)


def _a_role(word: str) -> bool:
    """A word for who someone is to the user, also as a former one ("Ex-Schwiegermutter",
    "excuñado", "ex-associé"); ``word`` folded."""
    return word in PERSON_ROLES or _former_role(word)


def _former_role(word: str) -> bool:
    """ "ex-associé", "excuñado": who someone was to the user."""
    former = re.match(r"ex-?(?P<role>\w{3,})$", word)
    return former is not None and (
        former.group("role") in PERSON_ROLES or former.group("role") in identity_words()
    )


def without_role(name: str) -> str:
    """A name without the words for who the person is before it ("Mann Jörg", "Tochter
    Lena" → "Jörg", "Lena", as German writes them with capitals): the message says the name,
    not the role. A title stays ("Frau Okonkwo"): it is how the name is said."""
    written = name.split()
    titles = set(phrases("words.titles"))
    while len(written) > 1:
        first = fold(written[0].rstrip("."))
        if first in titles or not _a_role(first):
            break
        written.pop(0)
    return " ".join(written)


@cache
def _owned_places() -> tuple[str, str]:
    """Words for a place someone belongs to, and words for who a person is, as patterns."""
    place = "|".join(sorted((re.escape(w) for w in identity_words() if len(w) > 3), key=len))
    roles = "|".join(re.escape(w) for w in sorted(PERSON_ROLES, key=len, reverse=True))
    return place, roles


def _owners(names: tuple[str, ...], whole: str) -> set[str]:
    """Names said as whose a place is: after a word for a school, an office or a practice
    and "of" ("escola da Bia", "the school of my son Pablo"), or before it with "'s" ("Mia's
    school"). The place writes, not the child."""
    low = fold(whole)
    place, roles = _owned_places()
    owner = phrase_pattern("definitions.possessives")
    out: set[str] = set()
    for n in names:
        said = r"\s+".join(re.escape(fold(w)) for w in n.rstrip("'’s").split())
        before = (
            rf"\b(?:{place})\s+{_OF}\s+(?:(?:la|le|el|o|a|the|l')\s+)?"
            rf"(?:{owner}\s+)?(?:(?:{roles})\s+)?{said}(?![\w-])"
        )
        after = rf"(?<![\w-]){said}['’]s?\s+(?:{place})\b"
        if re.search(before, low) or re.search(after, low):
            out.add(n)
    return out


_AFFILIATION = re.compile(r"\s+(?:von der|vom|aus der|aus dem|von)\s+(?P<where>\S.*)$")


def _without_affiliations(found: Match, whole: str) -> Match:
    """ "Herr Albers von der Hausverwaltung", "Herrn Krüger aus der Buchhaltung": the person,
    and where they work said as who they are (a common noun, not a name: "Ursula von der
    Leyen" keeps hers). The place is no sender of its own."""
    names: list[str] = []
    described = list(found.described)
    for n in found.names:
        m = _AFFILIATION.search(n)
        if m and _common_nouns(m.group("where"), german=True):
            names.append(n[: m.start()])
            described.append(m.group("where"))
        else:
            names.append(n)
    for n in list(names):
        said = r"\s+".join(re.escape(w) for w in n.split())
        people = [r"\s+".join(re.escape(w) for w in o.split()) for o in names if o != n]
        if (
            people
            and _common_nouns(n, german=True)
            and re.search(
                rf"(?:{'|'.join(people)})\s+(?:von der|vom|aus der|aus dem)\s+{said}(?![\w-])",
                whole,
            )
        ):
            names.remove(n)  # "Herrn Krüger aus der Buchhaltung": where he works
            described.append(n)
    return replace(found, names=tuple(names), described=tuple(dict.fromkeys(described)))


def _owned(name: str, whole: str) -> str:
    """ "Meine Frau Petra" is Petra: after "my", a title that is also a word for who the
    person is ("Frau": wife) says who she is to the user, not how her name is said."""
    first, _, rest = name.partition(" ")
    if not rest or fold(first.rstrip(".")) not in PERSON_ROLES:
        return name
    owner = phrase_pattern("definitions.possessives")
    said = r"\s+".join(re.escape(fold(w)) for w in name.split())
    return rest if re.search(rf"{owner}\s+{said}(?![\w'-])", fold(whole)) else name


_JOIN_WORD = re.compile(rf"\s(?:{JOIN_WORDS})\s+(?P<next>[\w'-]+)\s*(?P<then>[\w'-]*)")


def joined_roles(text: str) -> set[str]:
    """Role words that are an alternative of their own ("Sofia or the kids"), not what a
    name is ("my husband Andrés"): they follow "or" / "and", at most a function word
    between. Naming someone else does not account for them. ``text`` as written: a role
    word followed by a name is that name's ("… en gemeente Amsterdam")."""
    out: set[str] = set()
    folded, where = fold_with_map(text)
    for m in _JOIN_WORD.finditer(folded):
        first, then = m.group("next"), m.group("then")
        word, end = (
            (then, m.end("then")) if first in function_words() and then else (first, m.end("next"))
        )
        if re.match(r"\s+[A-ZÀ-Þ]", text[where[end - 1] + 1 :]):
            continue  # "… en gemeente Amsterdam": the municipality, by its type and name
        out.add(word)
    # "solo la nonna, e lo studio X": a role word before "and" is an alternative too (not
    # before "o", the Portuguese article: "o meu ex-marido, o X")
    out |= {m.group("word") for m in _BEFORE_A_JOIN.finditer(folded)}
    return out


_BEFORE_A_JOIN = re.compile(
    r"(?P<word>[a-z]+)\s*,?\s+(?:"
    + "|".join(w for w in JOIN_WORDS.split("|") if w not in ("o", "of", "u"))
    + r")\s+(?=\S)"
)
"""A word before a word that joins a list; not "o" (the Portuguese article), "of" or "u"."""


_SAID_WITH: tuple[tuple[str, Callable[[Match], bool]], ...] = (
    (
        phrase_pattern("amounts.words"),
        lambda m: m.min_amount is not None or m.max_amount is not None,
    ),
    (
        r"\b(?:subject(?: line)?|title|asunto|betreff|objet|assunto|oggetto|titolo)\b",
        lambda m: bool(m.subject_phrases),
    ),
    (
        r"\b(?:e-?mail )?(?:address(?:es)?|domains?|adressen?|direcci(?:on|ones)|"
        r"enderecos?|indirizz[oi]|dominios?)\b",
        lambda m: bool(m.domains or m.addresses),
    ),
    (
        r"\b(?:regarding|concerning|related to|relating to|on the topic of|acerca de|sobre|"
        r"uber|betreffend|concernant|au sujet|a propos|a respeito|riguardo|talks?|speaks?|"
        r"writes?|parle|parlent|habla|hablan|avise|avisen|spricht|geht|fala|falam|parla|"
        r"parlano)\b",
        lambda m: bool(m.topics),
    ),
    (
        r"\b(?:saved|stored|listed|named|called|as|como|als|comme|gespeichert|guardad[oa]|"
        r"enregistre[e]?|salv[oa]|salvat[oa])\b",
        lambda m: bool(m.names),
    ),
    (
        r"\b(?:calls?|meetings?|llamadas?|anrufe|appels?|chamadas?|chiamate)\b",
        lambda m: bool(m.video or m.in_person),
    ),
    (
        rf"(?:{OTHER_ALIKE.pattern})(?:\s+[a-z-]+){{0,2}}",
        lambda m: bool(m.kinds),
    ),
)
"""Words a condition is said with, accounted for when the reading holds that condition:
"subject" beside a subject phrase, "addresses" beside a domain, "regarding" before a topic,
"saved as" before a name, "calls" after "video", "and other couriers" after a kind the
reader knows (after names alone, "and other delivery apps" says a kind it does not know:
the line is flagged, not narrowed to the names)."""
