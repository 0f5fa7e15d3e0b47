"""The IMAP presets: the common providers' servers as data, each with where to make the
password, and the provider an address's domain names."""

from __future__ import annotations

import pytest

from engine.sources.mail.providers import mail_providers, provider_for_address

EXPECTED = {
    "Gmail": "imap.gmail.com",
    "Outlook / Microsoft 365": "outlook.office365.com",
    "iCloud Mail": "imap.mail.me.com",
    "Yahoo Mail": "imap.mail.yahoo.com",
    "Fastmail": "imap.fastmail.com",
    "GMX": "imap.gmx.net",
    "WEB.DE": "imap.web.de",
}


def test_the_common_providers_are_there_with_their_servers() -> None:
    presets = mail_providers()
    assert {p.name: p.host for p in presets} == EXPECTED
    assert presets[0].name == "Gmail"  # the most common first
    for preset in presets:
        assert (preset.port, preset.security, preset.ssl) == (993, "ssl", True), preset.name
        assert preset.domains and preset.password.endswith("."), preset.name
        assert preset.link is None or preset.link.startswith("https://"), preset.name
    gmail = presets[0]
    assert gmail.link == "https://myaccount.google.com/apppasswords"
    assert "app password" in gmail.password and "2-Step Verification" in gmail.password


def test_no_domain_belongs_to_two_providers() -> None:
    domains = [d for p in mail_providers() for d in p.domains]
    assert len(domains) == len(set(domains))


@pytest.mark.parametrize(
    ("address", "name"),
    [
        ("anna.berg@gmail.com", "Gmail"),
        ("Anna.Berg@GoogleMail.com ", "Gmail"),
        ("tomas@hotmail.com", "Outlook / Microsoft 365"),
        ("mo@icloud.com", "iCloud Mail"),
        ("jo@yahoo.co.uk", "Yahoo Mail"),
        ("kim@fastmail.com", "Fastmail"),
        ("lena@gmx.de", "GMX"),
        ("jan@web.de", "WEB.DE"),
        ("office@brightwave-dental.test", None),
        ("not an address", None),
        ("", None),
    ],
)
def test_an_address_names_its_provider(address: str, name: str | None) -> None:
    found = provider_for_address(address)
    assert (found.name if found else None) == name
