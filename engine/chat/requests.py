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
import unicodedata
from dataclasses import dataclass, replace
from functools import cache, lru_cache

from engine.chat.replies import words as reply_words
from engine.chat.said_in import language_of
from engine.triage.classifier.text import fold_with_map
from engine.triage.language import (
    alternation,
    function_words,
    identity_words,
    phrase_pattern,
    phrase_regex,
    phrases,
)
from engine.triage.language import language as language_data
from engine.triage.rules.clauses import sentences
from engine.triage.rules.compile import CompiledRule, compile_rules_text
from engine.triage.rules.decision import (
    ONLY_IF,
    RESTRICTIVE,
    START_NEVER,
    line_section,
    read_decision,
)
from engine.triage.rules.edit import SECTION_TITLES
from engine.triage.rules.explain import LineExplanation, explain_rule
from engine.triage.rules.extract import (
    GROUP_WORD,
    JOIN_WORDS,
    introduced_names,
    kind_words,
    parse_fragment,
    without_role,
)
from engine.triage.rules.kindwords import BEFORE_A_NAME
from engine.triage.rules.names import is_german, name_list
from engine.triage.rules.parse import ALWAYS, CUSTOM, NEVER, parse_rules
from engine.triage.rules.vocab import ROLE_WORDS, WORK_WORDS
from engine.triage.rules.windows import find_window


@dataclass(frozen=True)
class ReadRequest:
    """What the reader made of a message: the instructions it read in full (each with its
    section and how it reads), and those it could not (each with why)."""

    read: tuple[tuple[str, str, str], ...]  # (section, the sentence as said, its reading)
    unread: tuple[tuple[str, str], ...]  # (the sentence as said, why it is not read)
    language: str = "en"
    """The language the message is in: readings and answers are said in it."""
    talk: tuple[str, ...] = ()
    """What the message says besides its instructions, set aside as context ("I'm flying
    to Lisbon on the 18th"): shown with the answer, never applied."""
    defines: tuple[str, ...] = ()
    """Definitions the message gives for a role its instructions say ("my landlord = Mr
    Adeyemi, …" from "He's Mr Adeyemi, …"): written beside them, so the file reads them so."""

    @property
    def any(self) -> bool:
        return bool(self.read or self.unread)


@cache
def _lead_in() -> re.Pattern[str]:
    """A request's opening words that decide nothing ("from now on", "could you", "ok"),
    from the language data, matched on the folded text."""
    return re.compile(rf"^(?:{phrase_pattern('clauses.lead_ins')}[\s,.:!]*)+")


@cache
def _asking() -> re.Pattern[str]:
    """A question that asks for something to be done ("could you …", "kannst du …"),
    after any opening words, from the language data."""
    lead = rf"(?:{phrase_pattern('clauses.lead_ins')}[\s,.:!]*)*"
    return re.compile(rf"^[\s,.:!¿¡]*{lead}{phrase_pattern('clauses.asking')}")


@cache
def _tag_question() -> re.Pattern[str]:
    """A tag that ends a request with a question mark ("…, tá?", "…. pode ser?"), from the
    language data: the request is said, not asked."""
    return re.compile(rf"[\s,.!]+{phrase_pattern('clauses.tags')}\s*\?+[\s?!.]*$")


@cache
def _tag_inside() -> re.Pattern[str]:
    """A tag question between two sentences of a request ("Los findes nada del curro,
    ¿vale? Nada de …")."""
    return re.compile(rf"[\s,]+¿?\s*{phrase_pattern('clauses.tags')}\s*\?+(?=\s+\S)")


@cache
def _courtesy() -> re.Pattern[str]:
    """The courtesies a request ends with ("…, thanks!"), from the language data."""
    return re.compile(rf"(?:[\s,.!]*{phrase_pattern('clauses.courtesies')})+[\s.!]*$")


@cache
def _pronoun() -> re.Pattern[str]:
    """A pronoun, elided onto the word before it or not ("qu'elle écrit")."""
    said = "|".join(phrase_regex(p) for p in phrases("words.pronouns"))
    return re.compile(rf"(?<![\w-])(?:{said})(?![\w'-])", re.IGNORECASE)


def _tidy(text: str) -> str:
    text = _without_closing_symbols(" ".join(text.split()))
    for _ in range(3):
        folded, where = fold_with_map(text)
        end = _courtesy().search(folded)
        if end and end.start() > 0:
            text = text[: where[end.start()]].strip()
            folded, where = fold_with_map(text)
        lead = _lead_in().match(folded)
        if lead and lead.end() < len(folded):
            text = text[where[lead.end()] :].strip(" ,")
    return text


def _without_closing_symbols(text: str) -> str:
    """ "…, grazie 🙏" → "…, grazie": the emoji a message ends on say how it is meant, not
    what it asks (the thanks before them is then a courtesy like any other)."""
    end = len(text)
    while end and (unicodedata.category(text[end - 1]) in _CLOSING or text[end - 1].isspace()):
        end -= 1
    return text[:end] if end else text


_CLOSING = ("So", "Sk", "Cf", "Mn")
"""Emoji, their modifiers and joiners."""


