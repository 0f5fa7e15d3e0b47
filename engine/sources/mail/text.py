"""A message's text as its reader sees it, shared by the IMAP and Gmail sources.

- Which part is the text: a non-empty text/plain part, else the text/html one
  (:func:`text_parts` gives them in that order; a reader falls back to the next when one is
  blank), never an attachment.
- What the attachments are called (:func:`attachment_names`), and a truthful text for a
  message that has nothing else (:func:`attachment_summary`: "[2 attachments: a.pdf, b.jpg]").
- Bytes to text (:func:`part_text`): the transfer encoding undone leniently, the charset
  decoded (:func:`~engine.sources.mail.headers.decode_bytes`), HTML turned into text by a
  real parser (:func:`html_to_text`: entities decoded, scripts and styles dropped, a tag cut
  off at the end of a partial read never shown), then cut to :data:`TEXT_LIMIT` characters:
  the *text* is cut, never the markup."""

from __future__ import annotations

import binascii
import quopri
import re
import urllib.parse
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from html import unescape
from html.parser import HTMLParser
from typing import Any, ClassVar

from engine.sources.mail.headers import decode_bytes, decode_header_value, parse_header_block

TEXT_LIMIT = 2000
"""Characters of a message's text an event keeps."""
SMALL_PLAIN = 64
"""A text/plain part smaller than this (in bytes as sent) may be blank ("\\r\\n" beside the
real HTML part): a reader reads the HTML part too, to choose."""
SHOWN_NAMES = 5
"""Attachment names an attachment summary lists before "…"."""

_SIGNATURES = {
    "application/pkcs7-signature",
    "application/x-pkcs7-signature",
    "application/pgp-signature",
}
_REPORTS = {"message/delivery-status", "message/disposition-notification"}
_INVISIBLE = re.compile("[\u00ad\u034f\u200b-\u200f\u2060-\u2064\ufeff]")
_HTML_START = re.compile(
    r"\s*<(?:!doctype\s+html|html|head|body|div|p|table|span|font|center|br)\b", re.IGNORECASE
)
_HTML_INSIDE = re.compile(r"<(?:html|body)\b[^>]*>", re.IGNORECASE)
_HTML_LINK = re.compile(r"<a\s+href=[^<>]{1,2000}>[^<>]{0,2000}</a>", re.IGNORECASE)
_HTML_TAG = re.compile(r"</?(?:a|br|p|div|font|img|td|tr|table|span|b|i|u)\b[^<>]{0,300}>", re.I)


def _looks_like_html(text: str) -> bool:
    """A "plain" part that is HTML after all (mail programs and spammers send both): it
    opens with markup, holds a document's <html> or <body> or a whole <a href>…</a> link,
    or three tags or more."""
    if _HTML_START.match(text) or _HTML_INSIDE.search(text) or _HTML_LINK.search(text):
        return True
    return len(_HTML_TAG.findall(text[:20_000])) >= 3


_HTML_SPACE = re.compile(r"[ \t\n\r\f]+")  # not U+00A0: &nbsp; does not collapse
_PARTIAL_ENTITY = re.compile(r"&#?\w{0,12}$")
_RFC2231_PIECE = re.compile(r"(?P<name>[^*]+)\*(?:(?P<num>\d+)\*?|)$")
_BOUNDARY_LINE = re.compile(rb"(?m)^--[^\s]{2,}[ \t]*(?:\r?\n|\Z)")
_LOOSE_HEADERS = re.compile(rb"\A\s*((?:[!-9;-~]+:[^\n]*\n(?:[ \t][^\n]*\n)*)+)\r?\n")


# --- parts -------------------------------------------------------------------------------


@dataclass(frozen=True)
class MimePart:
    """One leaf of a message's MIME tree, however the provider describes it."""

    ref: str  # where to read it: an IMAP body section ("2.1") or a Gmail partId
    maintype: str  # lower case: "text", "image", ...
    subtype: str  # lower case: "plain", "html", "pdf", ...
    charset: str | None = None
    encoding: str = "7bit"  # Content-Transfer-Encoding, lower case
    size: int = 0  # bytes as sent (IMAP: encoded; Gmail: decoded)
    filename: str | None = None
    disposition: str | None = None  # "inline", "attachment" or None
    description: str | None = None
    embedded: bool = False  # inside multipart/related: a picture the HTML shows

    @property
    def mime_type(self) -> str:
        return f"{self.maintype}/{self.subtype}"

    @property
    def is_attachment(self) -> bool:
        """What a mail client lists as an attachment: anything marked so or named (inline
        photos too), and unnamed non-text parts (a voice memo), but not the text itself, a
        signature, a delivery report or an unnamed picture the HTML shows."""
        if self.mime_type in _SIGNATURES or self.mime_type in _REPORTS:
            return False
        if self.disposition == "attachment" or self.filename:
            return True
        if self.maintype in ("text", "multipart", ""):
            return False
        return not self.embedded

    @property
    def name(self) -> str:
        """The name an attachment is shown by: its file name, else what describes it."""
        return self.filename or self.description or self.mime_type


