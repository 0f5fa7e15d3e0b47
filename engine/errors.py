"""Errors the user may see. Each carries a one-line message fit for a terminal or a tooltip."""

from __future__ import annotations

from pathlib import Path


class TicError(Exception):
    """Base for errors reported to the user as one clear line, never as a traceback."""


class ModelError(TicError):
    """The model file is missing, unreadable, not a GGUF, or failed while generating."""


class ModelCallsForbidden(TicError):
    """A real model was used while real model calls are switched off (unit tests)."""


class InputError(TicError):
    """An input file (events, rules) could not be read; the message names file and line."""


class ToolError(TicError):
    """A tool refused or failed; the message is returned to the agent as the tool's result."""


class StoreError(TicError):
    """The database could not be opened or migrated."""


class StoreDamaged(StoreError):
    """A table of the store cannot be read although SQLite's integrity check passed: its rows
    hold what that check does not look at (text that is not UTF-8, JSON that does not parse).
    Trying again cannot help; restoring a backup can."""

    def __init__(self, message: str, table: str):
        super().__init__(message)
        self.table = table


class WorkspaceReadOnly(TicError):
    """The workspace cannot be written (a read-only mount or folder) and the command writes."""

    @classmethod
    def at(cls, root: Path, why: str) -> WorkspaceReadOnly:
        """ "the workspace /home/anna/tic is read-only: …", with why it matters here."""
        return cls(f"the workspace {root} is read-only: {why}")
