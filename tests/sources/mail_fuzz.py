"""Real-looking messages (written for these tests, invented senders) and the damage mail
suffers on its way: flipped bytes, truncation, bogus charsets, broken boundaries, mangled
headers, Gmail JSON with parts missing or of the wrong type. Seeded: a failure replays."""

from __future__ import annotations

import base64
import copy
import json
import random
from typing import Any

_HTML = (
    "<html><head><style>p {margin:0}</style></head><body><p>Hola Marta,</p>"
    "<p>la reuni&oacute;n del <b>jueves</b> pasa a las 10:30. "
    '<a href="https://agenda.example.org/r/77">Ver agenda</a></p></body></html>'
)

SAMPLES: list[bytes] = [
    (
        "From: =?UTF-8?Q?Marta_Ib=C3=A1=C3=B1ez?= <marta@kestrel.example.org>\r\n"
        "To: me@example.org\r\nSubject: =?ISO-8859-1?Q?Reuni=F3n_del_jueves?=\r\n"
        "Date: Tue, 6 Oct 2026 09:12:00 +0200 (CEST)\r\nMessage-ID: <r1@kestrel.example.org>\r\n"
        'MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary="alt-7"\r\n\r\n'
        "--alt-7\r\nContent-Type: text/plain; charset=utf-8\r\n"
        "Content-Transfer-Encoding: quoted-printable\r\n\r\n"
        "Hola Marta, la reuni=C3=B3n pasa a las 10:30.\r\n"
        "--alt-7\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Transfer-Encoding: base64\r\n\r\n{base64.encodebytes(_HTML.encode()).decode()}"
        "--alt-7--\r\n"
    ).encode(),
    (
        "From: Billing <billing@ledgerly.example.net>\r\nSubject: Invoice 2026-114\r\n"
        "Date: 6 Oct 2026 10:00 EDT\r\nMIME-Version: 1.0\r\nX-Spam-Flag: NO\r\n"
        "X-Spam-Status: No, score=-1.2 required=5.0\r\n"
        "Authentication-Results: mx.example.org; spf=pass smtp.mailfrom=ledgerly.example.net\r\n"
        'Content-Type: multipart/mixed; boundary="mix"\r\n\r\n'
        '--mix\r\nContent-Type: text/plain; charset="iso-8859-1"\r\n\r\n'
        "Vous trouverez la facture ci-jointe. Merci \xe0 vous.\r\n"
        '--mix\r\nContent-Type: application/pdf; name="facture.pdf"\r\n'
        "Content-Disposition: attachment; filename*=utf-8''factur%C3%A9.pdf\r\n"
        "Content-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQKJcfsj6IKNSAwIG9iago=\r\n--mix--\r\n"
    ).encode("latin-1"),
    (
        b"From: noreply@parcel.example.org\r\nSubject: Ihre Sendung\r\n"
        b"Date: Wed, 7 Oct 2026 08:00:00 +0000\r\nMIME-Version: 1.0\r\n"
        b"Content-Type: text/html; charset=windows-1252\r\n"
        b"Content-Transfer-Encoding: quoted-printable\r\n\r\n"
        b"<div>Ihre Sendung kommt heute =96 zwischen 9 und 12 Uhr.</div>"
        b'<a href=3D"x">Status</a>\r\n'
    ),
    (
        b"From: Yuki <yuki@hoshizora.example.net>\r\n"
        b"Subject: =?ISO-2022-JP?B?GyRCRnxLXDhsGyhC?=\r\n"
        b"Date: Thu, 8 Oct 2026 18:30:00 +0900\r\nMIME-Version: 1.0\r\n"
        b'Content-Type: multipart/mixed; boundary="jp"\r\n\r\n--jp\r\n'
        b"Content-Type: text/plain; charset=iso-2022-jp\r\n\r\n"
    )
    + "写真を送ります。".encode("iso-2022-jp")
    + (
        b"\r\n--jp\r\nContent-Type: image/jpeg\r\n"
        b'Content-Disposition: inline; filename="=?UTF-8?B?5YaZ55yfLmpwZw==?="\r\n'
        b"Content-Transfer-Encoding: base64\r\n\r\n/9j/4AAQSkZJRgABAQ==\r\n--jp--\r\n"
    ),
    (
        "From: \u042e\u043d\u0438\u043a\u043e\u0434 <uni@example.org>\r\nSubject: caf\udce9\r\n"
        'Date: garbage\r\nContent-Type: multipart/alternative; boundary="declared"\r\n\r\n'
        "--other\r\nContent-Type: text/plain\r\n\r\nboundaries that do not match\r\n--other--\r\n"
    ).encode("utf-8", "surrogateescape"),
]

_CHARSETS = [b"zlib", b"base64", b"x-unknown", b"utf-16", b"utf-32", b"iso-2022-jp", b"", b'""']
_ENCODINGS = [b"base64", b"quoted-printable", b"7bit", b"x-uuencode", b"binary", b""]


def _flip(raw: bytes, rng: random.Random) -> bytes:
    data = bytearray(raw)
    for _ in range(rng.randint(1, 12)):
        data[rng.randrange(len(data))] = rng.choice(
            [0, 0x80, 0xFF, 0x3D, 0x3C, 0x0A, 0x0D, rng.randrange(256)]
        )
    return bytes(data)


def _truncate(raw: bytes, rng: random.Random) -> bytes:
    return raw[: rng.randrange(1, len(raw))]


def _charset(raw: bytes, rng: random.Random) -> bytes:
    for name in (b"utf-8", b"iso-8859-1", b"windows-1252", b"iso-2022-jp"):
        raw = raw.replace(b"charset=" + name, b"charset=" + rng.choice(_CHARSETS))
    return raw.replace(b"?UTF-8?", b"?" + rng.choice(_CHARSETS) + b"?")


