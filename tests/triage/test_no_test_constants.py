"""No constant of the engine comes from a test set.

Every sender domain written anywhere in ``tests/`` (the labelled sets, fixtures, the tests
themselves) is looked for in ``engine/``, as a whole domain ("zenchef.com") or as the name
part of one used like a constant (a quoted string, an item of a pattern's alternatives,
a domain in a docstring). A match is allowed only when it is a general entry: a platform of
the classifier's documented platform registry (``signals._platforms``: GitHub, Zendesk,
…), its list of public mail providers people write from (``signals.FREE_MAIL``), a mail
provider or public office every user may get mail from, or an ordinary word
that happens to be a domain's name ("booking", "school"). Anything else — a made-up firm,
a person's domain, a spoofing domain a test was written with — fails here, so a figure
measured on a set is never reached by teaching the engine that set's senders.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from engine.triage.classifier import signals, spam
from engine.triage.language import phrases

ROOT = Path(__file__).resolve().parents[2]
EMAIL = re.compile(r"[\w.+-]+@([a-z0-9-]+(?:\.[a-z0-9-]+)+)", re.I)
SUFFIXES = {
    "com", "org", "net", "io", "dev", "es", "de", "fr", "it", "pt", "br", "uk", "co", "info",
    "eu", "me", "app", "ai", "studio", "ch", "at", "nl", "be", "jp", "in", "ng", "ae", "us",
    "top", "xyz", "edu", "gov", "example", "ac", "mx", "ar", "ie", "se", "no", "dk", "fi",
    "pl", "cz", "ru", "cn", "au", "nz", "ca", "za", "gr", "tr", "biz", "online", "shop",
    "store", "site", "email", "invalid", "test", "local", "localhost", "help", "support",
    "tech", "cloud", "live", "news", "agency", "legal", "bank",
}  # fmt: skip

PROVIDERS_AND_OFFICES = {
    # mail providers and telecoms users write from
    "gmail", "googlemail", "google", "outlook", "hotmail", "live", "yahoo", "icloud", "proton",
    "protonmail", "fastmail", "posteo", "gmx", "libero", "laposte", "orange", "btinternet",
    "eircom", "microsoft", "apple", "web",  # WEB.DE
    # public offices and services whose mail every resident may get
    "gouv", "urssaf", "seg-social", "redsara", "correios", "royalmail", "fedex", "seur", "hmrc",
    "myhermes", "whatsapp", "inps",  # Italy's social security
    "sparkasse",  # Germany's public savings banks: an organisation word of the classifier
    "bill",  # the word itself, a cue of bills in the classifier's lexicon (Bill.com sends them)
    "police",  # the word itself, a cue of an emergency told to a group (language data)
    "water",  # the word itself, in "water bill" (Ireland's water utility writes from water.ie)
    # services of a kind the classifier documents beside its registry
    "docusign", "dropbox", "zoom", "substack", "paypal", "booking", "tripadvisor",
    "thefork", "zenchef", "cliniko", "doctify", "aliexpress", "temu", "temuemail",
    "discoursemail", "atlassian", "getsentry", "dtdg", "pagerduty", "linear", "facebookmail",
    "instagram", "linkedin", "quora", "strava", "meetup", "behance", "crates",
}  # fmt: skip
"""Real, public senders: general entries, not a test's invention."""

ORDINARY_WORDS = {
    "email", "list", "news", "work", "school", "travel", "weekly", "digest", "spam", "other",
    "watch", "imap", "delta", "medium", "messe", "servizi", "cartorio", "orange", "post",
    "booking", "uber", "bahn", "home", "state", "acesso", "tikkie", "subito", "miro", "target",
}  # fmt: skip
"""Words of the engine's vocabularies (or of its code) that are also a test domain's name:
"state" (travel.state.gov), "acesso" (Portuguese for a sign-in, acesso.gov.br), "tikkie"
(Dutch for a payment request, the scam table's word, tikkie.me), "subito" (Italian for "at
once", subito.it), "miro" (Spanish for "I look", miro.com), "target" (a word of the code: a
link's target, a backup's target; target.com)."""


