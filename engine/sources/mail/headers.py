"""Mail headers as people read them: RFC 2047 encoded words decoded (any charset, broken
ones left readable) and a sender parsed into a :class:`~engine.events.Person`. Shared by the
IMAP and Gmail sources, so the same header reads the same from either."""

from __future__ import annotations

import binascii
import codecs
import re
from email.utils import parseaddr

from engine.events import Person

_CHARSET_ALIASES = {"gb2312": "gb18030", "gbk": "gb18030", "x-gbk": "gb18030"}
_ENCODED_WORD = re.compile(r"=\?([^?\s]+)\?([bBqQ])\?([^?\s]*)\?=")
_QP_ESCAPE = re.compile(rb"=([0-9A-Fa-f]{2})")


def _codec(charset: str | None) -> str | None:
    """A Python codec name for a MIME charset, or None when unknown."""
    if not charset:
        return None
    name = charset.strip().strip('"').split("*", 1)[0].lower()
    name = _CHARSET_ALIASES.get(name, name)
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def decode_bytes(data: bytes, charset: str | None, *, final: bool = True) -> str:
    """Decode text in a declared charset, tolerating wrong labels and bad bytes.

    With ``final=False`` an incomplete multi-byte sequence at the end (a cut snippet) is
    dropped instead of becoming a replacement character."""
    declared = _codec(charset)
    attempts = [(declared, "strict")]
    if declared in ("utf-16", "utf-32"):  # declared without its BOM: try either byte order
        attempts += [(f"{declared}-le", "strict"), (f"{declared}-be", "strict")]
    attempts += [("utf-8", "strict"), (declared, "replace")]
    for name, errors in attempts:
        if name is None:
            continue
        try:
            return codecs.getincrementaldecoder(name)(errors=errors).decode(data, final)
        except UnicodeError:  # also "UTF-16 stream does not start with BOM", not a decode error
            continue
    return data.decode("latin-1")


def _decode_word(charset: str, kind: str, payload: str) -> bytes | None:
    if kind.lower() == "q":
        raw = payload.replace("_", " ").encode("ascii", "replace")
        return _QP_ESCAPE.sub(lambda m: bytes([int(m.group(1), 16)]), raw)
    clean = re.sub(r"[^A-Za-z0-9+/]", "", payload)
    clean = clean[: len(clean) - len(clean) % 4] if len(clean) % 4 == 1 else clean
    try:
        return binascii.a2b_base64(clean + "=" * (-len(clean) % 4))
    except binascii.Error:
        return None


def decode_header_value(value: str) -> str:
    """Decode RFC 2047 encoded words (any charset, broken ones left readable) and unfold."""
    value = re.sub(r"\r?\n[ \t]*", " ", value)
    out: list[str] = []
    run: tuple[str, bytearray] | None = None  # adjacent words in one charset, decoded together
    pos = 0
    for match in _ENCODED_WORD.finditer(value):
        gap = value[pos : match.start()]
        decoded = _decode_word(match.group(1), match.group(2), match.group(3))
        if decoded is None:  # undecodable: keep the word as written
            if run:
                out.append(decode_bytes(bytes(run[1]), run[0]))
                run = None
            out.append(gap + match.group(0))
            pos = match.end()
            continue
        if run and gap.strip() == "" and run[0].lower() == match.group(1).lower():
            run[1].extend(decoded)
        else:
            if run:
                out.append(decode_bytes(bytes(run[1]), run[0]))
            if not (run and gap.strip() == ""):
                out.append(gap)
            run = (match.group(1), bytearray(decoded))
        pos = match.end()
    if run:
        out.append(decode_bytes(bytes(run[1]), run[0]))
    out.append(value[pos:])
    return "".join(out).strip()


def parse_sender(value: str | None) -> Person | None:
    """The sender in a From header: its display name decoded and its address as written.

    The address keeps the case it was written in (what the user sees); addresses are matched
    case-insensitively wherever they are compared (rules fold case). A header with no address
    in it ("Undisclosed recipients") is all name."""
    if not value or not value.strip():
        return None
    name, address = parseaddr(value)
    if "@" not in address:
        return Person(name=decode_header_value(name or value) or None)
    return Person(name=decode_header_value(name) or None, address=address.strip())