def _boundary(raw: bytes, rng: random.Random) -> bytes:
    choice = rng.randrange(4)
    if choice == 0:
        return raw.replace(b'boundary="', b'boundary="x', 1)
    if choice == 1:
        return raw.replace(b"--\r\n", b"\r\n")  # no closing delimiter
    if choice == 2:
        return raw.replace(b"\r\n--", b"\r\n-", rng.randint(1, 3))
    return raw.replace(
        b"Content-Type: multipart/", b"Content-Type: multipart/" + b"x" * rng.randint(0, 3)
    )


def _encoding(raw: bytes, rng: random.Random) -> bytes:
    for name in (b"base64", b"quoted-printable"):
        raw = raw.replace(b"Encoding: " + name, b"Encoding: " + rng.choice(_ENCODINGS))
    return raw


def _headers(raw: bytes, rng: random.Random) -> bytes:
    head, sep, body = raw.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    choice = rng.randrange(4)
    if choice == 0:
        lines.insert(
            rng.randrange(len(lines) + 1), bytes(rng.randrange(128, 256) for _ in range(9))
        )
    elif choice == 1:
        lines = [line.replace(b":", b"", 1) if rng.random() < 0.3 else line for line in lines]
    elif choice == 2:
        lines += lines[: rng.randint(1, 3)]  # repeated fields
    else:
        lines = [b" " + line if rng.random() < 0.2 else line for line in lines]  # stray folds
    return b"\r\n".join(lines) + sep + body


MUTATIONS = [_flip, _truncate, _charset, _boundary, _encoding, _headers]


def mutate(raw: bytes, rng: random.Random) -> bytes:
    """``raw`` with one to three kinds of damage."""
    for mutation in rng.sample(MUTATIONS, rng.randint(1, 3)):
        raw = mutation(raw, rng) or raw
    return raw


def mutated_messages(count: int, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    return [mutate(rng.choice(SAMPLES), rng) for _ in range(count)]


# --- Gmail API messages ------------------------------------------------------------------


def _data(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


GMAIL_MESSAGE: dict[str, Any] = {
    "id": "18f3a2b4c5d6e7f8",
    "threadId": "18f3a2b4c5d6e7f8",
    "labelIds": ["INBOX", "UNREAD", "CATEGORY_PERSONAL"],
    "snippet": "Hola Marta, la reuni&oacute;n pasa a las 10:30",
    "internalDate": "1791277920000",
    "payload": {
        "partId": "",
        "mimeType": "multipart/mixed",
        "filename": "",
        "headers": [
            {"name": "From", "value": "Marta <marta@kestrel.example.org>"},
            {"name": "Subject", "value": "=?UTF-8?Q?Reuni=C3=B3n?="},
            {"name": "Date", "value": "Tue, 6 Oct 2026 09:12:00 +0200"},
            {"name": "Reply-To", "value": "team@kestrel.example.org"},
        ],
        "body": {"size": 0},
        "parts": [
            {
                "partId": "0",
                "mimeType": "multipart/alternative",
                "filename": "",
                "headers": [{"name": "Content-Type", "value": "multipart/alternative"}],
                "body": {"size": 0},
                "parts": [
                    {
                        "partId": "0.0",
                        "mimeType": "text/plain",
                        "filename": "",
                        "headers": [{"name": "Content-Type", "value": "text/plain; charset=UTF-8"}],
                        "body": {"size": 2, "data": _data("\r\n")},
                    },
                    {
                        "partId": "0.1",
                        "mimeType": "text/html",
                        "filename": "",
                        "headers": [{"name": "Content-Type", "value": "text/html; charset=UTF-8"}],
                        "body": {"size": len(_HTML), "data": _data(_HTML)},
                    },
                ],
            },
            {
                "partId": "1",
                "mimeType": "application/pdf",
                "filename": "agenda.pdf",
                "headers": [
                    {"name": "Content-Type", "value": 'application/pdf; name="agenda.pdf"'},
                    {"name": "Content-Disposition", "value": 'attachment; filename="agenda.pdf"'},
                ],
                "body": {"size": 48213, "attachmentId": "ANGjdJ8"},
            },
        ],
    },
}

_ODD_VALUES: list[Any] = [None, 0, -1, 10**30, "", "\x00", "=?zlib?Q?x?=", [], {}, True, 1.5, ["x"]]


def _nodes(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every value inside a JSON document."""
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _nodes(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _nodes(item, (*path, index))
    return found


def _mutate_json(message: dict[str, Any], rng: random.Random) -> Any:
    doc = copy.deepcopy(message)
    for _ in range(rng.randint(1, 4)):
        paths = [p for p in _nodes(doc) if p]
        if not paths:
            return rng.choice(_ODD_VALUES)
        path = rng.choice(paths)
        parent = doc
        for step in path[:-1]:
            parent = parent[step]
        choice = rng.randrange(4)
        if choice == 0 and isinstance(parent, dict):
            del parent[path[-1]]
        elif choice == 1 and isinstance(parent[path[-1]], str):
            text = parent[path[-1]]
            parent[path[-1]] = text[: rng.randrange(len(text) + 1)] + rng.choice(
                ["", "!", "\udcff", "=="]
            )
        elif choice == 2:
            parent[path[-1]] = {"parts": [parent[path[-1]]] * 3, "mimeType": "multipart/related"}
        else:
            parent[path[-1]] = rng.choice(_ODD_VALUES)
    return doc


def mutated_gmail_messages(count: int, seed: int) -> list[Any]:
    rng = random.Random(seed)
    return [_mutate_json(GMAIL_MESSAGE, rng) for _ in range(count)]


def gmail_json(message: Any) -> str:
    return json.dumps(message, ensure_ascii=False, default=str)