def _named(rule: CompiledRule) -> str | None:
    """The person, organisation or chat a sentence names, read or not, when it names one
    alone (a pronoun after two names could stand for either)."""
    found = {*rule.scope.names, *rule.scope.chats}
    for alternative in rule.scope.any_of:
        found |= {*alternative.names, *alternative.chats}
    return found.pop() if len(found) == 1 else None


def _resolved(sentence: str, antecedent: str) -> str:
    """The sentence with its first pronoun standing for ``antecedent`` ("if he writes" →
    "if Tomas writes"; the ones after it read as they are), matched on the folded text and
    replaced as written."""
    folded, where = fold_with_map(sentence)
    m = _pronoun().search(folded)
    if m is None:
        return sentence
    after = sentence[where[m.end() - 1] + 1 :]
    if re.search(GROUP_WORD, antecedent, re.I):  # "desse grupo" → "grupo 'Obra'", once
        after = re.sub(rf"^\s*{GROUP_WORD}\b", "", after, flags=re.I)
    before = sentence[: where[m.start()]]
    if before.endswith(("'", "’")):  # "qu'elle écrit" → "que Fatou Diallo écrit"
        before = before[:-1] + "e "
    return before + antecedent + after


def _silences_unread(rule: CompiledRule) -> bool:
    """A Never whose words the reader could not place ("Am Wochenende will ich nichts von der
    Arbeit hören"): the answer says which words, as for any rule, not that it cannot talk."""
    return rule.rule.section == NEVER and bool(rule.unread)


def _why(line: LineExplanation) -> str:
    """Why a sentence is not read, in the chat's words: the words left over and what the
    rest reads, else the reader's problem with it."""
    w = line.words
    if line.unread:
        said = ", ".join(w.quoted(u) for u in line.unread)
        rest = line.reading if line.what != w.text("anything") or line.condition else ""
        why = w.text("cant_read", words=said)
        return why + (f" ({w.text('rest_reads', rest=w.quoted(rest))})" if rest else "")
    if line.problem and w.code != "en":
        return w.text("cant_read", words=w.quoted(line.text))  # the reader's why is English
    return line.problem or _vague_words(w.code)


def _vague(rule: CompiledRule) -> bool:
    """A reading that names nothing: "anything" (not "anything from Harbour & Pine", not
    "anything, only if from Sofía", not "anything at night"), or the rest of what other lines
    leave."""
    if rule.catch_all:
        return True
    if rule.condition.says_something or (rule.window is not None and not _has_pronoun(rule)):
        return False  # "only if it's from Sofía", "at night, nothing": it says what
    if not rule.scope.says_something:
        return True
    return rule.scope.anything and not replace(rule.scope, anything=False).says_something


def _has_pronoun(rule: CompiledRule) -> bool:
    return bool(_pronoun().search(fold_with_map(rule.rule.text)[0]))


def _antecedent(before: str, code: str = "en") -> str | None:
    """What a pronoun after ``before`` stands for, when it can be nothing else: the one
    person named before (a definition names someone too), else the one name, chat or kind
    of message the sentence just before says ("Out-of-office auto-replies are driving me
    mad. Never notify me about those")."""
    said = sentences(before.strip())
    if not said:
        return None
    last = said[-1].strip(" .!")
    if (narrated := _narrated_person(last)) is not None:
        return narrated
    german = code == "de" or is_german(last)  # its nouns are capitalised, not names
    found = parse_fragment(last, german=german)
    who = {without_role(n) for n in (*found.names, *found.chats)}
    who = {n for n in who if n[:1].isupper()} or who  # "Thierry, continue de …": a verb
    first = last.split()[0] if last.split() else ""
    listed = re.match(rf"{re.escape(first)}\s*(?:,|\s(?:{JOIN_WORDS}))\s+[A-ZÀ-Þ]", last)
    if len(who) > 1 and first in who and not listed:
        who.discard(first)  # "Comprei um tapete na Casa Bonita Decor": a verb, capitalised
    roled = {n for n in who if _said_with_role(n, last)}
    if len(who) > 1 and len(roled) == 1:
        who = roled  # "Mio figlio Matteo è in gita a Roma": the one said with who he is
    if len(who) == 1:
        one = who.pop()
        return _as_chat(last, one) if one in found.chats else one
    if not who and len(introduced := set(introduced_names(before))) == 1:
        one = introduced.pop()  # "davide (il mio ex) continua a scrivermi": typed in lower case
        return one[:1].upper() + one[1:]
    kinds = [p for s in said for p in _kind_phrases(s.strip(" .!"))]
    people = _german_names(before) if german else name_list(before)
    named = {n for n in people if not any(n in k for k in kinds)}
    if len(named) == 1 and not who:
        return without_role(named.pop())
    spans = _kind_phrases(last)
    return _readable_from(last, spans[0]) if len(spans) == 1 and not who and not named else None


_NAME_WORD = r"[^\W\d_][\w'’-]*"


@cache
def _roles() -> str:
    """Words for who someone is ("landlord", "gestora"), longest first, as a pattern."""
    return "|".join(
        re.escape(w) for w in sorted(identity_words() | ROLE_WORDS, key=len, reverse=True)
    )


