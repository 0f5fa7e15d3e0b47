"""Packages that come only with an optional extra (``pip install -e '.[google]'``, ``[whatsapp]``).

The plain install must run everything else, so such a package is imported only where its
feature is used, after asking here (:func:`missing`, :func:`require`) or through
:func:`import_extra`; without the extra the user gets one line naming it. IMAP needs no extra
(imapclient is pure Python without dependencies)."""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType
from typing import Literal

from engine.errors import TicError

Extra = Literal["google", "whatsapp"]

# extra -> (what needs it, as the hint says it; the import names it brings)
_NEEDS: dict[Extra, tuple[str, tuple[str, ...]]] = {
    "google": (
        "Google accounts need",
        (
            "googleapiclient",
            "google_auth_oauthlib",
            "google_auth_httplib2",
            "httplib2",
            "google.auth",
            "oauthlib",
            "requests",
        ),
    ),
    "whatsapp": ("WhatsApp live needs", ("neonize", "segno")),
}

# top-level import name -> (extra that installs it, the feature that needs it)
EXTRA_MODULES: dict[str, tuple[Extra, str]] = {
    module.partition(".")[0]: (extra, feature)
    for extra, (feature, modules) in _NEEDS.items()
    for module in modules
}

# Project modules that import an extra's packages at module level: they are imported only
# by code that asked :func:`require` first.
EXTRA_ONLY_MODULES: dict[str, Extra] = {
    "engine.sources.google.auth": "google",
    "engine.sources.google.gmail": "google",
    "engine.sources.google.calendar": "google",
}


class ExtraMissing(TicError):
    """A feature was used whose optional extra is not installed."""


def install_hint(extra_or_module: str) -> str:
    """ "Google accounts need: pip install -e '.[google]'" — for an extra or one of its modules."""
    if extra_or_module in _NEEDS:
        extra: str = extra_or_module
        feature = _NEEDS[extra_or_module][0]
    else:
        extra, feature = EXTRA_MODULES[extra_or_module.partition(".")[0]]
    return f"{feature}: pip install -e '.[{extra}]'"


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
    """Raise ExtraMissing with the install hint unless ``extra`` is installed."""
    hint = missing(extra)
    if hint is not None:
        raise ExtraMissing(hint)


def import_extra(module: str) -> ModuleType:
    """Import ``module`` (a package of an extra); ExtraMissing when the extra is absent.

    Only the package itself being absent counts: a broken install (a dependency of it
    missing, a native library failing) propagates as it is, since the hint would mislead."""
    top = module.partition(".")[0]
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == top:
            raise ExtraMissing(install_hint(top)) from None
        raise
