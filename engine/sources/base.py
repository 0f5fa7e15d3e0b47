"""The source contract.

A source reads one account. ``fetch(cursor)`` returns a :class:`Batch`: the events of one page
and the cursor to resume after it. The runner commits the events and the new cursor in one
transaction, so a cursor never runs ahead of what is stored: an app closed for a week catches
up on restart, and a crash mid-sync neither loses nor duplicates anything (event ids are
unique, so re-reading a page is harmless)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from engine.errors import TicError
from engine.events import Event


class SourceError(TicError):
    """A source failed in a way retrying will not fix (bad configuration, bad data)."""


class TransientError(SourceError):
    """Network errors, timeouts, 429 and 5xx: retried with backoff."""


class NeedsSignIn(SourceError):
    """The account's credentials were revoked or expired: the user must sign in again."""


@dataclass
class Batch:
    events: list[Event] = field(default_factory=list)
    cursor: str | None = None
    more: bool = False  # another page follows: call fetch(cursor) again right away


class Source(ABC):
    kind: ClassVar[str]  # "gmail", "gcal", "imap", "whatsapp-export", "whatsapp-live"
    poll_seconds: ClassVar[float] = 60.0

    def __init__(self, account: str):
        self.account = account

    @property
    def key(self) -> str:
        """Names this source's cursor and status row in the store."""
        return f"{self.kind}:{self.account}"

    @abstractmethod
    async def fetch(self, cursor: str | None) -> Batch:
        """Read what is new since ``cursor`` (None: first run, full sync)."""

    def watch(self, on_new: Callable[[], None]) -> None:  # noqa: B027 - optional hook
        """Where the server can push (IMAP IDLE, a live chat client), call ``on_new`` as soon
        as something new is there to fetch, from any thread, until ``close``; the runner
        then fetches at once instead of at the next poll. Polling stays the fallback. The
        default pushes nothing."""

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections."""
