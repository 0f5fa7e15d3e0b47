"""The user's rules file (``data/notifications.md``) as every writer changes it: the chat's
``add_notification_rule`` (and "Don't notify me about this", which runs it), the agent's file
tools, and Settings → Rules.

A write is atomic (a reader sees the old text or the new, never half), goes through a
symbolic link to the file it points to (a user who keeps the file in a dotfiles repository
keeps the link), keeps the file's permissions, and is refused when the file changed since it
was read (the user's editor saved it meanwhile): nobody's edit is overwritten unseen. A
writer that only adds to the file reads it again and adds again (``update``); one that
replaces it says so to the user.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engine.errors import TicError

UPDATE_ATTEMPTS = 3
"""How often ``update`` reads and applies its change again when the file keeps changing."""


@dataclass(frozen=True)
class Version:
    """What the file held when it was read: whether it existed, and its bytes' size and
    SHA-256. Two reads agree when the bytes do (a save of the same text changes nothing)."""

    exists: bool
    size: int = 0
    digest: str = ""


ABSENT = Version(False)


class RulesFileChanged(TicError):
    """The rules file changed since it was read: nothing was written."""


class RulesFileUnreadable(TicError):
    """The rules file exists but is not UTF-8 text, or cannot be read."""


def version_of(raw: bytes | None) -> Version:
    if raw is None:
        return ABSENT
    return Version(True, len(raw), hashlib.sha256(raw).hexdigest())


class RulesFile:
    """``data/notifications.md``, or whatever file it links to."""

    def __init__(self, path: Path):
        self.path = path

    @property
    def target(self) -> Path:
        """The file written: the end of the link chain when ``path`` is a link (it may not
        exist yet), else ``path``."""
        return self.path.resolve() if self.path.is_symlink() else self.path

    def _raw(self) -> bytes | None:
        try:
            return self.path.read_bytes()
        except FileNotFoundError:
            return None

    def current(self) -> Version:
        """The file's version now (raises OSError when it cannot be read)."""
        return version_of(self._raw())

    def read(self) -> tuple[str, Version]:
        """The file's text ("" when there is none), its line endings read as ``\\n``, and
        the version to write it back against."""
        try:
            raw = self._raw()
        except OSError as exc:
            raise RulesFileUnreadable(f"{self.path.name} cannot be read: {_reason(exc)}") from None
        if raw is None:
            return "", ABSENT
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            raise RulesFileUnreadable(
                f"{self.path.name} line {line} is not valid UTF-8; fix or re-save the file"
            ) from None
        return text.replace("\r\n", "\n").replace("\r", "\n"), version_of(raw)

    def write(self, text: str, expected: Version) -> Version:
        """Replace the file's text with ``text`` if it still is as ``expected`` (from
        ``read`` or ``current``), else raise RulesFileChanged. Returns the new version.

        The new text goes to a temporary file beside the real file (the link's target),
        with the real file's permissions, and then replaces it in one step; on any failure
        the old file stays and the temporary one is removed. OSError is the caller's to
        word (a full disk, a read-only folder)."""
        target = self.target
        if self.current() != expected:
            raise RulesFileChanged(
                f"{self.path.name} changed since it was read (saved by another program?)"
            )
        data = text.encode("utf-8")
        try:
            mode: int | None = stat.S_IMODE(target.stat().st_mode)
        except FileNotFoundError:
            mode = None
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name[:100]}.tmp-{os.getpid()}")  # short: any name fits
        try:
            with tmp.open("wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            if mode is not None:
                tmp.chmod(mode)
            tmp.replace(target)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return version_of(data)

    def update(self, change: Callable[[str], str | None]) -> str | None:
        """Apply ``change`` to the file's text and write the result; when the file changed
        between the read and the write, read it again and apply ``change`` again (a few
        times), so an addition is never lost and never overwrites what another wrote.
        ``change`` returns None for "nothing to write"; the text written is returned."""
        for _ in range(UPDATE_ATTEMPTS):
            text, version = self.read()
            new = change(text)
            if new is None:
                return None
            try:
                self.write(new, version)
            except RulesFileChanged:
                continue
            return new
        raise RulesFileChanged(f"{self.path.name} kept changing while it was being edited")


def _reason(exc: OSError) -> str:
    return (exc.strerror or str(exc)).lower()