RESERVED = {"127.0.0.1", "g.us", "s.whatsapp.net", "example.com", "example.org", "example.net"}
"""Loopback, WhatsApp's own id domains, the reserved example domains."""


def _label(domain: str, shortest: int = 4) -> str | None:
    """The name part of a domain: its last label is the top-level domain, whatever it is
    ("folkspace.social"), and a second level such as "co.uk" is skipped too. A name shorter
    than ``shortest`` is too common a word to look for alone (None)."""
    parts = domain.lower().split(".")[:-1]
    while parts and parts[-1] in SUFFIXES:
        parts.pop()
    return parts[-1] if parts and len(parts[-1]) >= shortest else None


def _test_domains() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "tests").rglob("*"):
        if path.is_file() and path.suffix in {".jsonl", ".json", ".md", ".py", ".eml", ".txt"}:
            text = path.read_text(encoding="utf-8", errors="replace")
            found |= {d.lower() for d in EMAIL.findall(text)}
            if path.suffix == ".jsonl":
                for line in text.splitlines():
                    try:
                        found |= _domains_in(json.loads(line))
                    except ValueError:
                        continue
    return found


def _domains_in(value: object) -> set[str]:
    if isinstance(value, dict):
        return {d for v in value.values() for d in _domains_in(v)}
    if isinstance(value, list):
        return {d for v in value for d in _domains_in(v)}
    if isinstance(value, str):
        return {d.lower() for d in EMAIL.findall(value)}
    return set()


def _engine_sources() -> dict[str, str]:
    return {
        str(p.relative_to(ROOT)): p.read_text(encoding="utf-8").lower()
        for p in (ROOT / "engine").rglob("*")
        if p.is_file() and p.suffix in {".py", ".toml", ".md", ".json"}
    }


def impersonated_brands() -> set[str]:
    """The brands phishing borrows (``spam.IMPERSONATED_BRANDS``, a documented list of
    public brands) and the domain names that are their own."""
    return {name for _, own in spam.IMPERSONATED_BRANDS.values() for name in own}


def payment_apps() -> set[str]:
    """The payment apps whose name says a payment received (``kinds.money_in_apps`` of the
    language data, a documented list of public services: Bizum, Pix, MB Way, …)."""
    return {p.replace(" ", "") for p in phrases("kinds.money_in_apps")}


def allowed() -> set[str]:
    general = set(signals.registered_platforms()) | impersonated_brands() | signals.FREE_MAIL
    return general | PROVIDERS_AND_OFFICES | ORDINARY_WORDS | payment_apps()


WHOLE = re.compile(r"(?<![\w.-])((?:[a-z0-9-]+\.)+[a-z]{2,})(?![\w-])")
CONSTANT = re.compile(r"[\"'|(]([a-z0-9-]{4,})[\"'|)]|(?<![\w.-])([a-z0-9-]{4,})\.[a-z]{2,}\b")


def test_the_engine_holds_no_sender_domain_of_the_tests() -> None:
    domains = _test_domains() - RESERVED
    assert len(domains) > 200  # the sets are read: a broken scan would pass anything
    ok = allowed()
    # a whole domain is a constant even when its name is an ordinary word ("uber.com")
    named = (
        set(signals.registered_platforms())
        | impersonated_brands()
        | signals.FREE_MAIL
        | PROVIDERS_AND_OFFICES
    )
    found: list[str] = []
    for path, text in _engine_sources().items():
        whole = set(WHOLE.findall(text))
        constants = {a or b for a, b in CONSTANT.findall(text)}
        for domain in domains:
            label = _label(domain)
            if domain in whole and _label(domain, shortest=1) not in named:
                found.append(f"{path}: {domain}")
            elif label not in ok and label is not None and label in constants:
                found.append(f"{path}: {label} (from {domain})")
    assert not found, "engine/ holds senders from the tests:\n" + "\n".join(sorted(set(found)))


def test_the_allowed_entries_are_real_and_few() -> None:
    """The allowance is a short, reviewed list: a test set's invention cannot hide in it."""
    assert len(PROVIDERS_AND_OFFICES | ORDINARY_WORDS) < 120
    assert all("-" not in w or w == "seg-social" for w in PROVIDERS_AND_OFFICES)
