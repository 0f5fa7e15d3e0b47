"""Clearly spam: what the provider said, what the sender's authentication says, and what
only spam says, each with its reason in plain words.

A message is judged spam only on evidence a reader would accept as clear: the mail
provider's own verdict (a spam label, ``X-Spam-Flag``, a junk folder, a subject tagged
``[SPAM]``); a domain that fails its own authentication while the display name claims a
person or a brand; or wording that only scams and spam use, each needing a second sign
(an advance-fee story *and* a sum in the millions, a prize *and* a link or card details,
credentials asked for *and* a link that hides where it leads). Advertising wording
is never enough from a sender that mails like a real list (``List-Unsubscribe``), and
elsewhere it takes two of its phrases and a link away, or three: a shop's newsletter is a
promotion, not spam, so an Always line for that shop still holds.
The phrases are language data (``scam`` tables of ``engine.triage.language``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Final

from engine.events import Event
from engine.triage.classifier.text import fold, registrable

URL_HOST = re.compile(r"(?:https?://|\bwww\.)([a-z0-9][a-z0-9.\-]*\.[a-z]{2,})", re.IGNORECASE)
SHORTENERS: Final[frozenset[str]] = frozenset(
    {
        "bit.ly",
        "tinyurl.com",
        "goo.gl",
        "t.co",
        "ow.ly",
        "is.gd",
        "buff.ly",
        "rebrand.ly",
        "cutt.ly",
        "shorturl.at",
        "tiny.cc",
        "rb.gy",
    }
)
"""Public link shorteners: a link through one hides where it leads."""

IMPERSONATED_BRANDS: Final[dict[str, tuple[str, frozenset[str]]]] = {
    fold(brand): (brand, frozenset(own))
    for brand, own in (
        ("Google", ("google", "googlemail", "gmail", "youtube", "withgoogle")),
        ("Gmail", ("google", "googlemail", "gmail")),
        ("Microsoft", ("microsoft", "microsoftonline", "office", "office365", "outlook", "live")),
        ("Outlook", ("microsoft", "office", "office365", "outlook", "live")),
        ("Office 365", ("microsoft", "office", "office365", "outlook")),
        ("Apple", ("apple", "icloud", "me")),
        ("iCloud", ("apple", "icloud")),
        ("PayPal", ("paypal",)),
        ("Amazon", ("amazon",)),
        ("Netflix", ("netflix",)),
        ("Facebook", ("facebook", "facebookmail", "meta")),
        ("Instagram", ("instagram", "facebookmail", "meta")),
        ("WhatsApp", ("whatsapp", "facebookmail", "meta")),
        ("LinkedIn", ("linkedin",)),
        ("DocuSign", ("docusign",)),
        ("Dropbox", ("dropbox", "dropboxmail")),
        ("Adobe", ("adobe",)),
        ("DHL", ("dhl",)),
        ("FedEx", ("fedex",)),
        ("IRS", ("irs",)),
    )
}
"""The brands phishing borrows most (the public brand-phishing reports), each with the
registered domain names that are really its own."""

SPAM_SUBJECT_TAG = re.compile(r"^\W*(?:\*+|\[|\(|\{)\s*spam\b", re.IGNORECASE)
"""A subject a filter has rewritten: "*****SPAM*****", "[SPAM] …", "{Spam?} …"."""

GTUBE = "XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X"
"""The standard test string every spam filter must catch (SpamAssassin's GTUBE)."""

_AUTH_RESULT = re.compile(r"\b(spf|dkim|dmarc)\s*=\s*([a-z]+)", re.IGNORECASE)
_LARGE_SUM = re.compile(
    r"\d{1,3}(?:[.,\u00a0 ]\d{3}){2,}(?:[.,]\d{2})?"
    r"|[$\u20ac\u00a3]\s?\d{7,}|\d{7,}\s?(?:usd|eur|gbp)\b"
)
"""A sum of a million or more, written in figures: "$1,500,000.00", "2.500.000 EUR" (a
bare run of digits is an invoice or order number, not a sum)."""


@dataclass(frozen=True)
class SpamCues:
    transfer: re.Pattern[str]
    millions: re.Pattern[str]
    prize: re.Pattern[str]
    pharmacy: re.Pattern[str]
    advertising: re.Pattern[str]
    card_details: re.Pattern[str]
    credentials: re.Pattern[str]
    junk_folders: frozenset[str]


@cache
def cues() -> SpamCues:
    # read on first use: the language package folds with this package's ``fold``
    from engine.triage.language import phrase_pattern, phrases

    def rx(key: str) -> re.Pattern[str]:
        return re.compile(phrase_pattern(f"scam.{key}"))

    return SpamCues(
        transfer=rx("transfer"),
        millions=rx("millions"),
        prize=rx("prize"),
        pharmacy=rx("pharmacy"),
        advertising=rx("advertising"),
        card_details=rx("card_details"),
        credentials=rx("credentials"),
        junk_folders=frozenset(phrases("scam.junk_folders")),
    )


def provider_verdict(e: Event) -> str | None:
    """The mail provider's or server's own spam verdict, if it gave one."""
    if "SPAM" in e.labels:
        return "the provider labelled it SPAM"
    flags = {label.lower() for label in e.labels}
    if flags & {"$junk", "junk"} and "$notjunk" not in flags:
        return "the mail program flagged it as junk"
    flag = fold(e.headers.get("X-Spam-Flag"))
    if flag.startswith("yes"):
        return "the mail server's filter flagged it (X-Spam-Flag: YES)"
    status = fold(e.headers.get("X-Spam-Status"))
    if status.startswith("yes"):
        return "the mail server's filter judged it spam (X-Spam-Status: Yes)"
    folder = e.refs.get("folder")
    if isinstance(folder, str) and _is_junk_folder(folder):
        return f"it is in the junk folder \u201c{folder}\u201d"
    if GTUBE in (e.text or ""):
        return "it holds the standard spam test string (GTUBE)"
    if SPAM_SUBJECT_TAG.match(e.subject or ""):
        return f"the subject is tagged as spam (\u201c{(e.subject or '')[:40]}\u201d)"
    return None


def _is_junk_folder(folder: str) -> bool:
    last = re.split(r"[/.]", folder)[-1]
    return fold(last) in cues().junk_folders


def failed_authentication(e: Event) -> str | None:
    """The sender's domain failed the receiving server's checks: DMARC failed, or SPF
    failed without a passing DKIM signature (``Authentication-Results``)."""
    header = e.headers.get("Authentication-Results")
    if not header:
        return None
    results: dict[str, set[str]] = {}
    for method, verdict in _AUTH_RESULT.findall(header):
        results.setdefault(method.lower(), set()).add(verdict.lower())
    if "fail" in results.get("dmarc", set()):
        return "its domain failed DMARC authentication"
    if "fail" in results.get("spf", set()) and "pass" not in results.get("dkim", set()):
        return "its domain failed SPF authentication with no valid DKIM signature"
    return None


def link_hosts(e: Event) -> list[str]:
    """The hosts the message's links lead to: from its text and, where the source kept
    them, the links of its HTML (``refs["links"]``)."""
    hosts = [h.lower().rstrip(".") for h in URL_HOST.findall(e.text or "")]
    kept = e.refs.get("links")
    if isinstance(kept, list):
        hosts += [str(h).lower() for h in kept if isinstance(h, str)]
    return list(dict.fromkeys(hosts))


def foreign_link(e: Event, sender_domain: str, *, hidden_only: bool = False) -> str | None:
    """A link that leads away from the sender: through a shortener, to a bare address,
    or (unless ``hidden_only``) to another registered domain than the sender's. With no
    sender address to compare with, any link leads away."""
    own = registrable(sender_domain) if sender_domain else ""
    for host in link_hosts(e):
        if host in SHORTENERS or registrable(host) in SHORTENERS:
            return f"a link through the shortener {host}"
        if re.fullmatch(r"[\d.]+", host):
            return f"a link to the bare address {host}"
        if not own:
            return f"a link to {host} from a sender with no address"
        if not hidden_only and registrable(host) != own:
            return f"a link to {host}, not the sender's domain"
    return None


def _said(pattern: re.Pattern[str], text: str) -> str | None:
    m = pattern.search(text)
    return m.group(0) if m else None


def scam_wording(e: Event, text: str, sender_domain: str, mails_like_a_list: bool) -> str | None:
    """What only scams and spam say, each with its second sign. ``text`` is folded
    subject and body."""
    c = cues()
    transfer = _said(c.transfer, text)
    if transfer and (_LARGE_SUM.search(text) or c.millions.search(text)):
        return f"an advance-fee scam (\u201c{transfer}\u201d and a sum in the millions)"
    link = foreign_link(e, sender_domain)
    prize = _said(c.prize, text)
    card = _said(c.card_details, text)
    if prize and card:
        return f"a prize scam (\u201c{prize}\u201d, and asks for \u201c{card}\u201d)"
    if prize and link and not mails_like_a_list:
        return f"a prize scam (\u201c{prize}\u201d, with {link})"
    credentials = _said(c.credentials, text)
    hidden = foreign_link(e, sender_domain, hidden_only=True)
    if credentials and hidden:
        # a real service's password mail links to its own (or its mailer's) domain; one
        # that hides where it leads is asking for the password for someone else
        return f"credential phishing (\u201c{credentials}\u201d with {hidden})"
    if mails_like_a_list:
        return None  # a real list's newsletter: a promotion at most
    pharmacy = _said(c.pharmacy, text)
    if pharmacy and link:
        return f"pharmacy spam (\u201c{pharmacy}\u201d)"
    adverts = list(dict.fromkeys(m.group(0) for m in c.advertising.finditer(text)))
    if (len(adverts) >= 2 and link) or len(adverts) >= 3:
        said = ", ".join(f"\u201c{a}\u201d" for a in adverts[:3])
        return f"unsolicited advertising ({said}{' and ' + link if link else ''})"
    return None


def brand_impersonation(
    e: Event, sender_name: str, sender_domain: str, text: str, about_account: bool
) -> str | None:
    """A message about the reader's account, password or money that names a brand it does
    not come from: the brand in the sender's name or the subject, or "your <brand>
    account" in the text, while the sender's domain is none of the brand's own. ``text``
    is folded subject and body."""
    own = registrable(sender_domain).split(".")[0] if sender_domain else ""
    claims = f"{fold(sender_name)}\n{fold(e.subject)}"
    for brand, (label, domains) in IMPERSONATED_BRANDS.items():
        if own in domains:
            continue
        named = re.search(rf"\b{brand}\b", claims) or re.search(
            rf"\byour {brand}(?: [a-z]+)? account\b|\({brand}\)", text
        )
        if named and about_account:
            where = sender_domain or "a sender with no address"
            return f"it speaks for {label} about the reader's account but comes from {where}"
    return None
