"""The kinds of an event, each with the evidence for it: what rules and the built-in
judgement are decided on. Code only, no model: fast enough to run on every event.

A kind is specific: a receipt is a receipt (not a "status update"), a failed payment is a
billing problem (not a receipt), a gate change is a travel change. ``automated`` and
``person`` say who wrote it; a person's message through a service (a review request on
GitHub) is both."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Final, Literal

from engine.events import Event
from engine.triage.classifier import lexicon as lx
from engine.triage.classifier import signals as sg
from engine.triage.classifier import spam
from engine.triage.classifier.text import fold

Kind = Literal[
    "person",
    "asks",
    "urgent",
    "automated",
    "bot",
    "bulk",
    "newsletter",
    "mailing_list",
    "promotion",
    "receipt",
    "shipping",
    "billing_problem",
    "security",
    "account",
    "calendar",
    "calendar_change",
    "travel",
    "travel_change",
    "dev",
    "tracker",
    "monitoring",
    "incident",
    "hiring",
    "legal",
    "government",
    "support",
    "sales",
    "social",
    "product_update",
    "review",
    "event_invite",
    "publishing",
    "paper_decision",
    "booking",
    "reminder",
    "phishing",
    "organisation",
    "group_chatter",
    "group_alert",
    "noreply",
    "auto_reply",
    "login_code",
    "calendar_reply",
    "share",
    "money_in",
    "report",
    "delivery_today",
]

KIND_NAMES: Final[dict[str, str]] = {
    "person": "written by a person",
    "asks": "asking the user something",
    "urgent": "time-sensitive",
    "automated": "sent by an automated system or a company address",
    "bot": "sent by a bot, not by a person",
    "bulk": "bulk mail",
    "newsletter": "newsletters and digests",
    "mailing_list": "mailing-list posts",
    "promotion": "marketing and promotions",
    "receipt": "receipts, invoices and order confirmations",
    "shipping": "shipping and delivery notices",
    "billing_problem": "billing problems (failed payments, declined cards, overdue bills)",
    "security": "security and sign-in alerts",
    "account": "account and service notices",
    "calendar": "calendar events and invitations",
    "calendar_change": "calendar events that were moved or cancelled",
    "travel": "travel (flights, trains, bookings)",
    "travel_change": "travel changes (delays, cancellations, gate changes)",
    "dev": "code hosting and CI notifications",
    "tracker": "project tracker updates",
    "monitoring": "monitoring alerts",
    "incident": "on-call pages and incidents",
    "hiring": "recruiters and hiring",
    "legal": "legal matters and contracts",
    "government": "mail from government offices and tax authorities",
    "support": "customer-support tickets",
    "sales": "sales outreach and partnership pitches",
    "social": "social-network notifications",
    "product_update": "product updates and announcements",
    "review": "customer reviews",
    "event_invite": "invitations to conferences, fairs and webinars",
    "publishing": "journal mail (calls for papers, review invitations, new issues)",
    "paper_decision": "a journal's decision on a submitted paper",
    "booking": "reservations and bookings",
    "reminder": "reminders",
    "phishing": "phishing or spoofed senders",
    "organisation": "written from a company's or an office's address",
    "group_chatter": "a group message that does not name the user",
    "group_alert": "emergencies and changes for today or tomorrow told to a group",
    "noreply": "sent from a no-reply address",
    "auto_reply": "automatic replies (out of office)",
    "login_code": "sign-in and verification codes",
    "calendar_reply": "replies to meeting invitations (accepted, declined)",
    "share": "files, folders and albums shared with you",
    "money_in": "money you receive (transfers, Bizum, Pix…)",
    "report": "reports and summaries (daily, weekly)",
    "delivery_today": "deliveries arriving today",
}

GENERIC: Final[frozenset[str]] = frozenset({"automated", "bulk", "account", "bot"})
"""Kinds that only say a system sent it: a rule line about them does not swallow an event
another line names by a more specific kind."""

# Kinds a person writing directly is not: these are what services send.
SERVICE_KINDS: Final[frozenset[str]] = frozenset(
    {
        "receipt",
        "shipping",
        "promotion",
        "newsletter",
        "social",
        "product_update",
        "account",
        "review",
        "monitoring",
        "dev",
        "tracker",
        "incident",
        "publishing",
        "event_invite",
    }
)

NO_REPLY = re.compile(
    r"no[-_.]?reply|do[-_.]?not[-_.]?reply|donotreply|ne[-_.]?pas[-_.]?repondre|"
    r"nao[-_.]?respond|no[-_.]?respond|non[-_.]?rispondere|keine[-_.]?antwort"
)

PEOPLE = re.compile(
    r"(\d{1,3})\s*(?:personnes|personne|pers\b\.?|couverts?|people|persons|guests|pax|"
    r"personas|comensales|personen|gaste|pessoas|persone|coperti|convives)"
    r"|(?:groupe|group|grupo|gruppo|gruppe|party|table) (?:de |of |di |von |for |para |pour )?"
    r"(\d{1,3})"
    r"|(?:serions|sommes|serons|seremos|somos|seriamos|sind wir|waren wir|we are|we'll be|"
    r"we will be|siamo|saremmo|saremo|seremos) (\d{1,3})",
    re.I,
)


@dataclass(frozen=True)
class Classification:
    """An event's kinds with the evidence for each, and the party size it mentions."""

    kinds: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    party_size: int | None = None

    def has(self, kind: str) -> bool:
        return kind in self.kinds

    def evidence(self, kind: str) -> tuple[str, ...]:
        return self.kinds.get(kind, ())

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self.kinds)

    def describe(self) -> list[str]:
        """ "billing_problem: subject says “payment failed”", one a kind."""
        return [f"{k}: {'; '.join(v)}" for k, v in self.kinds.items()]


