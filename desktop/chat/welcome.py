"""The welcome a new user sees, written here in code (never by the model), and the marker
that remembers the workspace's first start has happened.

The welcome is shown by the chat window as a panel, not stored as a chat message: the model
never sees it in its history, so it cannot seem to have said things it cannot back up.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from engine.engine import EXAMPLE_PROMPTS as ENGINE_EXAMPLES
from engine.workspace import Workspace
from engine.workspace.atomic import atomic_write

TITLE = "Welcome to TIC"

INTRO = (
    "TIC reads your mail, chats and calendar, and tells you only what matters to you, "
    "following your rules. It runs on this computer: no cloud AI."
)

# Links in the steps: the chat window turns them into actions.
ACCOUNTS_LINK = "tic:accounts"
RULES_LINK = "tic:rules"

STEPS = (
    (
        "Connect an account",
        f'Open <a href="{ACCOUNTS_LINK}">Settings → Accounts</a> to add Google, '
        "an IMAP mailbox or WhatsApp.",
    ),
    (
        "Edit your rules",
        f'Who always gets through and what never does is in <a href="{RULES_LINK}">your '
        "notification rules</a> (also in the tray menu), or just tell TIC here.",
    ),
)

# Each works with the engine as it is, on any model (recognised in code; the chat's "help"
# lists the same ones): a rule change, a calendar look-up and a reminder.
EXAMPLE_PROMPTS = ENGINE_EXAMPLES

EMPTY_TITLE = "Ask TIC something"
EMPTY_INTRO = "Nothing here yet. TIC's notifications will show up here too."

MARKER_NAME = ".welcome-shown"


def marker_path(workspace: Workspace) -> Path:
    return workspace.root / MARKER_NAME


def is_first_start(workspace: Workspace) -> bool:
    """True until :func:`remember_first_start` has run for this workspace."""
    return not marker_path(workspace).exists()


def remember_first_start(workspace: Workspace, now: datetime | None = None) -> None:
    """Mark the welcome as shown, so the next start opens quietly in the tray."""
    moment = (now or datetime.now().astimezone()).isoformat(timespec="seconds")
    atomic_write(marker_path(workspace), f"welcome shown {moment}\n")
