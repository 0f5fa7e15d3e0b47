"""Packages that come only with an optional extra (``pip install -e '.[whatsapp]'``).

The plain install must run everything else, so such a package is imported only where its
feature is used, through :func:`import_extra`, and its absence is one line naming the extra.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from engine.errors import TicError

# import name -> (extra that installs it, the feature that needs it)
EXTRA_MODULES: dict[str, tuple[str, str]] = {
    "neonize": ("whatsapp", "WhatsApp live"),
    "segno": ("whatsapp", "WhatsApp live"),
}


class ExtraMissing(TicError):
    """A feature was used whose optional extra is not installed."""


def install_hint(module: str) -> str:
    """The one line that says which extra to install for ``module``'s feature."""
    extra, feature = EXTRA_MODULES[module.partition(".")[0]]
    return f"{feature} needs: pip install -e '.[{extra}]'"


def missing(module: str) -> str | None:
    """The install hint when ``module``'s extra is not installed, else None (nothing imported)."""
    return install_hint(module) if importlib.util.find_spec(module) is None else None


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