def text_parts(parts: Sequence[MimePart]) -> list[MimePart]:
    """The parts that may hold the message's text, best first: the first text/plain part,
    then the first text/html one, then a delivery report (a bounce); never an attachment,
    but a named text part shown inline when there is no other (``name=`` on the body)."""
    body = [p for p in parts if not p.is_attachment]
    found = _first_plain_and_html(body)
    if not found:
        found = _first_plain_and_html([p for p in parts if p.disposition != "attachment"])
    report = next((p for p in body if p.mime_type in _REPORTS), None)
    return [*found, *([report] if report else [])]


def _first_plain_and_html(parts: Sequence[MimePart]) -> list[MimePart]:
    found = []
    for wanted in ("text/plain", "text/html"):
        first = next((p for p in parts if p.mime_type == wanted), None)
        if first is not None:
            found.append(first)
    return found


def first_reads(candidates: Sequence[MimePart]) -> list[MimePart]:
    """Which of ``candidates`` to read straight away: a text/plain part big enough to be the
    text on its own, else the first two (a tiny plain part may be blank)."""
    if candidates and candidates[0].subtype == "plain" and candidates[0].size >= SMALL_PLAIN:
        return list(candidates[:1])
    return list(candidates[:2])


def attachment_names(parts: Iterable[MimePart]) -> list[str]:
    """The names of a message's attachments; an unnamed picture of a multipart/related part
    counts too when there is no HTML part to show it."""
    parts = list(parts)
    shown = any(p.mime_type == "text/html" and not p.is_attachment for p in parts)
    return [
        p.name
        for p in parts
        if p.is_attachment
        or (p.embedded and not shown and replace(p, embedded=False).is_attachment)
    ]


def attachment_summary(names: Sequence[str]) -> str:
    """A text for a message that has only attachments, e.g. "[2 attachments: a.pdf, b.jpg]"."""
    if not names:
        return ""
    shown = ", ".join(names[:SHOWN_NAMES]) + (", …" if len(names) > SHOWN_NAMES else "")
    noun = "attachment" if len(names) == 1 else "attachments"
    return f"[{len(names)} {noun}: {shown}]"


# --- MIME parameters ---------------------------------------------------------------------


def split_header_params(value: str) -> tuple[str, dict[str, str]]:
    """``'attachment; filename="a;b.pdf"'`` → ``("attachment", {"filename": "a;b.pdf"})``:
    the value before the first ``;`` (lower case) and its parameters (names lower case,
    values unquoted). Tolerates what senders get wrong (no value, stray quotes)."""
    pieces = re.findall(r'(?:[^;"]|"(?:[^"\\]|\\.)*"?)+', value)
    head = pieces[0].strip().lower() if pieces else ""
    params: dict[str, str] = {}
    for piece in pieces[1:]:
        key, sep, raw = piece.partition("=")
        if not sep:
            continue
        raw = raw.strip()
        if raw.startswith('"'):
            raw = re.sub(r"\\(.)", r"\1", raw[1:].removesuffix('"'))
        params.setdefault(key.strip().lower(), raw)
    return head, params


def param_value(params: dict[str, str], name: str) -> str | None:
    """A parameter as its reader sees it: RFC 2231 (``filename*=utf-8''%E2%82%AC.pdf``,
    continued over ``filename*0*``, ``filename*1*``...) or RFC 2047 (``name="=?UTF-8?B?...?="``,
    not allowed there but common) decoded."""
    pieces: list[tuple[int, str, bool]] = []
    for key, value in params.items():
        match = _RFC2231_PIECE.match(key)
        if match and match.group("name") == name:
            number = int(match.group("num") or 0)
            pieces.append((number, value, key.endswith("*")))
    if not pieces:
        plain = params.get(name)
        return decode_header_value(plain) if plain else None
    pieces.sort(key=lambda piece: piece[0])
    charset = None
    data = bytearray()
    for index, (_, value, encoded) in enumerate(pieces):
        if encoded and index == 0 and value.count("'") >= 2:
            charset, _, value = value.split("'", 2)
        data += urllib.parse.unquote_to_bytes(value) if encoded else value.encode()
    return decode_bytes(bytes(data), charset or "utf-8").strip() or None


