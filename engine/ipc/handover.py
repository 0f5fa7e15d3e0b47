"""Where a front end's work runs: here, when this process can take the workspace's lock, else
in the process that holds it, handed over the channel.

A holder answers a request it cannot do now with ``{"wait": true}`` (e.g. ``tic ingest``,
which runs no model, asked to tick): the front end then waits for the lock. A holder that
does not answer yet (starting) or any more (closing) is asked again until the lock is free."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.errors import TicError
from engine.ipc import client
from engine.ipc.lock import Holder, WorkspaceLock, holder
from engine.workspace import Workspace

WAIT_SECONDS = 600.0  # how long a front end waits for a busy holder before giving up
WAIT_NOTE_AFTER = 1.0  # seconds of waiting before saying whom it waits for

Request = dict[str, Any]


def busy(role: str) -> dict[str, Any]:
    """The answer to a request the holder cannot do now: the asker waits for the lock."""
    return {"ok": False, "wait": True, "error": f"{role} is running on this workspace"}


@dataclass(frozen=True)
class HandedOver:
    answer: dict[str, Any]
    holder: Holder


def run_here_or_hand_over(
    workspace: Workspace,
    role: str,
    make_request: Callable[[], Request] | None,
    *,
    timeout: float = 600.0,
    wait: float = WAIT_SECONDS,
    on_wait: Callable[[Holder], None] | None = None,
) -> WorkspaceLock | HandedOver:
    """The workspace's lock when this process can take it (it runs the work itself), else
    the holder's answer to the request. ``make_request`` None: only wait for the lock."""
    deadline = time.monotonic() + wait
    started = time.monotonic()
    delay = 0.05
    noted = False
    request: Request | None = None
    while True:
        lock = WorkspaceLock.try_acquire(workspace, role)
        if lock is not None:
            return lock
        answer = None
        if make_request is not None:
            request = request if request is not None else make_request()
            answer = _ask(workspace, request, timeout)
            if answer is not None and not answer.get("wait"):
                return HandedOver(answer, holder(workspace))
        now = time.monotonic()
        if not noted and on_wait is not None and now - started >= WAIT_NOTE_AFTER:
            on_wait(holder(workspace))
            noted = True
        if now > deadline:
            state = "is busy" if answer is not None else "does not answer"
            raise TicError(
                f"{holder(workspace).describe()} holds this workspace and {state} "
                f"(waited {wait:.0f} s)"
            )
        time.sleep(delay)
        delay = min(delay * 2, 0.5)


def _ask(workspace: Workspace, request: Request, timeout: float) -> dict[str, Any] | None:
    try:
        return client.request(workspace, request, timeout=timeout)
    except TimeoutError:
        raise TicError(
            f"{holder(workspace).describe()} did not answer within {timeout:.0f} s"
        ) from None
    except client.RequestTooLarge as exc:
        raise TicError(f"cannot hand this to {holder(workspace).describe()}: {exc}") from None