@cache
def _introducing() -> re.Pattern[str]:
    """A person said with a title or with who they are, on the folded text: "mr hadley",
    "o Sr. Carvalho", "il sig. bianchi", "My ex, Kyle Brandt", "Ma nounou, Fatou Diallo",
    "A minha afilhada Beatriz" (after a word for who the person is, a comma between or
    not, the words that follow; which of them are a name is seen as written)."""
    titles = phrase_pattern("words.titles")
    roles = _roles()
    return re.compile(
        rf"(?P<title>{titles})\.?\s+(?P<titled>{_NAME_WORD}(?:\s+{_NAME_WORD})?)"
        rf"|(?<![\w'-])(?:{phrase_pattern('definitions.possessives')})\s+(?:{roles})"
        rf",?\s+(?:(?:{phrase_pattern('definitions.articles')})\s+)?"
        rf"(?=(?P<named>{_NAME_WORD}(?:\s+{_NAME_WORD})?))"
    )


def _titled(word: str) -> bool:
    return bool(re.fullmatch(phrase_pattern("words.titles"), fold_with_map(word.strip("."))[0]))


def _narrated_person(sentence: str) -> str | None:
    """The one person a sentence of the user's story introduces with a title or with who
    they are ("my landlord mr hadley texts me on whatsapp sometimes"), capitalised as a
    name; None when it introduces none or several."""
    folded, where = fold_with_map(sentence)
    found: set[str] = set()
    for m in _introducing().finditer(folded):
        group = "titled" if m.group("title") else "named"
        begins = m.start("title") if m.group("title") else m.start(group)
        said = sentence[where[begins] : where[m.end(group) - 1] + 1].split()
        if m.group("title"):
            said = [said[0], *said[1:2], *[w for w in said[2:3] if w[:1].isupper()]]
        first, *rest = said
        if m.group("title"):
            words_said = said
        elif not first[:1].isupper() or first.lower() in function_words() or _titled(first):
            continue  # "my son has a new coach": no name said; "o Sr. Carvalho": the title's
        else:
            words_said = [first] + [w for w in rest[:1] if w[:1].isupper()]
        found.add(" ".join(w[:1].upper() + w[1:] for w in words_said).strip(",.;:"))
    return found.pop() if len(found) == 1 else None


def _said_with_role(name: str, text: str) -> bool:
    """``name`` comes right after a word for who the person is ("figlio Matteo")."""
    low = fold_with_map(text)[0]
    for m in re.finditer(rf"([a-z]+)\s+{re.escape(fold_with_map(name)[0])}\b", low):
        if m.group(1) in identity_words():
            return True
    return False


def _german_names(text: str) -> list[str]:
    """Names in German, where every noun is capitalised: those the reader reads as names,
    and a first name with a surname ("Jens Albrecht schreibt … wegen seiner Angebote")."""
    found = list(parse_fragment(text, german=True).names)
    return found + [n for n in name_list(text) if len(n.split()) >= 2 and n not in found]


def _chat_before(before: str) -> str | None:
    """The one chat the sentence before names, for a sentence that says "that group"
    ("… só fala pelo grupo 'Obra'. Me avisa de toda mensagem desse grupo")."""
    said = sentences(before.strip())
    if not said:
        return None
    last = said[-1].strip(" .!")
    chats = parse_fragment(last).chats
    return _as_chat(last, chats[0]) if len(chats) == 1 else None


def _as_chat(text: str, chat: str) -> str:
    """A chat as the sentence named it, with its word for a group ("il gruppo 'Turni'"), so
    the pronoun standing for it reads as that chat, not as a sender of that name."""
    name = re.escape(chat)
    quoted = rf"['\"«“‘]?{name}['\"»”’]?"
    for pattern in (
        rf"{GROUP_WORD}\s+(?:de\s+)?(?:whatsapp\s+)?{quoted}",
        rf"{quoted}\s+{GROUP_WORD}",
    ):
        m = re.search(pattern, text, re.I)
        if m:
            return m.group(0)
    return chat


def _readable_from(text: str, kind: str) -> str:
    """The kind of message a sentence names, with what qualifies it after it, as far as the
    rules reader reads it in full ("le fatture sopra i 1.000 euro le devo approvare" →
    "fatture sopra i 1.000 euro"): a pronoun standing for it stands for all of that."""
    start = text.find(kind)
    if start < 0:
        return kind
    tail = text[start:].split()
    best = kind
    for n in range(len(kind.split()) + 1, len(tail) + 1):
        candidate = " ".join(tail[:n]).strip(" ,;:")
        if fold_with_map(tail[n - 1])[0] in function_words():
            continue  # what qualifies it ends on a word that carries something
        rule = compile_rules_text(f"{section_text('always', candidate)}")
        if rule and rule[0].understood and not _vague(rule[0]):
            best = candidate
    return best


def _kind_phrases(text: str) -> list[str]:
    """The phrases of ``text`` that name a kind of message, as written."""
    _, left = kind_words(text)
    out, start = [], None
    for i, (was, now) in enumerate(zip(f"{text} ", f"{left} ", strict=True)):
        blank = now == " " and was != " "
        if blank and start is None:
            start = i
        elif not blank and was != " " and start is not None:
            out.append(text[start:i].strip())
            start = None
    return [p for p in out if p]


