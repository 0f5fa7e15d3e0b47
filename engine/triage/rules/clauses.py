"""The parts of a rule line besides its conditions: a "Name:" label, a catch-all ("anything
that fits no other category"), what the line does *not* cover ("… but not …", "Do not use
for …", "Billing problems are not in this category", "No incluye …"), and clauses that only
widen it ("even if …", "aunque …"), which are dropped."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from engine.triage.classifier.text import fold, fold_with_map
from engine.triage.language import phrase_pattern, phrases

LABEL = re.compile(r"^\s*([^:()]{1,60}?)\s*:\s+(\S.*)$")

CATCH_ALL = re.compile(
    r"\b(?:fits?|match(?:es)?|belongs?|falls?) (?:in|into|under)? ?no other\b|"
    r"\bno other (?:category|rule|line)\b|"
    r"\b(?:does ?n[o']t|do ?n[o']t|does not|do not) (?:fit|match|belong)\b[^.;]*\b(?:other|any)\b|"
    r"\b(?:everything|anything) else\b|\ball the rest\b|\bthe rest\b|\bwhatever is left\b|"
    r"\btout le reste\b|\bce qui ne (?:rentre|correspond)\b|\baucune autre categorie\b|"
    r"\btodo lo demas\b|\blo demas\b|\blo que no (?:encaje|entre)\b|\bninguna otra categoria\b|"
    r"\balles (?:andere|ubrige)\b|\bkeine andere kategorie\b|\bsonst nichts\b|"
    r"\btudo o (?:resto|mais)\b|\bo resto\b|\bnenhuma outra categoria\b|"
    r"\btutto il resto\b|\bil resto\b|\bnessun'? ?altra categoria\b",
    re.I,
)
CATCH_ALL_LABEL = re.compile(
    r"^(?:other|others|misc(?:ellaneous)?|everything else|anything else|the rest|rest|otros|"
    r"otras|resto|lo demas|sonstiges|sonstige|andere|rest|autres|divers|tout le reste|outros|"
    r"outras|o resto|altro|altri|varie|tutto il resto)$",
    re.I,
)

WIDENING = re.compile(rf"[,;]?\s*{phrase_pattern('clauses.widening')}[^.;()]*", re.I)
"""A clause that only widens the line ("even if …", "aunque …", "egal was …"): dropped."""

_NOT = r"(?:but not|not|no|pas|nicht|nao|non)"
"""Words that set an exclusion apart; not "ni" (nor), which on a Never line adds one more
thing it never wants ("…, ni pour les codes de connexion")."""
SENTENCE_EXCLUSIONS = (
    r"^(?:do not|don'?t|never) use (?:this |it )?for (?P<x>.+)$",
    r"^not for (?P<x>.+)$",
    r"^no (?:usar|utilizar|aplicar) (?:para|a) (?P<x>.+)$",
    r"^nicht fur (?P<x>.+?)(?: verwenden| benutzen| nutzen)?$",
    r"^(?:ne pas|n'est pas a) utiliser pour (?P<x>.+)$",
    r"^nao (?:usar|utilizar) para (?P<x>.+)$",
    r"^non (?:usare|utilizzare) per (?P<x>.+)$",
    r"^(?:no incluye[n]?|excluye|not including|excluding|excludes|ausgenommen|exclut|"
    r"nao inclui|non include|esclus[oi]) (?P<x>.+)$",
    r"^(?P<x>.+?) (?:are|is) not (?:in|part of|covered by|included in) .+$",
    r"^(?P<x>.+?) (?:are|is) not .+$",
    r"^(?P<x>.+?) (?:gehoren|gehort|zahlen|zahlt|fallen|fallt) nicht (?:dazu|darunter|hierzu)$",
    r"^(?P<x>.+?) (?:no|nunca) (?:entran|entra|estan|esta|pertenecen|forman parte|cuentan)\b.*$",
    r"^(?P<x>.+?) ne (?:sont|font|fait|est) pas .+$",
    r"^(?P<x>.+?) nao (?:entram|entra|fazem parte|sao|contam)\b.*$",
    r"^(?P<x>.+?) non (?:rientrano|rientra|fanno parte|sono)\b.*$",
    r"^(?P<x>.+?) counts? as .+$",
    r"^(?P<x>.+?) (?:cuentan|cuenta) como .+$",
    r"^(?P<x>.+?) (?:zahlen|zahlt) als .+$",
    r"^(?P<x>.+?) (?:comptent|compte) comme .+$",
    r"^(?P<x>.+?) (?:contam|conta) como .+$",
    r"^(?P<x>.+?) (?:contano|conta) come .+$",
)
INLINE_EXCLUSIONS = (
    rf"\((?:[^()]*,\s*)?{_NOT}\s+(?P<x>[^()]+)\)",
    rf",\s*{_NOT}\s+(?P<x>[^,;.()]+)",
    r"\b(?:but not|pero no|aber nicht|mais pas|mas nao|ma non)\s+(?P<x>[^,;.()]+)",
    r"\b(?:that|which|who) (?:are|is) not (?P<x>[^,;.()]+)",
    r"\b(?:that|which|who) (?:isn'?t|aren'?t) (?:an? )?(?P<x>[^,;.()]+)",
    r"\b(?:unless|except(?: for)?|excepto|salvo|menos|a menos que|a no ser que|ausser|"
    r"ausgenommen|es sei denn|sauf|a moins que|exceto|a nao ser que|salvo se|tranne|eccetto|"
    r"a meno che|tenzij|behalve(?: als| wanneer)?|uitgezonderd|tirando|quitando|hormis|"
    r"bis auf(?! weiteres)|abgesehen von)\s+(?P<x>[^;.()]+)",
    r"\b(?:where|when|if) (?:nobody|no one|noone) (?P<x>[^;.()]+)",
    r"\b(?:donde|cuando|si) nadie (?P<x>[^;.()]+)",
    r"\b(?:wo|wenn) (?:mich )?niemand (?P<x>[^;.()]+)",
    r"\b(?:ou|quand|si) personne ne (?P<x>[^;.()]+)",
    r"\b(?:onde|quando|se) ninguem (?P<x>[^;.()]+)",
    r"\b(?:dove|quando|se) nessuno (?P<x>[^;.()]+)",
)
POSITIVE_EXCEPTION = re.compile(
    r"[;,.]\s*(?:but\s+)?(?:if|when|si|wenn|falls|se|quand|cuando|quando)\s+(?P<x>[^;.]+?),\s*"
    r"(?:(?:then|si|alors|dann|entao|allora)\s+)?(?:do\s+|si\s+)?(?:tell me|notify me|notify|"
    r"let me know|ping me|avisame|notificame|benachrichtige mich|benachrichtigen|melde es|"
    r"signale-le|signale-moi|previens-moi|me avise|avise-me|avvisami|segnalamelo|segnala)\b"
    r"[^;.]*",
    re.I,
)


@dataclass(frozen=True)
class Parts:
    """A line taken apart: its label, the text its conditions are read from, whether it is
    a catch-all, what it does not cover, and whether those are to be notified instead."""

    label: str = ""
    body: str = ""
    catch_all: bool = False
    exclusions: tuple[str, ...] = ()
    exception_notifies: bool = False
    dropped: tuple[str, ...] = field(default_factory=tuple)


def _folded_sub(pattern: str, text: str) -> tuple[str, list[str]]:
    """Remove what ``pattern`` (written folded) matches, returning what its group ``x``
    caught, as written."""
    caught: list[str] = []
    while True:
        low, origin = fold_with_map(text)
        m = re.search(pattern, low, re.I)
        if not m:
            return text, caught
        start, end = origin[m.start()], origin[m.end() - 1] + 1
        if "x" in m.groupdict() and m.group("x"):
            xs, xe = origin[m.start("x")], origin[m.end("x") - 1] + 1
            caught.append(text[xs:xe].strip(" ,.;"))
        text = text[:start] + " " + text[end:]


def split_label(text: str) -> tuple[str, str]:
    """ "Receipts: order confirmations, …" → ("Receipts", "order confirmations, …")."""
    m = LABEL.match(text)
    if not m or len(m.group(1).split()) > 6:
        return "", text
    return m.group(1).strip(), m.group(2).strip()


ABBREVIATION = re.compile(
    rf"\b(?:St|e\.g|i\.e|etc|{'|'.join(re.escape(t) for t in phrases('words.titles'))})$"
    r"|(?<![\d.])\d{1,2}\.\d{1,2}$|\w\wstr$|\b(?:Nr|Av|Avda|bzw|ca)$",
    re.I,
)
"""A word whose full stop ends no sentence: a title before a name ("dott. Ferrante"), a
day and month ("vom 23.12. bis 3.1."), a street ("Körnerstr. 12", "Av. Paulista")."""


def _emoji_ends(text: str, i: int) -> bool:
    """An emoji followed by a word ends a sentence ("… usar WhatsApp 👵 Avísame siempre …",
    "il trasloco è finito 🎉 non serve più …"), as people type in a chat; one inside quotes
    is part of a name ("'Famiglia 💕'")."""
    if unicodedata.category(text[i]) != "So" or i + 1 >= len(text) or not text[i + 1].isspace():
        return False
    rest = text[i + 1 :].lstrip()
    return rest[:1].isalpha()


def sentences(text: str, *, semicolons: bool = True) -> list[str]:
    """Split on sentence ends outside parentheses (and on semicolons, unless told not)."""
    out, depth, start = [], 0, 0
    stops = ".;!?" if semicolons else ".!?"
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")" and depth > 0
        ends = ch in stops and depth == 0 and (i + 1 == len(text) or text[i + 1].isspace())
        ends = ends or (depth == 0 and _emoji_ends(text, i))
        if ends and not ABBREVIATION.search(text[start:i]):
            out.append(text[start : i + 1].strip())
            start = i + 1
    rest = text[start:].strip()
    if rest:
        out.append(rest)
    out = [_without_leading_symbols(s) for s in out]
    return [s for s in out if s.strip(" .;")]


def _without_leading_symbols(sentence: str) -> str:
    """ "🎉 you can stop …" → "you can stop …"."""
    n = 0
    while n < len(sentence) and (unicodedata.category(sentence[n]) == "So" or sentence[n] == " "):
        n += 1
    return sentence[n:] if n < len(sentence) else sentence


def take_apart(text: str, *, section_rule: bool) -> Parts:
    """``section_rule``: the line is an Always/Never one (exclusions are read here); custom
    lines read their own "unless" and "not" as conditions."""
    label, body = split_label(text)
    catch_all = bool(CATCH_ALL_LABEL.match(fold(label).strip())) if label else False
    low = fold(body)
    if _leads(CATCH_ALL.search(low), low) or (
        not label and _leads(CATCH_ALL.search(fold(text)), fold(text))
    ):
        catch_all = True
        body = _strip_catch_all(body)
    body, dropped = _folded_sub(WIDENING.pattern, body)
    exclusions: list[str] = []
    notify_them = False
    if section_rule:
        parts = sentences(body)
        kept: list[str] = []
        for i, sentence in enumerate(parts):
            if i == 0:
                kept.append(sentence)
                continue
            found = _sentence_exclusion(sentence)
            if found is None:
                kept.append(sentence)
            else:
                exclusions.append(found)
        body = " ".join(kept)
        m = POSITIVE_EXCEPTION.search(fold(body))
        if m:
            _, origin = fold_with_map(body)
            xs, xe = origin[m.start("x")], origin[m.end("x") - 1] + 1
            exclusions.append(body[xs:xe])
            body = body[: origin[m.start()]] + body[origin[m.end() - 1] + 1 :]
            notify_them = True
        for pattern in INLINE_EXCLUSIONS:
            body, caught = _folded_sub(pattern, body)
            exclusions += caught
    return Parts(
        label, body.strip(" ,;"), catch_all, tuple(exclusions), notify_them, tuple(dropped)
    )


def _leads(m: re.Match[str] | None, low: str) -> bool:
    """A catch-all is what the line is about when it comes first ("Everything else: …",
    "The rest can wait", "Anything that fits no other category"), not an item at the end of
    a list ("a water shut-off, an inspection or anything else I have to be home for")."""
    return m is not None and len(low[: m.start()].split()) <= 2


def _sentence_exclusion(sentence: str) -> str | None:
    text = sentence.strip(" .;")
    low, origin = fold_with_map(text)
    for pattern in SENTENCE_EXCLUSIONS:
        m = re.match(pattern, low, re.I)
        if m:
            xs, xe = origin[m.start("x")], origin[m.end("x") - 1] + 1
            return text[xs:xe]
    return None


def _strip_catch_all(body: str) -> str:
    """What a catch-all line says besides "anything that fits no other category"."""
    cut = re.sub(
        r"^(?:anything|everything|whatever|all|ce|todo|lo|alles|tudo|tutto|o|il)?\b[^.;—–]*?"
        r"(?:no other (?:category|rule|line)|else|the rest|reste|demas|categoria|kategorie|"
        r"resto|andere)\b[.;]?",
        "",
        fold(body),
        flags=re.I,
    )
    if cut == fold(body):
        return ""
    return body[len(body) - len(cut) :].strip(" .;,")
