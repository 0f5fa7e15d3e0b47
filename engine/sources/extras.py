"""Sources whose packages are optional pip extras (``[google]``, ``[whatsapp]``).

Their modules import those packages, so only code that runs such a source imports them, and
only after asking here first: without the extra, the user gets one line naming it instead of
an ImportError. IMAP needs no extra (imapclient is pure Python without dependencies)."""

from __future__ import annotations

import importlib.util
from typing import Literal

from engine.sources.base import SourceError

Extra = Literal["google", "whatsapp"]

_NEEDS: dict[Extra, tuple[str, tuple[str, ...]]] = {
    "google": (
        "Google accounts need",
        (
            "googleapiclient",
            "google_auth_oauthlib",
            "google_auth_httplib2",
            "httplib2",
            "google.auth",
        ),
    ),
    "whatsapp": ("WhatsApp (live) needs", ("neonize", "segno")),
}


def install_hint(extra: Extra) -> str:
    """ "Google accounts need: pip install -e '.[google]'"."""
    what, _ = _NEEDS[extra]
    return f"{what}: pip install -e '.[{extra}]'"


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # its parent package is missing, or was blocked
        return False


def missing(extra: Extra) -> str | None:
    """The install hint when a package of ``extra`` is missing, else None (imports nothing)."""
    _, modules = _NEEDS[extra]
    return None if all(_installed(m) for m in modules) else install_hint(extra)


def require(extra: Extra) -> None:
    """Raise SourceError with the install hint unless ``extra`` is installed."""
    hint = missing(extra)
    if hint is not None:
        raise SourceError(hint)