def _pronoun_named(rule: CompiledRule) -> bool:
    """A reading whose "name" is a pronoun ("Quelle avvisamele" → "from Quelle"): it stands
    for something said before, so the reading is not the user's."""
    owned = set(phrases("words.possessives_before")) | set(phrases("words.possessives_after"))
    return any(
        _pronoun().fullmatch(fold_with_map(n)[0]) or fold_with_map(n)[0] in owned
        for n in rule.scope.names
    )


def _with_antecedent(rule: CompiledRule, antecedent: str | None, code: str = "en") -> CompiledRule:
    """A sentence the reader cannot read for want of who it is about, read again with its
    pronouns (or its possessive: "ses messages", "notificaciones suyas") standing for what
    the message named before; as it was otherwise."""
    if antecedent is None:
        return rule
    text = rule.rule.text
    unnamed = _writes_unnamed(rule, code)
    if (
        rule.understood
        and not _vague(rule)
        and not _pronoun_named(rule)
        and not _possessive(rule, code)
        and unnamed is None
    ):
        return rule
    owned = _owned_by(text, antecedent, code)
    article = _article_pronoun(text, code)
    if owned is not None:
        text = owned
    elif _pronoun().search(fold_with_map(text)[0]):
        text = _resolved(text, antecedent)
    elif article is not None:
        text = f"{text[: article.start(1)]}{antecedent}{text[article.end(1) :]}"
    elif unnamed is not None:
        text = f"{text[:unnamed]}{antecedent} {text[unnamed:]}"
    elif _decision_alone(rule):
        text = f"{antecedent}: {text}"  # "… Kita Sonnenschein … . Bitte immer anzeigen."
    else:
        return rule
    again = compile_rules_text(f"{text}\n")  # it states its decision
    return again[0] if len(again) == 1 and again[0].understood else rule


def _possessive(rule: CompiledRule, code: str) -> bool:
    """A sentence that names no one but says whose messages or who writes ("I don't want
    notifications for his emails", "sempre que ele mandar e-mail"): read without that
    person, it would be about everyone's."""
    if _named_someone(rule):
        return False
    data = language_data(code).phrases
    said = [
        *data["words.possessives_before"],
        *data["words.possessives_after"],
        *data["words.person_pronouns"],
    ]
    low = fold_with_map(rule.rule.text)[0]
    return bool(said) and bool(
        re.search(rf"(?<![\w'-])(?:{'|'.join(map(re.escape, said))})(?![\w'-])", low)
    )


def _decision_alone(rule: CompiledRule) -> bool:
    """A sentence that says only its decision ("Mettile sempre in evidenza", "bitte immer
    anzeigen"): about what the sentence before named."""
    rest, decision = read_decision(rule.rule.text)
    said = re.findall(r"[\w'-]+", fold_with_map(rest)[0])
    return decision is not None and all(w in function_words() for w in said)


def _writes_unnamed(rule: CompiledRule, code: str) -> int | None:
    """Where a sentence that names no one says that someone writes, in a language that
    drops the word for who ("Se mi scrive su WhatsApp avvisami sempre"), as the place in the
    text to say who; None otherwise. Read without who, the line would be about everyone."""
    said = language_data(code).phrases["words.writes_me"]
    if not said or _named_someone(rule):
        return None
    folded, where = fold_with_map(rule.rule.text)
    m = re.search(rf"(?<![\w'-])(?:{'|'.join(phrase_regex(w) for w in said)})(?![\w'-])", folded)
    return None if m is None else where[m.start()]


def _named_someone(rule: CompiledRule) -> bool:
    return rule.scope.has_who() or any(a.has_who() for a in rule.scope.any_of)


def _article_pronoun(text: str, code: str) -> re.Match[str] | None:
    """An article said as a pronoun ("wenn der schreibt"): no capitalised noun after it,
    only a lower-case verb that ends the clause."""
    said = language_data(code).phrases["words.article_pronouns"]
    if not said:
        return None
    articles = "|".join(map(re.escape, said))
    return re.search(rf"(?<![\w'-])({articles})\s+[a-zäöüß]\w*\s*(?=[,.;!?]|$)", text) or re.match(
        rf"\s*({articles})\s+[a-zäöüß]", text, re.I
    )  # "Die will ich … sehen"


def _owned_by(text: str, who: str, code: str) -> str | None:
    """``text`` with its first possessive said as "from ``who``" in the message's language:
    "Ne me notifie plus ses messages" → "Ne me notifie plus messages de Kevin", "No quiero
    notificaciones suyas" → "No quiero notificaciones de Toni"; None without one."""
    data = language_data(code).phrases
    by = data["words.from"][0] if data["words.from"] else "from"
    folded, where = fold_with_map(text)
    for key, after in (("words.possessives_after", True), ("words.possessives_before", False)):
        words = data[key]
        if not words:
            continue
        m = re.search(rf"(?<![\w'-])(?:{'|'.join(map(re.escape, words))})(?![\w'-])", folded)
        if m is None:
            continue
        start, end = where[m.start()], where[m.end() - 1] + 1
        if after:
            return f"{text[:start]}{by} {who}{text[end:]}"
        owned = re.match(r"\s+([\w'’-]+)", text[end:])
        if owned is None:
            return None
        cut = end + owned.end()
        return f"{text[:start]}{text[end:cut].strip()} {by} {who}{text[cut:]}"
    return None


