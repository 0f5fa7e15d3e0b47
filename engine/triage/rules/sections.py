"""The three decisions a rule line can carry, named after the sections of notifications.md."""

from __future__ import annotations

from typing import Final, Literal

Section = Literal["always", "never", "custom"]
"""Which heading a rule line is under (or says itself): Always notify, Never notify, or any
other (custom: conditional rules)."""

ALWAYS: Final = "always"
NEVER: Final = "never"
CUSTOM: Final = "custom"
