"""What kind of event this is, read from headers, labels, addresses and wording: the facts
that rules and heuristics are decided on. Generic signals only, no lists of known senders."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from engine.events import Event

_WORD = re.compile(r"[a-z0-9]+")

AUTOMATED_LOCAL_PARTS = re.compile(
    r"^(no[-_.]?reply|do[-_.]?not[-_.]?reply|donotreply|noreply[-_.a-z0-9]*|[a-z0-9._-]*noreply|"
    r"[a-z0-9._-]*no[-_]reply|notifications?|notificaciones|notifications?[-_.][a-z0-9]+|"
    r"alerts?|alerting|builds?|ci|bot|robot|system|daemon|mailer[-_]?daemon|postmaster|"
    r"automated|auto|monitor(ing)?|status|digest[-_.a-z0-9]*|tracking[a-z0-9._-]*|"
    r"[a-z0-9._-]*updates|mailer|bounces?)$"
)
PERSONAL_FREE_MAIL = (
    "gmail",
    "googlemail",
    "outlook",
    "hotmail",
    "yahoo",
    "icloud",
    "proton",
    "gmx",
    "web",
    "aol",
)
PROMO_WORDS = re.compile(
    r"(\d+\s?% off|\bsale\b|\bdiscount|\bdeals?\b|\boffers?\b|\bcoupon|\bpromo|\bmembers get\b|"
    r"\bfree shipping\b|\blimited (time|stock)\b|\bbuy now\b|\bshop now\b|\bflash sale\b)"
)
NEWSLETTER_WORDS = re.compile(r"\b(newsletter|digest|briefing|bulletin|weekly roundup|top stories)")
SHIPPING_WORDS = re.compile(
    r"\b(out for delivery|has shipped|shipped|shipping|shipment|tracking|track your|"
    r"delivery|delivered|dispatched|on its way|parcel|package|"
    r"env[ií]o|enviado|paquete|entrega|reparto|sendung|paket|lieferung|versandt|zugestellt|"
    r"colis|livraison|exp[ée]di[ée]|encomenda|pacote|spedizione|pacco|consegna)\b"
)
RECEIPT_WORDS = re.compile(
    r"\b(receipt|invoice|order confirmation|your order|order #|payment received|"
    r"purchase confirmation|billing statement|thanks for your (order|purchase)|"
    r"factura|facture|rechnung|fatura|recibo|re[çc]u|quittung|ricevuta|fattura|"
    r"nota fiscal|beleg)\b"
)
SERVICE_WORDS = {
    "bot",
    "bots",
    "receipts",
    "receipt",
    "pipelines",
    "pipeline",
    "team",
    "support",
    "notifications",
    "notification",
    "alerts",
    "alert",
    "news",
    "newsletter",
    "store",
    "shop",
    "service",
    "services",
    "app",
    "inc",
    "ltd",
    "llc",
    "gmbh",
    "sa",
    "bank",
    "updates",
    "info",
    "digest",
    "mail",
    "mailer",
    "billing",
    "orders",
    "security",
    "account",
    "accounts",
    "system",
    "admin",
    "cloud",
    "status",
    "jobs",
    "careers",
    "community",
    "sales",
    "payments",
    "pay",
    "delivery",
    "express",
    "airlines",
    "airways",
    "tours",
    "travel",
    "hotel",
    "hotels",
    "insurance",
    "energy",
    "group",
    "labs",
    "studio",
    "media",
    "online",
    "club",
    "office",
}
SOCIAL_LABELS = {"CATEGORY_SOCIAL"}
VIDEO_LINK = re.compile(
    r"(meet\.google\.com|zoom\.us|teams\.microsoft\.com|teams\.live\.com|webex\.com|"
    r"whereby\.com|jit\.si|gotomeeting|bluejeans|chime\.aws|facetime|https?://)",
    re.I,
)


def fold(text: str | None) -> str:
    """Lower-case without accents, for matching."""
    decomposed = unicodedata.normalize("NFKD", text or "")
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


@lru_cache(maxsize=4096)
def words(text: str | None) -> tuple[str, ...]:
    return tuple(_WORD.findall(fold(text)))


def address_parts(address: str | None) -> tuple[str, tuple[str, ...]]:
    """(local part, domain labels split on dots and dashes)."""
    if not address or "@" not in address:
        return "", ()
    local, _, domain = fold(address).rpartition("@")
    return local, tuple(p for p in re.split(r"[.\-]", domain) if p)


def is_bulk(e: Event) -> bool:
    precedence = fold(e.headers.get("Precedence"))
    return bool(e.headers.get("List-Unsubscribe")) or precedence in ("bulk", "list", "junk")


def is_auto_submitted(e: Event) -> bool:
    value = fold(e.headers.get("Auto-Submitted"))
    return bool(value) and value != "no"


def _text(e: Event) -> str:
    return fold(f"{e.subject or ''} {e.text}")


def is_promotion(e: Event) -> bool:
    if "CATEGORY_PROMOTIONS" in e.labels:
        return True
    return e.source == "email" and is_bulk(e) and bool(PROMO_WORDS.search(_text(e)))


def is_newsletter(e: Event) -> bool:
    if e.source != "email":
        return False
    sender = fold(e.sender.name if e.sender else "")
    if NEWSLETTER_WORDS.search(_text(e)) or NEWSLETTER_WORDS.search(sender):
        return True
    return is_bulk(e) and not is_promotion(e)


def is_social(e: Event) -> bool:
    return e.source == "email" and bool(SOCIAL_LABELS & set(e.labels))


def is_shipping(e: Event) -> bool:
    """A shipping notice; a person writing about a delivery is not one."""
    return e.source == "email" and bool(SHIPPING_WORDS.search(_text(e))) and not is_person(e)


def is_receipt(e: Event) -> bool:
    """A receipt or invoice notice; a person asking about an invoice is not one."""
    return e.source == "email" and bool(RECEIPT_WORDS.search(_text(e))) and not is_person(e)


def is_spam(e: Event) -> bool:
    return "SPAM" in e.labels


def looks_like_person_name(name: str | None) -> bool:
    """ "Nadia Kim", "Sven", "Dr. Anna Weiss" yes; "DocuSign", "CircleCI", "H&M" no."""
    if not name:
        return False
    tokens = [t for t in re.split(r"[\s-]+", name.strip()) if t]
    if not tokens or len(tokens) > 5:
        return False
    if {fold(t.strip(".,'’()")) for t in tokens} & SERVICE_WORDS:
        return False
    for token in tokens:
        core = token.strip(".,'’()")
        if not core or not core[0].isalpha() or not core[0].isupper():
            return False
        if any(c.isdigit() for c in core) or "&" in core:
            return False
        if sum(1 for c in core[1:] if c.isupper()) > 0 and not core.isupper():
            return False  # CamelCase brand (DocuSign, CircleCI)
        if core.isupper() and len(core) > 2:
            return False  # an acronym
    return True


def is_automated(e: Event) -> bool:
    """Written by a system (CI, monitoring, notifications), not by a person. A notification
    sent on a person's behalf ("Fatima Al-Mansouri <notifications@github.com>") is not."""
    if e.source != "email":
        return False
    name = e.sender.name if e.sender else None
    on_behalf = looks_like_person_name(name) and len((name or "").split()) >= 2
    if is_auto_submitted(e) and not on_behalf:
        return True
    local, _ = address_parts(e.sender.address if e.sender else None)
    return bool(local) and bool(AUTOMATED_LOCAL_PARTS.match(local)) and not on_behalf