# --- bytes to text -----------------------------------------------------------------------


def transfer_decode(raw: bytes, encoding: str, *, partial: bool = False) -> bytes:
    """Undo a Content-Transfer-Encoding leniently: stray characters in base64 are skipped,
    a QP escape cut off by a partial read is dropped; anything else is taken as it is."""
    if encoding == "base64":
        return _base64(raw, partial=partial)
    if encoding == "quoted-printable":
        return quopri.decodestring(re.sub(rb"=[0-9A-Fa-f]?$", b"", raw) if partial else raw)
    return raw


def _base64(raw: bytes, *, partial: bool) -> bytes:
    """Base64 that skips stray characters and reads on after padding (blocks encoded one by
    one and joined); a partial read's last incomplete group is dropped."""
    clean = re.sub(rb"[^A-Za-z0-9+/=]", b"", raw)
    chunks = [chunk for chunk in clean.split(b"=") if chunk]
    if partial and chunks and not clean.endswith(b"="):
        chunks[-1] = chunks[-1][: len(chunks[-1]) - len(chunks[-1]) % 4]
    out = bytearray()
    for chunk in chunks:
        if len(chunk) % 4 == 1:  # one stray character: no byte in it
            chunk = chunk[:-1]
        try:
            out += binascii.a2b_base64(chunk + b"=" * (-len(chunk) % 4))
        except binascii.Error:
            continue
    return bytes(out)


def part_text(raw: bytes, part: MimePart, *, partial: bool = False, limit: int = TEXT_LIMIT) -> str:
    """The text of a part from its bytes as sent (``partial``: only its first bytes), cut to
    ``limit`` characters ("…" ends a text that goes on)."""
    data = transfer_decode(raw, part.encoding, partial=partial)
    text = decode_bytes(data, part.charset, final=not partial)
    if part.subtype == "html" or (part.subtype == "plain" and _looks_like_html(text)):
        text = html_to_text(text, partial=partial)
    return cut_text(tidy_text(text), limit, more=partial)


def _loose_part(chunk: bytes) -> tuple[MimePart, bytes] | None:
    """A piece of a broken multipart body read as a MIME part, if it starts with headers."""
    match = _LOOSE_HEADERS.match(chunk)
    if match is None or b"content-" not in match.group(1).lower():
        return None
    headers = parse_header_block(match.group(1))
    content_type, params = split_header_params(headers.get("content-type", "text/plain"))
    disposition, where = split_header_params(headers.get("content-disposition", ""))
    maintype, _, subtype = content_type.partition("/")
    content = chunk[match.end() :]
    mime = MimePart(
        ref="",
        maintype=maintype,
        subtype=subtype,
        charset=params.get("charset"),
        encoding=headers.get("content-transfer-encoding", "7bit").strip().lower(),
        size=len(content),
        filename=param_value(where, "filename") or param_value(params, "name"),
        disposition=disposition or None,
    )
    return mime, content


def loose_text(body: bytes, *, partial: bool = False) -> str:
    """The text of a multipart body whose boundaries do not match the one it declares (an
    IMAP server then sees a single empty part, a reader sees the body as it is): the body is
    cut at lines that look like boundaries and each piece that starts with MIME headers read
    as a part (plain before HTML); with no such piece, the whole body is plain text."""
    chunks = _BOUNDARY_LINE.split(body)
    pieces = [(_loose_part(chunk), index == len(chunks) - 1) for index, chunk in enumerate(chunks)]
    found = {id(piece[0]): (piece[1], last) for piece, last in pieces if piece is not None}
    parts = [piece[0] for piece, _ in pieces if piece is not None]
    if not parts:
        return part_text(body, MimePart("", "text", "plain"), partial=partial)
    for mime in text_parts(parts):
        content, last = found[id(mime)]
        text = part_text(content, mime, partial=partial and last)
        if text:
            return text
    return ""