class _Found:
    def __init__(self) -> None:
        self.kinds: dict[str, list[str]] = {}

    def add(self, kind: str, why: str | None) -> None:
        if why:
            self.kinds.setdefault(kind, []).append(why)

    def has(self, kind: str) -> bool:
        return kind in self.kinds

    def drop(self, *kinds: str) -> None:
        for kind in kinds:
            self.kinds.pop(kind, None)


def _said(pattern: re.Pattern[str] | None, text: str, where: str) -> str | None:
    if pattern is None:
        return None
    m = pattern.search(text)
    return f"{where} says \u201c{m.group(0).strip()}\u201d" if m else None


def _cue(cues: lx.Cues, subject: str, body: str) -> str | None:
    return (
        _said(cues.subject, subject, "subject")
        or _said(cues.anywhere, subject, "subject")
        or _said(cues.anywhere, body, "text")
    )


CONTENT: Final[tuple[tuple[str, lx.Cues], ...]] = (
    ("billing_problem", lx.BILLING_PROBLEM),
    ("security", lx.SECURITY),
    ("receipt", lx.RECEIPT),
    ("shipping", lx.SHIPPING),
    ("account", lx.ACCOUNT),
    ("calendar", lx.CALENDAR),
    ("dev", lx.DEV),
    ("tracker", lx.TRACKER),
    ("monitoring", lx.MONITORING),
    ("incident", lx.INCIDENT),
    ("legal", lx.LEGAL),
    ("government", lx.GOVERNMENT),
    ("support", lx.SUPPORT),
    ("social", lx.SOCIAL),
    ("product_update", lx.PRODUCT_UPDATE),
    ("newsletter", lx.NEWSLETTER),
    ("promotion", lx.PROMOTION),
    ("review", lx.REVIEW),
    ("event_invite", lx.EVENT_INVITE),
    ("publishing", lx.PUBLISHING),
    ("paper_decision", lx.PAPER_DECISION),
    ("booking", lx.BOOKING),
)

TRANSACTIONAL: Final[frozenset[str]] = frozenset(
    {
        "billing_problem",
        "security",
        "receipt",
        "shipping",
        "account",
        "dev",
        "tracker",
        "monitoring",
        "incident",
        "travel",
        "booking",
        "support",
        "social",
        "review",
        "government",
        "legal",
        "paper_decision",
        "publishing",
        "calendar",
        "hiring",
    }
)


def classify(e: Event) -> Classification:
    found = _Found()
    if e.source == "email":
        _email(e, found)
    elif e.source == "whatsapp":
        who = e.sender.name if e.sender and e.sender.name else "someone"
        found.add("person", f"a WhatsApp message from {who}")
        if e.chat is not None and e.chat.is_group and not e.mentions_me:
            found.add("group_chatter", f"in the group {e.chat.name or ''}, not naming you")
            found.add("group_alert", _group_alert(fold(e.text)))
        else:
            _asks(fold(e.text), found)
        found.add("phishing", sg.new_number_scam(fold(e.text)))
    elif e.source == "calendar":
        _calendar(e, found)
    elif e.source == "cron":
        found.add("reminder", "a reminder you set up")
    if "SPAM" in e.labels and e.source != "email":
        found.add("phishing", "label SPAM")
    party = _party_size(f"{e.subject} {e.text}") if e.source != "calendar" else None
    if party is not None:
        found.add("booking", f"for a party of {party}")
    return Classification({k: tuple(v) for k, v in found.kinds.items()}, party)


