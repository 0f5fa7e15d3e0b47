"""Mail headers as people read them: each header field decoded on its own (raw 8-bit bytes
in UTF-8, else the message's charset, else Windows-1252/Latin-1), RFC 2047 encoded words
decoded (any charset, broken ones left readable), dates read with their zone and a sender
parsed into a :class:`~engine.events.Person`. Shared by the IMAP and Gmail sources, so the
same header reads the same from either."""

from __future__ import annotations

import binascii
import codecs
import email.utils
import re
from datetime import UTC, datetime
from email.utils import parseaddr

from engine.events import Person
from engine.events.bounds import clean

KEPT_HEADERS = (
    "List-Unsubscribe",
    "List-Id",
    "Precedence",
    "Auto-Submitted",
    "Reply-To",
    "Return-Path",
    "X-Spam-Flag",
    "X-Spam-Status",
    "Authentication-Results",
)
"""The headers an event keeps (``Event.headers``, under these names) when the message has
them: what rules, the classifier and spam recognition read."""

_CHARSET_ALIASES = {"gb2312": "gb18030", "gbk": "gb18030", "x-gbk": "gb18030"}
_SINGLE_BYTE = ("ascii", "iso8859", "latin", "cp125", "koi8", "mac-")
_RELATIVES = {  # what text labelled so often really is
    "iso2022_jp": ("euc_jp", "cp932"),
    "euc_jp": ("cp932",),
    "shift_jis": ("cp932",),
    "big5": ("cp950", "big5hkscs"),
    "euc_kr": ("cp949",),
}
_NOT_MAIL_CHARSETS = {"idna", "punycode", "unicode-escape", "raw-unicode-escape", "undefined"}
_ENCODED_WORD = re.compile(r"=\?([^?\s]+)\?([bBqQ])\?([^?\s]*)\?=")
_QP_ESCAPE = re.compile(rb"=([0-9A-Fa-f]{2})")
_UTF8_SEQUENCE = re.compile(
    rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}"
)
_HIGH_BYTE = re.compile(rb"[\x80-\xff]")
_ISO2022_JP = re.compile(rb"\x1b\$[@B]")
_COMMENT = re.compile(r"\((?:[^()\\]|\\.)*\)")


def _codec(charset: str | None) -> str | None:
    """A Python codec name for a MIME charset, or None when unknown.

    Only text encodings count: a label like ``zlib``, ``base64`` or ``hex`` names a Python
    bytes-to-bytes codec, which would "decode" to bytes or raise its own errors."""
    if not charset:
        return None
    name = charset.strip().strip('"').split("*", 1)[0].lower()
    name = _CHARSET_ALIASES.get(name, name)
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError):  # ValueError: a label with a NUL in it
        return None
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_MAIL_CHARSETS:
        return None
    return info.name


def _single_byte(codec: str) -> bool:
    """A charset in which every byte is a character (Latin-1 and its kin)."""
    return codec.startswith(_SINGLE_BYTE)


def decode_bytes(data: bytes, charset: str | None, *, final: bool = True) -> str:
    """Decode text in a declared charset, tolerating wrong labels and bad bytes.

    Labels are often wrong: text that is valid UTF-8 (with non-ASCII in it) is read as UTF-8
    even where a single-byte charset such as ISO-8859-1 is declared (as such it would be
    mojibake, "Ã©"), unlabelled text with ISO-2022-JP escapes as ISO-2022-JP; text the
    declared charset cannot read is tried in UTF-8, then in that charset's common relatives
    (EUC-JP labelled ISO-2022-JP), then with replacements.

    With ``final=False`` an incomplete multi-byte sequence at the end (a cut snippet) is
    dropped instead of becoming a replacement character."""
    declared = _codec(charset)
    attempts: list[tuple[str | None, str]] = [(declared, "strict")]
    if declared is not None and _single_byte(declared) and not data.isascii():
        attempts.insert(0, ("utf-8", "strict"))
    if declared in (None, "ascii") and _ISO2022_JP.search(data):  # 7-bit Japanese, unlabelled
        attempts.insert(0, ("iso2022_jp", "strict"))
    if declared in ("utf-16", "utf-32"):  # declared without its BOM: try either byte order
        attempts += [(f"{declared}-le", "strict"), (f"{declared}-be", "strict")]
    attempts += [("utf-8", "strict")]
    attempts += [(relative, "strict") for relative in _RELATIVES.get(declared or "", ())]
    attempts += [(declared, "replace")]
    for name, errors in attempts:
        if name is None:
            continue
        try:
            return clean(codecs.getincrementaldecoder(name)(errors=errors).decode(data, final))
        except (UnicodeError, LookupError, TypeError, ValueError):
            continue  # also "UTF-16 stream does not start with BOM", not a decode error
    return data.decode("latin-1")


def decode_header_bytes(data: bytes, charset: str | None = None) -> str:
    """One header field's raw bytes as text.

    Headers should be ASCII, but 8-bit ones are common: UTF-8 is tried first; a field that is
    mostly UTF-8 with a stray byte in it stays UTF-8 (the stray byte becomes U+FFFD); else the
    message's declared ``charset``; else Windows-1252, whose only gaps Latin-1 fills."""
    if data.isascii():
        return data.decode("ascii")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    in_sequences = sum(len(m) for m in _UTF8_SEQUENCE.findall(data))
    if in_sequences * 2 > len(_HIGH_BYTE.findall(data)):
        return data.decode("utf-8", "replace")
    declared = _codec(charset)
    if declared is not None and declared != "utf-8":
        try:
            return clean(data.decode(declared))  # UTF-7 can spell a lone surrogate
        except (UnicodeError, LookupError, TypeError, ValueError):
            pass
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _charset_hint(raw: bytes) -> str | None:
    """The charset a header block declares for its message (Content-Type), if any."""
    match = re.search(rb"(?im)^content-type:[^\n]*?charset\s*=\s*\"?([\w.:-]+)", raw)
    return match.group(1).decode("ascii") if match else None


def parse_header_block(raw: bytes) -> dict[str, str]:
    """Header fields (first occurrence, lower-case names, unfolded) from a raw header block,
    each value decoded on its own (:func:`decode_header_bytes`), so one bad byte in one field
    leaves the others as written. Encoded words are left for :func:`decode_header_value`."""
    unfolded = re.sub(rb"\r?\n[ \t]+", b" ", raw)
    hint = _charset_hint(unfolded)
    headers: dict[str, str] = {}
    for line in unfolded.split(b"\n"):
        name, sep, value = line.rstrip(b"\r").partition(b":")
        if not sep or not name or not name.isascii() or re.search(rb"\s", name.strip()):
            continue
        key = name.strip().decode("ascii").lower()
        if key not in headers:
            headers[key] = decode_header_bytes(value.strip(), hint)
    return headers


def strip_comments(value: str) -> str:
    """A structured header without its RFC 5322 comments ("(EDT)", nested ones too)."""
    for _ in range(8):  # comments nest; each pass removes the innermost level
        stripped = _COMMENT.sub(" ", value)
        if stripped == value:
            break
        value = stripped
    return " ".join(value.split())


def parse_date(value: str | None) -> datetime | None:
    """A Date header as an aware datetime; None when it cannot be read.

    Comments are dropped first ("00:19:00 (EDT) -0400" is -04:00, not a zone named "(EDT)").
    A zone name alone counts where the standard library knows it (UT, GMT and the US zones of
    RFC 5322 section 4.3); any other name, "-0000" or no zone at all mean UTC."""
    if not value:
        return None
    try:
        when = email.utils.parsedate_to_datetime(strip_comments(value))
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


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