def cut_text(text: str, limit: int = TEXT_LIMIT, *, more: bool = False) -> str:
    """At most ``limit`` characters; "…" marks a text that was cut or goes on unread."""
    if len(text) > limit:
        return text[: limit - 1].rstrip() + "\u2026"
    if more and text:
        return text + "\u2026"
    return text


def tidy_text(text: str) -> str:
    """Spaces collapsed within lines, at most one blank line in a row, invisible characters
    (zero-width spaces, soft hyphens: newsletter padding) dropped."""
    text = _INVISIBLE.sub("", text)
    lines = [re.sub(r"[ \t\xa0\u2007\u202f]+", " ", line).strip() for line in text.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


class _HtmlText(HTMLParser):
    """The text a browser would show, roughly: block elements break lines, whitespace in
    the markup collapses, scripts, styles and the head are not shown."""

    _SKIP: ClassVar[set[str]] = {"script", "style", "title", "template", "xml"}
    _BLOCK: ClassVar[set[str]] = {
        *("p", "div", "br", "hr", "tr", "li", "ul", "ol", "dl", "dt", "dd", "table"),
        *("h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "center", "address"),
        *("section", "article", "header", "footer", "form", "caption", "tbody", "thead"),
    }
    _CELL: ClassVar[set[str]] = {"td", "th"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.links: list[str] = []
        self._skipping = 0
        self._in_head = False
        self._pre = 0

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag == "a":
            host = _link_host(dict(attrs).get("href"))
            if host and host not in self.links and len(self.links) < MAX_LINKS:
                self.links.append(host)
        if tag in self._SKIP:
            self._skipping += 1
        elif tag == "head":
            self._in_head = True
        elif tag == "body":
            self._in_head = False
        elif tag in self._BLOCK or tag in self._CELL:
            self._in_head = False  # a body without <body>: what follows is shown
            self._pre += tag == "pre"
            self.parts.append(" " if tag in self._CELL else "\n")

    def handle_startendtag(self, tag: str, attrs: Any) -> None:
        self.handle_starttag(tag, attrs)  # <br/> is one line break, not two
        if tag in self._SKIP:
            self._skipping -= 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP:
            self._skipping = max(0, self._skipping - 1)
        elif tag == "head":
            self._in_head = False
        elif tag in self._BLOCK and tag != "br":
            self._pre = max(0, self._pre - (tag == "pre"))
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._skipping or self._in_head:
            return
        self.parts.append(data if self._pre else _HTML_SPACE.sub(" ", data))

    def finish(self, *, partial: bool) -> str:
        """The text so far; what is left unparsed at the end is a tag cut off by a partial
        read (never shown) or plain text (shown, but not an entity cut in half)."""
        rest = self.rawdata
        self.rawdata = ""
        if rest and not rest.startswith("<") and not (self._skipping or self._in_head):
            if partial:
                rest = _PARTIAL_ENTITY.sub("", rest)
            self.handle_data(unescape(rest))
        return "".join(self.parts)


MAX_LINKS = 20
_URL_HOST = re.compile(r"^\s*(?:https?:)?//(?:[^/@\s]*@)?([^/:?#\s]+)", re.IGNORECASE)


def _link_host(href: object) -> str | None:
    """The host a link leads to ("https://u:p@Bit.ly/x" → "bit.ly"), for web links only."""
    if not isinstance(href, str):
        return None
    m = _URL_HOST.match(href)
    return m.group(1).lower().rstrip(".") if m else None


def part_links(raw: bytes, part: MimePart, *, partial: bool = False) -> list[str]:
    """The hosts the links of an HTML part lead to (at most ``MAX_LINKS``): where a
    message sends its reader, which its text does not show (spam checks read them)."""
    if part.subtype != "html":
        return []
    data = transfer_decode(raw, part.encoding, partial=partial)
    parser = _HtmlText()
    try:
        parser.feed(decode_bytes(data, part.charset, final=not partial))
    except Exception:  # a link list is a hint: a weird document just has none
        return parser.links
    return parser.links


def html_to_text(markup: str, *, partial: bool = False) -> str:
    """Text from HTML (``partial``: the first part of a longer document)."""
    parser = _HtmlText()
    try:
        parser.feed(markup)
        return parser.finish(partial=partial)
    except Exception:  # the parser is lenient, but a weird document must never fail a sync
        stripped = re.sub(r"<[^>]*>", " ", re.sub(r"<[^>]*$", "", markup))
        return unescape(stripped)
