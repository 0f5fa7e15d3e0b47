"""The common mail providers' IMAP settings, as data (``providers.toml`` beside this module):
the Email (IMAP) dialog offers them, and picks one from the address typed. A preset only
fills the fields; the user may change any of them, or type a server of their own."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources

SECURITY = ("ssl", "starttls")


@dataclass(frozen=True)
class MailProvider:
    name: str
    host: str
    port: int
    security: str  # "ssl" (implicit TLS) or "starttls"
    domains: tuple[str, ...]
    password: str  # where to make the password TIC should be given
    link: str | None = None

    @property
    def ssl(self) -> bool:
        return self.security == "ssl"

    @property
    def starttls(self) -> bool:
        return self.security == "starttls"


def _provider(table: dict[str, object]) -> MailProvider:
    domains = table.get("domains", [])
    provider = MailProvider(
        name=str(table["name"]),
        host=str(table["host"]),
        port=int(str(table["port"])),
        security=str(table["security"]),
        domains=tuple(str(d).lower() for d in domains) if isinstance(domains, list) else (),
        password=str(table["password"]),
        link=str(table["link"]) if table.get("link") else None,
    )
    if provider.security not in SECURITY:
        raise ValueError(f"{provider.name}: security must be one of {SECURITY}")
    return provider


@cache
def mail_providers() -> tuple[MailProvider, ...]:
    """The presets, in the order the dialog shows them."""
    text = resources.files("engine.sources.mail").joinpath("providers.toml").read_text("utf-8")
    tables = tomllib.loads(text).get("provider", [])
    return tuple(_provider(table) for table in tables)


def provider_for_address(address: str) -> MailProvider | None:
    """The provider an address belongs to by its domain ("anna@gmail.com" → Gmail); None
    for any other domain (a company's own server, say)."""
    _, at, domain = address.strip().rpartition("@")
    if not at:
        return None
    domain = domain.lower()
    return next((p for p in mail_providers() if domain in p.domains), None)