@lru_cache(maxsize=16)
def _defined_in(rules: str) -> str:
    """The rules file's definitions ("Mis hijos, Pablo y Nerea", "my assistant means …") as
    lines that only define, for reading a request the way the file will read it once the
    request's line is in it: "solo avísame si es de mis hijos" is about Pablo and Nerea."""
    lines = []
    for d in parse_rules(rules).definitions if rules.strip() else ():
        role = f"\u201c{d.role}\u201d" if d.nickname else d.role
        lines.append(f"{role} = {' '.join(d.who.split())}")
    return "".join(f"{line}\n" for line in lines)


_BREAK = re.compile(r"\s*(?:[,:;]|\s[—–-]{1,2})\s+")
"""Where a sentence may pass from what the user tells to what they ask."""


_POSSESSIVE_SAID = (
    rf"(?<![\w'-])(?:{'|'.join(map(re.escape, phrases('words.possessives_before')))}|"
    rf"{'|'.join(map(re.escape, phrases('words.possessives_after')))})(?![\w'-])"
)


@cache
def _consequence() -> re.Pattern[str]:
    """ "so", "quindi", "donc" at the start of a clause, from the language data."""
    return re.compile(rf"^\s*{phrase_pattern('clauses.consequences')}[\s,]*")


@cache
def _conditional(code: str) -> re.Pattern[str]:
    """Words that make a clause a condition or an exception in the message's language
    ("wenn sie schreibt", "unless …"; Spanish "se" is no "if"): such a clause is part of the
    instruction, never context."""
    said = language_data(code).phrases["clauses.conditions"]
    opens = "|".join(phrase_regex(w) for w in said)
    return re.compile(rf"{RESTRICTIVE}|\b(?:{ONLY_IF})\b|(?<![\w'-])(?:{opens})(?![\w'-])")


def _alone(clause: str, antecedent: str | None, rules: str, code: str) -> CompiledRule | None:
    """``clause`` read on its own as one instruction, its pronouns standing for
    ``antecedent``: the rule when it reads in full and names something, else None."""
    found = compile_rules_text(f"{_defined_in(rules)}{clause}\n")
    if len(found) != 1:
        return None
    rule = _with_antecedent(found[0], antecedent, code)
    readable = rule.understood and not _vague(rule) and not _pronoun_named(rule)
    return rule if readable else None


def _reads_alone(clause: str, antecedent: str | None, rules: str, code: str) -> bool:
    return _alone(clause, antecedent, rules, code) is not None


def _asks_alone(clause: str, antecedent: str | None, rules: str, code: str) -> bool:
    """A part of a sentence that reads in full as an instruction of its own: it says what it
    is about itself ("only if there is something to pay" does not: what it is about is in
    the other part), its names are where names go, and a pronoun in it stands for
    something named."""
    if antecedent is None and _refers_back(clause):
        return False  # "… quand ils arrivent": who they are is in the other part
    rule = _alone(clause, antecedent, rules, code)
    return (
        rule is not None
        and replace(rule.scope, anything=False).says_something
        and _credibly_named(rule)
    )


_SAID_BEFORE_A_NAME = "|".join(
    sorted(BEFORE_A_NAME | {"about", "sobre", "mute", "silence", "silencia", "silenciar",
                            "silenzia", "stummschalten", "schalte", "ignore", "ignora"})
)  # fmt: skip
"""Words after which a name in lower case is one ("de linkedin", "mute linkedin")."""


def _credibly_named(rule: CompiledRule) -> bool:
    return all(_credible(n, rule.rule.text) for n in (*rule.scope.names, *rule.condition.names))


def _credible(name: str, text: str) -> bool:
    """A name a reading can rest on: written with a capital, or in lower case first or right
    after a word that says who ("linkedin can wait", "de linkedin", "mute linkedin"), not
    "tell me something nice"."""
    if name[:1].isupper():
        return True
    low = fold_with_map(text)[0]
    if low.lstrip(" \"'«“").startswith(fold_with_map(name)[0]):
        return True  # "linkedin can wait": what the sentence is about, said first
    return bool(
        re.search(rf"\b(?:{_SAID_BEFORE_A_NAME})\s+{re.escape(fold_with_map(name)[0])}\b", low)
    )


def _told_apart(sentence: str, before: str, rules: str, code: str) -> tuple[str, str] | None:
    """A sentence that tells something and asks something, as (what it tells, what it asks):
    "Ho mollato il fantacalcio, del gruppo 'Fantalega dei Pirati' non mi interessa più
    niente", "Nel gruppo 'Turni' ci scambiamo i turni, quindi avvisami di ogni messaggio
    che arriva lì", "no me avises más de linkedin, no estoy buscando curro". Only when the
    whole does not read, the part asked reads in full on its own (a pronoun standing for
    what the part told names), and the part told states no decision and no condition."""
    if _reads_alone(sentence, _antecedent(before, code), rules, code):
        return None
    cuts = [(m.start(), m.end()) for m in _BREAK.finditer(sentence)]
    folded, where = fold_with_map(sentence)
    cuts += [
        (where[m.start()], where[m.start()])
        for m in re.finditer(rf"(?<=\s){phrase_pattern('clauses.consequences')}\s", folded)
    ]
    for start, end in sorted(cuts):
        head, tail = sentence[:start].strip(), sentence[end:].strip()
        asked = _without_consequence(tail)
        carried = not _names(head) or _refers_back(asked)
        if (
            _is_talk(head, code)
            and carried
            and line_section(asked) is not None
            and _asks_alone(asked, _antecedent(f"{before} {head}.", code), rules, code)
        ):
            return head, asked
        if (
            _is_talk(tail, code)
            and (not _names(tail) or _gives_reason(tail))
            and line_section(head) is not None
            and _asks_alone(head, _antecedent(before, code), rules, code)
        ):
            return tail, head
    return None