def is_person(e: Event) -> bool:
    """A human wrote it: WhatsApp messages, and emails from a person-like sender (also when a
    service sends it on their behalf) that no automation signal marks as a system."""
    if e.source == "whatsapp":
        return True
    if e.source != "email" or e.sender is None:
        return False
    if is_automated(e) or is_social(e) or "CATEGORY_PROMOTIONS" in e.labels:
        return False
    name, address = e.sender.name, e.sender.address
    local, domain = address_parts(address)
    if looks_like_person_name(name):
        name_words = set(words(name))
        local_words = set(re.split(r"[._\-+0-9]+", local)) - {""}
        return (
            bool(name_words & local_words)
            or bool(set(domain) & set(PERSONAL_FREE_MAIL))
            or (len(name_words) >= 2)
        )
    return False


VIDEO_WORDS = re.compile(
    r"\b(zoom|teams|google meet|meet|webex|skype|hangouts?|whereby|"
    r"jitsi|video ?call|online|virtual)\b",
    re.I,
)


def is_video_call(e: Event) -> bool:
    cal = e.calendar
    if cal is None:
        return False
    location = cal.location or ""
    return bool(
        VIDEO_LINK.search(location)
        or VIDEO_WORDS.search(location)
        or (not location.strip() and VIDEO_LINK.search(e.text))
        or any(k in e.refs for k in ("hangout_link", "conference_uri", "video_link"))
    )


def is_in_person(e: Event) -> bool:
    cal = e.calendar
    return cal is not None and bool((cal.location or "").strip()) and not is_video_call(e)


CATEGORY_TESTS = {
    "newsletter": is_newsletter,
    "promotion": is_promotion,
    "social": is_social,
    "automated": is_automated,
    "shipping": is_shipping,
    "receipt": is_receipt,
    "person": is_person,
    "bulk": is_bulk,
}


def categories(e: Event) -> set[str]:
    return {name for name, test in CATEGORY_TESTS.items() if test(e)}