def _party_size(text: str) -> int | None:
    sizes = [int(next(g for g in m if g)) for m in PEOPLE.findall(text or "")]
    return max(sizes) if sizes else None


def _calendar(e: Event, found: _Found) -> None:
    found.add("calendar", f"a calendar event ({e.event_type})")
    cal = e.calendar
    if e.event_type == "calendar.cancelled" or (cal is not None and cal.status == "cancelled"):
        found.add("calendar_change", "the event was cancelled")
    elif cal is not None and cal.previous_start is not None and cal.previous_start != cal.start:
        found.add("calendar_change", "the event was moved")
    if e.event_type == "calendar.reminder":
        found.add("reminder", "a calendar reminder")


def _asks(text: str, found: _Found) -> None:
    if lx.NO_ASK.search(text):
        return
    if "?" in text or "¿" in text:
        found.add("asks", "asks a question")
    else:
        found.add("asks", _said(lx.ASKS, text, "text"))
    found.add("urgent", _said(lx.URGENT, text, "text"))


@cache
def _group_cues() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    from engine.triage.language import phrase_pattern

    near = "|".join(
        phrase_pattern(f"dates.{k}")
        for k in ("today", "tomorrow", "this_morning", "this_afternoon", "this_evening")
    )
    return (
        re.compile(phrase_pattern("kinds.group_emergencies")),
        re.compile(phrase_pattern("kinds.group_changes")),
        re.compile(near),
    )


def _group_alert(text: str) -> str | None:
    """What makes a group message that names nobody worth an interruption: an emergency
    ("Grandma has had a fall, we're at A&E"), or a change or a disruption for today, tonight or
    tomorrow ("die Probe morgen fällt aus", "amanhã falta água das 8h às 14h"). Idle chatter,
    greetings and questions to everyone are neither."""
    emergency, change, near = _group_cues()
    if m := emergency.search(text):
        return f"says \u201c{m.group(0)}\u201d"
    said, when = change.search(text), near.search(_without_greetings(text))
    if said and when:
        return f"says \u201c{said.group(0)}\u201d for \u201c{when.group(0)}\u201d"
    return None


_GOOD_MORNING = re.compile(r"\b(?:guten|goede|schonen)\s+morgen\b")


def _without_greetings(text: str) -> str:
    """German and Dutch say tomorrow and morning with one word: "Guten Morgen" is no day."""
    return _GOOD_MORNING.sub(" ", text)


@cache
def _data_cues() -> dict[str, re.Pattern[str]]:
    """The cues of the kinds that are language data alone (``engine.triage.language``), read
    on first use (the data is folded with this package's ``fold``)."""
    from engine.triage.language import DATA_KINDS, phrase_pattern

    return {k: re.compile(phrase_pattern(f"kinds.{k}_cues")) for k in DATA_KINDS}


def _data_kinds(e: Event, subject: str, body: str, found: _Found) -> None:
    cues = _data_cues()
    if fold(e.headers.get("Auto-Submitted")) == "auto-replied" or e.headers.get("X-Autoreply"):
        found.add("auto_reply", "an automatic reply (its headers say so)")
    for kind, pattern in cues.items():
        m = pattern.search(subject) or pattern.search(body[:400])
        if m:
            found.add(kind, f"says \u201c{m.group(0)}\u201d")


def _email(e: Event, found: _Found) -> None:
    s = sg.Sender.of(e)
    subject, body = fold(e.subject), fold(e.text)
    labels = set(e.labels)
    _sender(e, s, labels, found)
    for kind, cues in CONTENT:
        found.add(kind, _cue(cues, subject, body))
    _data_kinds(e, subject, body, found)
    if not found.has("person"):
        found.add("newsletter", _said(NEWS_NAME, fold(s.name), "the sender's name"))
    travel = _said(lx.TRAVEL.anywhere, f"{subject}\n{body}", "text")
    if travel:
        found.add("travel", travel)
        found.add("travel_change", _said(lx.TRAVEL_CHANGE.anywhere, subject, "subject"))
        found.add("travel_change", _said(lx.TRAVEL_CHANGE_TEXT, body[:400], "text"))
    _settle(e, s, subject, body, labels, found)


