"""The user's connected accounts: their (secret-free) configuration in settings.json, the
sources built from it, and connecting / disconnecting them. Secrets live only in keyring."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from engine import extras
from engine.errors import TicError
from engine.sources.base import NeedsSignIn, Source, SourceError
from engine.workspace import Workspace

# The keyring (engine.accounts.secrets) and the store are imported by the functions that use
# them: settings.json's AccountConfig is read by commands that touch neither (tic triage).

log = logging.getLogger(__name__)

Kind = Literal["gmail", "gcal", "imap", "whatsapp-export", "whatsapp-live"]
LABELS = {
    "gmail": "Gmail",
    "gcal": "Google Calendar",
    "imap": "Email (IMAP)",
    "whatsapp-export": "WhatsApp exports",
    "whatsapp-live": "WhatsApp (live)",
}
EXTRA: dict[Kind, extras.Extra] = {"gmail": "google", "gcal": "google", "whatsapp-live": "whatsapp"}


class AccountConfig(BaseModel):
    kind: Kind
    account: str = Field(min_length=1)
    options: dict[str, Any] = Field(default_factory=dict)
    enabled: bool = True

    @property
    def key(self) -> str:
        return f"{self.kind}:{self.account}"


@dataclass(frozen=True)
class AccountState:
    config: AccountConfig
    label: str
    state: str  # ok | retrying | error | needs_sign_in | not synced yet
    last_sync_at: datetime | None
    last_error: str | None


def missing_extra(kind: Kind) -> str | None:
    """One line naming the pip extra an account of ``kind`` needs, if it is not installed."""
    extra = EXTRA.get(kind)
    return None if extra is None else extras.missing(extra)


def build_source(
    config: AccountConfig,
    workspace: Workspace,
    on_qr: Callable[[bytes | str], object] | None = None,
) -> Source:
    """The source for one account (raises SourceError with a clear reason)."""
    hint = missing_extra(config.kind)
    if hint is not None:
        raise SourceError(hint)
    opts = config.options
    if config.kind == "gmail":
        from engine.sources.google.gmail import GmailSource

        return GmailSource(config.account)
    if config.kind == "gcal":
        from engine.sources.google.calendar import CalendarSource

        return CalendarSource(
            config.account, reminder_minutes=float(opts.get("reminder_minutes", 15))
        )
    if config.kind == "imap":
        from engine.sources.mail.imap import ImapSource

        return ImapSource(
            opts["host"],
            opts.get("port"),
            opts["username"],
            folders=tuple(opts.get("folders", ["INBOX"])),
            ssl=bool(opts.get("ssl", True)),
            starttls=bool(opts.get("starttls", False)),
        )
    if config.kind == "whatsapp-export":
        from engine.sources.whatsapp.export import WhatsAppExportSource

        return WhatsAppExportSource(
            config.account, user_name=opts.get("user_name"), user_phone=opts.get("user_phone")
        )
    from engine.sources.whatsapp.live import WhatsAppLiveSource, session_db_path

    return WhatsAppLiveSource(
        session_db_path(workspace.root),
        accepted_unofficial_warning=bool(opts.get("accepted_unofficial_warning")),
        on_qr=on_qr or (lambda _qr: log.warning("WhatsApp asks to pair; open Settings")),
        own_jids=tuple(opts.get("own_jids", ())),
    )


def states(configs: list[AccountConfig]) -> list[AccountState]:
    from engine.store.models import SourceStatus

    rows = {r.key: r for r in SourceStatus.select()}
    out = []
    for config in configs:
        keys = [k for k in rows if k == config.key or k.startswith(config.key + ":")]
        row = rows[keys[0]] if keys else None
        out.append(
            AccountState(
                config=config,
                label=LABELS[config.kind],
                state=row.state if row else "not synced yet",
                last_sync_at=row.last_sync_at if row else None,
                last_error=row.last_error if row else None,
            )
        )
    return out


async def verify(source: Source) -> None:
    """One fetch to prove the account works before it is saved (nothing is stored)."""
    try:
        await source.fetch(None)
    finally:
        await source.close()


def imap_config(
    host: str,
    port: int | None,
    username: str,
    *,
    ssl: bool = True,
    starttls: bool = False,
    folders: list[str] | None = None,
) -> AccountConfig:
    return AccountConfig(
        kind="imap",
        account=f"{username}@{host}",
        options={
            "host": host,
            "port": port,
            "username": username,
            "ssl": ssl,
            "starttls": starttls,
            "folders": folders or ["INBOX"],
        },
    )


async def connect_imap(config: AccountConfig, password: str, workspace: Workspace) -> None:
    """Check the login, then keep the password in the keyring (never on disk)."""
    from engine.accounts import secrets
    from engine.sources.mail.imap import ImapSource, secret_name

    opts = config.options
    source = ImapSource(
        opts["host"],
        opts.get("port"),
        opts["username"],
        folders=tuple(opts["folders"]),
        ssl=opts["ssl"],
        starttls=opts["starttls"],
        password=password,
    )
    try:
        await verify(source)
    except NeedsSignIn as exc:
        raise TicError(f"sign-in failed: {exc}") from None
    secrets.set_secret(secret_name(opts["username"], opts["host"]), password)


def forget_secrets(config: AccountConfig) -> None:
    """Disconnecting removes the account's secrets from the keyring."""
    from engine.accounts import secrets

    try:
        if config.kind in ("gmail", "gcal"):
            from engine.sources.google import secret_name as google_secret

            secrets.delete_secret(google_secret(config.account))
        elif config.kind == "imap":
            from engine.sources.mail.imap import secret_name

            secrets.delete_secret(secret_name(config.options["username"], config.options["host"]))
    except SourceError as exc:
        log.warning("could not remove the secrets of %s: %s", config.key, exc)
    if config.kind == "whatsapp-live":
        session = Path(config.options.get("session_db", ""))
        if session.is_file():
            session.unlink()
