"""IMAP IDLE (RFC 2177): the server says when mail arrives, so an account is fetched within
a second of delivery instead of at its next poll.

An :class:`IdleWatcher` keeps one connection of its own on one folder, on its own thread,
and calls ``on_new`` when the server reports a new message (``EXISTS``). It only signals:
the account's ordinary sync reads the mail, so the cursor and the store stay the sync's
business. A lost connection is made again with exponential backoff (and ``on_new`` is
called once after, for what arrived meanwhile); a server without IDLE, or a sign-in that
fails, ends the watcher, and the account's poll (which reports a sign-in problem) remains.
The IDLE command is renewed well within the 29 minutes after which servers may end it."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import imapclient
from imapclient.exceptions import IMAPClientError

from engine.sources.base import SourceError, TransientError
from engine.tasks import one_line, report

log = logging.getLogger(__name__)

RENEW_SECONDS = 25 * 60.0
CHECK_SECONDS = 5.0
"""How long one wait on the socket lasts at most: ``stop`` shuts the socket down, so this
only bounds how late a stop is noticed should that not wake the wait."""
BACKOFF_FIRST = 1.0
BACKOFF_MAX = 300.0
STEADY_SECONDS = 60.0
"""A connection that held this long resets the backoff: a server that accepts and drops
at once is not hammered every second."""


class NoIdle(SourceError):
    """The server does not offer IDLE: the account is polled only."""


def reports_new_mail(responses: list[Any]) -> bool:
    """Whether IDLE's untagged responses say a message arrived (``* 12 EXISTS``)."""
    return any(
        isinstance(r, tuple) and len(r) >= 2 and isinstance(r[1], bytes) and r[1] == b"EXISTS"
        for r in responses
    )


def says_bye(responses: list[Any]) -> bool:
    """Whether the server is ending the connection (``* BYE``, e.g. on its shutdown)."""
    return any(isinstance(r, tuple) and r and r[0] == b"BYE" for r in responses)


class IdleWatcher:
    """One IDLE connection on ``folder``; ``on_new`` is called (on the watcher's thread)
    whenever the server reports new mail. ``translate`` maps a failure to the source
    contract's errors: only a ``TransientError`` is retried."""

    def __init__(
        self,
        connect: Callable[[], imapclient.IMAPClient],
        folder: str,
        on_new: Callable[[], None],
        *,
        name: str,
        translate: Callable[[BaseException], BaseException],
        backoff_first: float = BACKOFF_FIRST,
        backoff_max: float = BACKOFF_MAX,
    ):
        self._connect = connect
        self.folder = folder
        self._on_new = on_new
        self.name = name
        self._translate = translate
        self.backoff_first = backoff_first
        self.backoff_max = backoff_max
        self.connections = 0  # how many times it has connected
        self.idling = False  # an IDLE command is under way
        self._state = threading.Condition()
        self._stop = threading.Event()
        self._client: imapclient.IMAPClient | None = None
        self._client_lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def wait_idling(self, connections: int = 1, timeout: float | None = None) -> bool:
        """Wait until the watcher is in IDLE on its ``connections``-th connection or a
        later one (blocking; for tests and the bench). False on timeout."""
        with self._state:
            return self._state.wait_for(
                lambda: self.idling and self.connections >= connections, timeout
            )

    def _set_idling(self, idling: bool, *, connected: bool = False) -> None:
        with self._state:
            self.idling = idling
            self.connections += connected
            self._state.notify_all()

    def start(self) -> None:
        if self.running:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def stop(self, timeout: float = CHECK_SECONDS + 5.0) -> None:
        """End the watcher and wait for its thread (blocking: call it off the loop)."""
        self._stop.set()
        with self._client_lock:
            client = self._client
        if client is not None:
            try:
                client.shutdown()  # wakes the thread out of its wait on the socket
            except OSError:
                pass
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    # -- the watcher's thread --

    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            connected_at = time.monotonic()
            try:
                self._watch(catch_up=self.connections > 0)
                return  # stopped
            except Exception as exc:
                if self._stop.is_set():
                    return
                problem = exc if isinstance(exc, SourceError) else self._translate(exc)
                if isinstance(problem, SourceError) and not isinstance(problem, TransientError):
                    # no IDLE, a sign-in or a certificate problem: the poll says which
                    log.info("%s: no IDLE, the account is polled: %s", self.name, one_line(problem))
                    return
                if not isinstance(problem, SourceError):  # a bug: reported, then retried
                    report(exc, f"{self.name} failed", logger=log)
                if time.monotonic() - connected_at >= STEADY_SECONDS:
                    failures = 0
                failures += 1
                delay = min(self.backoff_max, self.backoff_first * 2 ** (failures - 1))
                log.info(
                    "%s: IDLE connection lost (%s); reconnecting in %.0f s",
                    *(self.name, one_line(problem), delay),
                )
                if self._stop.wait(delay):
                    return
            finally:
                self._set_idling(False)

    def _watch(self, *, catch_up: bool) -> None:
        client = self._connect()
        with self._client_lock:
            self._client = client
        try:
            if self._stop.is_set():
                return
            if b"IDLE" not in client.capabilities():
                raise NoIdle("the server does not offer IDLE")
            client.select_folder(self.folder, readonly=True)
            self._set_idling(False, connected=True)
            if catch_up:  # what arrived while the connection was down
                self._on_new()
            while not self._stop.is_set():
                self._idle_once(client)
        finally:
            with self._client_lock:
                self._client = None
            _close(client)

    def _idle_once(self, client: imapclient.IMAPClient) -> None:
        client.idle()
        self._set_idling(True)
        renew_at = time.monotonic() + RENEW_SECONDS
        try:
            while not self._stop.is_set() and time.monotonic() < renew_at:
                waited_from = time.monotonic()
                responses = client.idle_check(timeout=CHECK_SECONDS)
                if says_bye(responses):
                    raise TransientError("the server ended the connection")
                if reports_new_mail(responses):
                    self._on_new()
                elif not responses and time.monotonic() - waited_from < CHECK_SECONDS / 2:
                    break  # readable, yet nothing came: a closed connection (DONE will say)
        finally:
            self._set_idling(False)
        if not self._stop.is_set():
            client.idle_done()  # on a closed connection this raises: a reconnect follows


def _close(client: imapclient.IMAPClient) -> None:
    try:
        client.shutdown()
    except (OSError, IMAPClientError):
        pass