def _sender(e: Event, s: sg.Sender, labels: set[str], found: _Found) -> None:
    """Who wrote it: a person, a service on a person's behalf, or a system."""
    for why in sg.bulk_headers(e):
        found.add("bulk", why)
    found.add("bulk", sg.bulk_domain(s))
    for label, kind in (
        ("CATEGORY_PROMOTIONS", "promotion"),
        ("CATEGORY_SOCIAL", "social"),
        ("CATEGORY_FORUMS", "mailing_list"),
    ):
        if label in labels:
            found.add(kind, f"label {label}")
    strict = [
        sg.auto_submitted(e),
        sg.automated_address(s),
        "label CATEGORY_UPDATES" if "CATEGORY_UPDATES" in labels else None,
        *[f"label {x}" for x in ("CATEGORY_PROMOTIONS", "CATEGORY_SOCIAL") if x in labels],
    ]
    bulk = [*sg.bulk_headers(e), sg.bulk_domain(s)]
    via = sg.via_service(s.name)
    person_name = sg.person_part(s.name) if via else s.name
    is_person_name = sg.looks_like_person_name(person_name) and not sg.brand_name(s, person_name)
    if re.search(r"\bbot\b|\[bot\]|bot$", fold(s.name)) or re.match(r"^bot\b", s.local):
        found.add("bot", f"a bot account ({s.name or s.address})")
        is_person_name = False
    machine = [w for w in strict if w]
    if via and is_person_name:
        found.add("person", f"{person_name}, through a service")
        found.add("automated", via)
    elif is_person_name and sg.automated_address(s) and len(person_name.split()) >= 2:
        found.add("person", f"{person_name}, through {s.domain}")
        found.add("automated", f"sent by {s.domain} on their behalf")
    elif (
        is_person_name
        and not machine
        and not sg.role_address(s)
        and not sg.bulk_domain(s)
        and _personal(s, person_name)
    ):
        found.add("person", f"{person_name} <{s.address}>")
    elif machine or any(bulk) or sg.platform(s):
        for why in [*machine, *(w for w in bulk if w)] or [f"{s.domain}: a service's domain"]:
            found.add("automated", why)
    else:
        found.add("organisation", sg.role_address(s) or f"{s.name or s.address} is not a person")
    if not found.has("person") and found.has("automated"):
        found.add("bot", "no person behind it")
    if NO_REPLY.search(s.local):
        found.add("noreply", f"no-reply address {s.address}")
    gov = sg.government(s)
    if gov:
        found.add("government", gov)


def _personal(s: sg.Sender, name: str) -> bool:
    """A person-like name at an address that fits it (their name, or a personal webmail)."""
    if sg.name_in_address(name, s.local):
        return True
    if s.registered in sg.FREE_MAIL:
        return True
    return len(name.split()) >= 2 and not sg.bulk_domain(s)


def _spam(e: Event, s: sg.Sender, text: str, found: _Found) -> str | None:
    """Why the message is clearly spam (``spam``), if it is; the provider's own verdict
    first. A failed authentication counts when the name claims a person or a brand."""
    verdict = spam.provider_verdict(e)
    if verdict:
        return verdict
    failed = spam.failed_authentication(e)
    if failed and s.name and (found.has("person") or sg.brand_name(s, s.name) or sg.platform(s)):
        return f"{failed} while the name says \u201c{s.name}\u201d"
    scam = spam.scam_wording(e, text, s.domain, bool(sg.bulk_headers(e)))
    if scam or found.has("person"):
        return scam
    about_account = (
        any(found.has(k) for k in ("security", "account", "billing_problem"))
        or spam.cues().credentials.search(text) is not None
        or lx.PAYMENT_REQUEST.search(text) is not None
    )
    return spam.brand_impersonation(e, s.name, s.domain, text, about_account)


