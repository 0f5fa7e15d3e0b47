"""URLs as TIC says them: a password in a URL (``http://user:pass@host/…``) is never logged,
stored or shown; it reads ``http://user:***@host/…``. Every place that logs or saves a URL
goes through :func:`masked_url` (one URL) or :func:`mask_credentials` (any text), and the
log's handlers apply :func:`mask_credentials` to every record as well."""

from __future__ import annotations

import re

MASK = "***"

# scheme://user:password@ — the password runs up to the last "@" before the host (a password
# may hold "@" itself); no "/", whitespace or quote (it would be past the authority).
_CREDENTIALS = re.compile(r"(?P<head>\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s/:@'\"<>]*:)[^\s/'\"<>]*@")


def mask_credentials(text: str) -> str:
    """``text`` with the password of every URL in it replaced by ``***``."""
    if "://" not in text or "@" not in text:  # the common case, without the regex
        return text
    return _CREDENTIALS.sub(lambda m: f"{m.group('head')}{MASK}@", text)


def masked_url(url: str) -> str:
    """The URL to log, store or show: ``http://user:***@host/v1`` for
    ``http://user:secret@host/v1``; a URL without a password is returned as it is."""
    return mask_credentials(url)