def _asked_twice(sentence: str, before: str, rules: str, code: str) -> list[str]:
    """A sentence of two instructions, the second about what the first names ("Herr Albers
    ist wichtig, seine Mails bitte immer melden"), as two sentences, when the whole does not
    read and each does on its own; else the sentence as it is."""
    if _reads_alone(sentence, _antecedent(before, code), rules, code):
        return [sentence]
    for m in _BREAK.finditer(sentence):
        head, tail = sentence[: m.start()].strip(), sentence[m.end() :].strip()
        if (
            line_section(head) is not None
            and line_section(tail) is not None
            and _refers_back(tail)
            and _reads_alone(head, _antecedent(before, code), rules, code)
            and _reads_alone(tail, _antecedent(f"{before} {head}.", code), rules, code)
        ):
            return [f"{head.rstrip(' ,;:.')}.", tail]
    return [sentence]


@cache
def _reason() -> re.Pattern[str]:
    return re.compile(rf"^\s*{phrase_pattern('predicates.reasons')}")


def _gives_reason(clause: str) -> bool:
    """A clause that opens as the user's reason does ("I keep missing the couriers", "que
    luego se me pasan los plazos"): what it names is why, not what the rule is about."""
    return bool(_reason().match(fold_with_map(clause)[0]))


def _without_consequence(clause: str) -> str:
    """ "quindi avvisami di …" → "avvisami di …"."""
    folded, where = fold_with_map(clause)
    m = _consequence().match(folded)
    if m is None or m.end() >= len(folded):
        return clause
    return clause[where[m.end()] :]


def _names(clause: str) -> bool:
    """The clause names someone or a kind of message: what it tells may be what the
    instruction is about ("Todo lo que mande el colegio San Ignacio, …, quiero verlo"). Its
    first word, capitalised as every first word is, is no name on that ground alone."""
    found = parse_fragment(clause)
    first = clause.split()[0].strip(" ,.;:'\"") if clause.split() else ""
    names = [  # "Quit the choir …": a verb, capitalised; "… debatiendo el color": no name
        n for n in found.names if n != first and n[:1].isupper()
    ]
    said = found.domains or found.addresses or found.chats or found.roles or found.any_of
    return bool(names or said or found.named_kinds())


def _refers_back(clause: str) -> bool:
    """The clause says again, with a pronoun, what the one before it named ("…, so anything
    she sends me, tell me")."""
    low = fold_with_map(clause)[0]
    return bool(_pronoun().search(low) or re.search(_POSSESSIVE_SAID, low))


def _is_talk(clause: str, code: str = "en") -> bool:
    """A clause that may be what the user tells: two words at least, no decision, no
    condition, and not a phrase that says what a rule is about ("Qualsiasi cambio sul volo",
    "Tout ce qui …": it opens with a word for any or every)."""
    low = fold_with_map(clause)[0]
    words_said = re.findall(r"\w+", low)
    return (
        len(words_said) >= 2
        and line_section(clause) is None
        and not _conditional(code).search(low)
        and not _every().match(low)
    )


@cache
def _every() -> re.Pattern[str]:
    return re.compile(
        rf"^\s*(?:{phrase_pattern('definitions.articles')}\s+)?"
        rf"(?:{phrase_pattern('words.every')}|{phrase_pattern('words.anything')})"
    )


def _apart(text: str, rules: str, code: str) -> str:
    """``text`` with each sentence that tells and asks made two: what it tells, then what
    it asks (or the other way round, as said)."""
    out: list[str] = []
    for sentence in sentences(text):
        found = _told_apart(sentence, " ".join(out), rules, code)
        if found is None:
            out += _asked_twice(sentence, " ".join(out), rules, code)
            continue
        said, asked = found
        pair = [f"{said.rstrip(' ,;:.')}.", f"{asked.rstrip(' ,;:.')}."]
        out += pair if sentence.startswith(said) else pair[::-1]
    return " ".join(out)