def _settle(
    e: Event, s: sg.Sender, subject: str, body: str, labels: set[str], found: _Found
) -> None:
    """Make the kinds specific and consistent once every cue is read."""
    text = f"{subject}\n{body}"
    found.add("phishing", sg.phishing(e, s, text))
    found.add("phishing", _spam(e, s, text, found))
    if e.headers.get("List-Id") and found.has("person") and not found.has("dev"):
        found.add("mailing_list", "header List-Id on a person's post")
    if found.has("person"):
        _asks(text, found)
    if found.has("person") and not found.has("automated"):
        _direct(s, text, found)
        return
    found.add("hiring", _said(lx.HIRING.anywhere, text, "text"))
    found.add("sales", _said(lx.SALES.anywhere, text, "text"))
    if found.has("billing_problem"):
        found.drop("receipt")
    shipping_subject = _said(lx.SHIPPING.subject, subject, "subject")
    receipt_subject = _said(lx.RECEIPT.subject, subject, "subject")
    if shipping_subject and found.has("receipt"):
        found.drop("receipt")
    elif receipt_subject and found.has("shipping") and not shipping_subject:
        found.drop("shipping")
    if found.has("travel_change") or (found.has("travel") and not found.has("receipt")):
        found.drop("shipping")
    if found.has("security"):
        found.drop("account", "dev", "social", "receipt")
    if found.has("paper_decision"):
        found.drop("publishing", "event_invite")
    if found.has("incident"):
        found.drop("monitoring")
    for kind in ("dev", "tracker", "monitoring"):
        if found.has(kind) and not found.has("security"):
            found.drop("account")
    if found.has("mailing_list") and (found.has("dev") or found.has("tracker")):
        found.drop("mailing_list")
    _platform(s, found)
    if found.has("promotion") and all(
        w.endswith(" is a parcel carrier") for w in found.kinds.get("shipping", ())
    ):
        found.drop("shipping")  # a carrier's marketing names no parcel: no shipping notice
    _bulk_default(s, found)


def _direct(s: sg.Sender, text: str, found: _Found) -> None:
    """A person writing directly: what services send is not what this is; hiring and sales
    pitches need two signs, since people ask for calls and mention roles all the time."""
    found.drop(*SERVICE_KINDS)
    for kind, cues in (("hiring", lx.HIRING), ("sales", lx.SALES)):
        hits = {m.group(0) for m in cues.anywhere.finditer(text)} if cues.anywhere else set()
        on_domain = sg.platform(s)
        count = len(hits) + (1 if on_domain and on_domain[0] == kind else 0)
        if count >= 2:
            found.add(kind, f"{count} signs of {KIND_NAMES[kind]}")


def _platform(s: sg.Sender, found: _Found) -> None:
    """A well-known service's kind, when what it says names no more specific one."""
    known = sg.platform(s)
    if known is None:
        return
    kind, why = known
    if kind == "dev":
        return  # a code host sends sponsorships, receipts, security mail too: content decides
    specific = set(found.kinds) & (TRANSACTIONAL - {"account"})
    if kind == "social" or not specific or kind in specific:
        found.add(kind, why)
        if kind == "social":
            found.drop("account", "product_update")


NEWS_NAME = re.compile(r"\b(?:newsletter|digest|weekly|briefing|bulletin|boletin|rundbrief)\b")
NEWS_LOCAL = re.compile(
    r"^(?:news|newsletters?|digest|briefing|bulletin|weekly|boletin|[\w.-]*news)$"
)
PROMO_LOCAL = re.compile(
    r"^(?:offers?|ofertas|angebote|offres|promo(?:tions?)?|deals|marketing|sales|shop|store|"
    r"hello|team)$"
)


def _bulk_default(s: sg.Sender, found: _Found) -> None:
    """Mail sent in bulk that says nothing transactional is marketing or a newsletter."""
    if found.has("newsletter") or found.has("promotion") or found.has("mailing_list"):
        return
    if NEWS_LOCAL.match(s.local):
        found.add("newsletter", f"newsletter address {s.local}@")
        return
    if set(found.kinds) & (TRANSACTIONAL | {"product_update", "event_invite", "sales"}):
        return
    if PROMO_LOCAL.match(s.local) and found.has("bulk"):
        found.add("promotion", f"marketing address {s.local}@ sending bulk mail")
    elif found.has("bulk") and not found.has("person"):
        found.add("newsletter", "bulk mail with nothing transactional in it")
    elif PROMO_LOCAL.match(s.local) and s.local in ("offers", "ofertas", "angebote", "offres"):
        found.add("promotion", f"marketing address {s.local}@")