def read_request(message: str, rules: str = "") -> ReadRequest:
    """The instructions in ``message`` as the rules reader reads them (none when it states
    no decision at all: a question, thanks, a reminder), with the definitions of the user's
    rules file ``rules``."""
    message = message.strip()
    folded, where = fold_with_map(message)
    tag = _tag_question().search(folded)
    if tag is not None and tag.start() > 0:  # "…, qualquer um, tá?": said, not asked
        message = f"{message[: where[tag.start()]].rstrip(' ,')}."
        folded, where = fold_with_map(message)
    for inside in reversed(list(_tag_inside().finditer(folded))):  # "…, ¿vale? Nada de …"
        head, tail = message[: where[inside.start()]], message[where[inside.end() - 1] + 1 :]
        message = f"{head.rstrip(' ,')}.{tail}"
    folded = fold_with_map(message)[0]
    if "?" in message and (_asking().match(folded) or START_NEVER.match(folded)):
        message = message.replace("?", ".")  # "Can you mute …?", "Silencia o grupo …?" ask it
    text = _tidy(message)
    code = language_of(message)
    if not text or "?" in text or len(text) > 600:
        return ReadRequest((), (), code)
    kept = _kept_but(text, rules, code)
    if kept is not None:
        return kept
    text = _apart(text, rules, code)
    text = _work_named_after(text)
    text, defined = _named_after(text)
    read: list[tuple[str, str, str]] = []
    unread: list[tuple[str, str]] = []
    antecedent: str | None = None
    written = f"{_defined_in(rules)}{defined}{text}\n"
    # what restricts or says a word that decides is context beside an instruction ("…, der
    # schickt nur noch Sprachnachrichten"), and the instruction when there is no other one
    # ("Pour le groupe de la copro, seulement si on me mentionne.")
    in_chat = bool(instructions := compile_rules_text(written, said_in_chat=True))
    instructions = instructions or compile_rules_text(written)
    for first in instructions:
        before = text[: max(0, text.find(first.rule.text))]
        if antecedent is None:
            antecedent = _antecedent(before, code)
        chat = _chat_before(before) if re.search(GROUP_WORD, first.rule.text, re.I) else None
        rule = _with_names_capitalised(_with_antecedent(first, chat or antecedent, code))
        antecedent = _named(rule) or antecedent
        said = rule.rule.text
        if find_window(rule.rule.read_text)[1] and not find_window(said)[1]:
            said = rule.rule.read_text  # "… I'm asleep. Only Dad gets through": with its hours
        section = rule.rule.section or CUSTOM
        line = explain_rule(rule, language=code)
        if not rule.understood:
            if (
                line.what not in ("", line.words.text("anything"))
                or line.condition
                or _silences_unread(rule)
            ):
                unread.append((said, _why(line)))  # some of it is a rule, or a Never of words
            elif _pronoun().search(fold_with_map(said)[0]):
                unread.append((said, _vague_words(code)))  # "mute it": what it stands for
            elif rule.unread and _decides_about(said):
                unread.append((said, _why(line)))  # a decision about words it cannot place
        elif (
            _vague(rule)
            or _pronoun_named(rule)
            or _possessive(rule, code)
            or not _credibly_named(rule)
        ):
            unread.append((said, _vague_words(code)))
        else:
            read.append((section, said, line.reading))
    told_apart = parse_rules(written, said_in_chat=in_chat)
    told = tuple(t for _, t in told_apart.notes)
    lines = tuple(d.strip() for d in defined.splitlines() if d.strip()) if read else ()
    return ReadRequest(tuple(read), tuple(unread), code, told if read else (), lines)


def _decides_about(sentence: str) -> bool:
    """The sentence decides about something: not "tell me a joke" (something to say, not
    messages to tell of)."""
    body, decision = read_decision(sentence)
    if decision is None:
        return False
    first = re.findall(r"[\w'-]+", fold_with_map(body)[0])[:1]
    return not first or first[0] not in phrases("words.indefinite")


def _work_named_after(text: str) -> str:
    """ "Am Wochenende will ich nix von der Arbeit hören. Also nichts von @holzbau.example.":
    a sentence whose only unread word is the user's work, followed by one that names who
    the work is, read as one line with the work named in parentheses, as a rules file
    says it ("… von der Arbeit (@holzbau.example) hören"), so the first sentence's days
    and hours stay with it."""
    parts = sentences(text)
    for i in range(len(parts) - 1):
        found = compile_rules_text(f"{parts[i]}\n")
        if len(found) > 1 or (found and found[0].understood):
            continue
        said_words = set(re.findall(r"\w+", fold_with_map(parts[i])[0]))
        unread = (
            {fold_with_map(w)[0] for w in found[0].unread} if found else said_words & WORK_WORDS
        )
        if not unread or not unread <= WORK_WORDS:
            continue  # told as talk ("Fim de semana nada do trabalho") or flagged for work only
        if not _only_who(parts[i + 1]):
            continue  # what the sentence after says besides who would be lost
        named = parse_fragment(parts[i + 1])
        plain = function_words() | set(phrases("words.no_determiners"))
        names = [n for n in named.names if fold_with_map(n)[0] not in plain]  # not "nessuna"
        said = [*(f"@{d}" for d in named.domains), *named.addresses, *names]
        folded, where = fold_with_map(parts[i])
        work = re.search(rf"(?<![\w'-])(?:{'|'.join(sorted(unread))})(?![\w'-])", folded)
        if not said or work is None:
            continue
        end = where[work.end() - 1] + 1
        parts[i] = f"{parts[i][:end]} ({', '.join(said)}){parts[i][end:]}"
        del parts[i + 1]
        return " ".join(parts)
    return text


def _only_who(sentence: str) -> bool:
    """A sentence that reads in full as a Never of who sends and nothing else ("Also nichts
    von @…, bitte"): no days, hours, kinds, topics or exceptions of its own."""
    found = compile_rules_text(f"{sentence}\n")
    if len(found) != 1 or not found[0].understood or found[0].rule.section != NEVER:
        return False
    rule, scope = found[0], found[0].scope
    # "Aucun mail @…": mail is all a domain sends, so it says no more than who
    by_mail = scope.sources <= {"email"} and bool(scope.domains or scope.addresses)
    said_more = (
        (scope.sources and not by_mail)
        or scope.kinds
        or scope.topics
        or scope.subject_phrases
        or scope.event_types
    )
    return rule.window is None and not rule.exclusions and rule.action == "drop" and not said_more


@cache
def _named_as() -> re.Pattern[str]:
    return re.compile(rf"^\s*(?:{phrase_pattern('definitions.named_as')})\s+(?=\S)")


@cache
def _role_said() -> re.Pattern[str]:
    """A role said with a possessive ("my landlord", "minha sogra"), folded."""
    roles = alternation(sorted(identity_words()))
    return re.compile(
        rf"(?<![\w'-])(?:{phrase_pattern('definitions.possessives')})\s+(?:{roles})(?![\w'-])"
    )


def _named_after(text: str) -> tuple[str, str]:
    """ "Anything my landlord sends, I want to know about. He's Mr Adeyemi, emails from
    adeyemi-lets.": a sentence that names the one a role said before stands for ("He's …",
    "O nome dela é …", "Er heißt …") is a definition of that role, as a rules file writes it
    ("my landlord = Mr Adeyemi, …"): (the text without it, the definitions as lines). Only
    with a name written with a capital or an address in it."""
    kept: list[str] = []
    defined: list[str] = []
    for sentence in sentences(text):
        folded, where = fold_with_map(sentence)
        said = _named_as().match(folded)
        before = fold_with_map(" ".join(kept))[0]
        roles = list(_role_said().finditer(before))
        rest = sentence[where[said.end() - 1] + 1 :].strip(" .") if said else ""
        named = bool(re.search(r"(?:^|\s)[A-ZÀ-Þ][\w'’-]+|@|\w\.\w{2,}", rest))
        if said and roles and named:
            defined.append(f"{roles[-1].group(0)} = {rest}\n")
            continue
        kept.append(sentence)
    if not defined:
        return text, ""
    return " ".join(kept), "".join(defined)


@cache
def _contrast() -> re.Pattern[str]:
    return re.compile(rf"[\s,;]+(?:{phrase_pattern('clauses.contrasts')})\s+")


def _kept_but(text: str, rules: str, code: str) -> ReadRequest | None:
    """ "I still want the running club emails but their Sunday newsletter can go", "Da
    academia quero tudo, menos a newsletter deles, essa nunca": what is kept is said as it
    is (the user's talk, nothing to add), and what is not is a Never line about the kept
    sender's messages of that kind; None when the message is not said that way or its Never
    part does not read in full."""
    folded, where = fold_with_map(text)
    m = _contrast().search(folded)
    if m is None or m.start() == 0 or m.end() >= len(folded):
        return None
    head, tail = text[: where[m.start()]].strip(" ,;"), text[where[m.end() - 1] + 1 :].strip()
    if line_section(head) != ALWAYS or line_section(tail) != NEVER:
        return None
    found = compile_rules_text(f"{_defined_in(rules)}{tail}\n")
    if len(found) != 1:
        return None
    rule = _with_antecedent(found[0], _antecedent(f"{head}.", code), code)
    if not rule.understood or _vague(rule) or _possessive(rule, code) or _pronoun_named(rule):
        return None
    line = explain_rule(rule, language=code)
    return ReadRequest(((NEVER, rule.rule.text, line.reading),), (), code, (head,))


def _with_names_capitalised(rule: CompiledRule) -> CompiledRule:
    """A sentence whose only words left unread are a name typed in lower case right after
    a word that says who ("je veux plus aucune notif de julien morel", "mute jonas weber"),
    read again with that name capitalised; as it was otherwise. The reading shows the name
    as read."""
    unread = rule.unread
    if rule.understood or not unread or not all(w.isalpha() and w.islower() for w in unread):
        return rule
    text = rule.rule.text
    said = r"\s+".join(re.escape(w) for w in unread)
    m = re.search(rf"\b(?:{_SAID_BEFORE_A_NAME}|{_roles()})\s+({said})\b", fold_with_map(text)[0])
    if m is None or _after_an_indefinite(fold_with_map(text)[0][: m.start()]):
        return rule
    where = fold_with_map(text)[1]
    start, end = where[m.start(1)], where[m.end(1) - 1] + 1
    name = " ".join(w[:1].upper() + w[1:] for w in text[start:end].split())
    again = compile_rules_text(f"{text[:start]}{name}{text[end:]}\n")
    return again[0] if len(again) == 1 and again[0].understood else rule


def _after_an_indefinite(before: str) -> bool:
    """ "qualcosa da firmare", "algo de pagar": after "something", the word is what is to be
    done, not who writes."""
    return bool(re.search(rf"{phrase_pattern('words.something')}\s*$", before))


def _vague_words(code: str) -> str:
    return str(reply_words(code).text("vague"))


def section_text(section: str, rule: str) -> str:
    """A rules file holding one line in its section, to read it as the file would."""
    title = SECTION_TITLES.get(section, SECTION_TITLES[CUSTOM])  # type: ignore[call-overload]
    return f"## {title}\n- {rule}\n"
