"""A message's text as its reader sees it (engine.sources.mail.text), without a server: HTML
through a real parser, the part that holds the text, attachment names, broken boundaries."""

from __future__ import annotations

import base64

import pytest

from engine.sources.mail.headers import decode_bytes
from engine.sources.mail.text import (
    TEXT_LIMIT,
    MimePart,
    attachment_names,
    attachment_summary,
    first_reads,
    html_to_text,
    loose_text,
    param_value,
    part_links,
    part_text,
    split_header_params,
    text_parts,
    transfer_decode,
)

PLAIN = MimePart("1", "text", "plain", "utf-8")
HTML = MimePart("2", "text", "html", "utf-8")


# --- HTML to text ------------------------------------------------------------------------


def test_html_becomes_the_text_a_browser_shows() -> None:
    markup = (
        "<html><head><title>Weekly</title><style>p { color: red }</style></head>"
        "<body><script>track()</script><p>Caf&eacute; &amp; cr&egrave;me\n  today</p>"
        "<table><tr><td>Room</td><td>4B</td></tr></table>"
        "Line one<br/>Line two<!-- hidden --><div>Tschüß&nbsp;&#8211; Ola</div></body></html>"
    )
    text = html_to_text(markup)
    assert [line.strip() for line in text.splitlines() if line.strip()] == [
        "Café & crème today",
        "Room 4B",
        "Line one",
        "Line two",
        "Tschüß\xa0– Ola",
    ]


@pytest.mark.parametrize(
    "cut",
    [
        '<p>See the plan</p><a class="moz-txt-link-freetext" href="https://www.exa',
        "<p>See the plan</p><a",
        "<p>See the plan</p><",
        "<p>See the plan</p><!-- a comment that never",
        "<p>See the plan</p>&am",
    ],
)
def test_a_tag_cut_off_by_a_partial_read_never_shows(cut: str) -> None:
    assert html_to_text(cut, partial=True).strip() == "See the plan"


def test_a_head_without_body_tag_ends_at_the_first_block() -> None:
    assert html_to_text("<head><title>x</title><meta charset=utf-8><p>Hello</p>").strip() == (
        "Hello"
    )


def test_pre_keeps_its_line_breaks() -> None:
    assert html_to_text("<pre>a  b\nc</pre>x   y") == "\na  b\nc\nx y"


def test_a_long_html_part_is_cut_as_text_not_as_markup() -> None:
    style = "<style>" + "td { padding: 0 }\n" * 400 + "</style>"
    body = "".join(
        f'<p>Item {n} <a href="https://shop.example.org/{n}">view</a></p>' for n in range(500)
    )
    raw = (style + body).encode()
    text = part_text(raw[:20_000], HTML, partial=True)
    words = "\n\n".join(f"Item {n} view" for n in range(500))
    assert text == words[: TEXT_LIMIT - 1].rstrip() + "\u2026"


def test_a_plain_part_that_is_really_html_is_read_as_html() -> None:
    raw = b"<p><b>build</b> 214 passed</p><p>see<br>the log</p>"
    assert part_text(raw, PLAIN) == "build 214 passed\n\nsee\nthe log"
    assert part_text(b"if a <b then c", PLAIN) == "if a <b then c"


def test_invisible_padding_is_dropped() -> None:
    raw = "<p>Sale starts today</p><div>\u200c&nbsp;\u200c&zwnj;&nbsp;\u034f\u00ad</div>".encode()
    assert part_text(raw, HTML) == "Sale starts today"


# --- transfer encodings and charsets -------------------------------------------------------


def test_base64_skips_junk_and_reads_on_after_padding() -> None:
    joined = base64.b64encode(b"first ") + b"\r\n" + base64.b64encode(b"second")
    assert transfer_decode(joined, "base64") == b"first second"
    assert transfer_decode(b"w6nD*qcOp!\r\n", "base64") == "ééé".encode()
    assert transfer_decode(b"w6nDqcOpw", "base64", partial=True) == "ééé".encode()


@pytest.mark.parametrize(
    ("data", "charset", "text"),
    [
        ("Grüße".encode(), "iso-8859-1", "Grüße"),  # UTF-8 mislabelled Latin-1
        ("Grüße".encode("latin-1"), "iso-8859-1", "Grüße"),
        ("Grüße".encode("cp1252"), "us-ascii", "Gr\ufffd\ufffde"),
        ("ルビー".encode("euc-jp"), "iso-2022-jp", "ルビー"),  # EUC-JP mislabelled
        ("日本語".encode("iso-2022-jp"), "iso-2022-jp", "日本語"),
        ("日本語".encode("iso-2022-jp"), None, "日本語"),  # unlabelled, but its escapes say it
        ("日本語".encode("iso-2022-jp"), "us-ascii", "日本語"),
    ],
)
def test_mislabelled_charsets_are_read(data: bytes, charset: str | None, text: str) -> None:
    assert decode_bytes(data, charset) == text


@pytest.mark.parametrize("charset", ["zlib", "base64", "hex", "rot13", "uu", "bz2", "idna"])
def test_a_python_codec_name_as_charset_is_no_charset(charset: str) -> None:
    assert decode_bytes("Grüße".encode(), charset) == "Grüße"
    assert decode_bytes(b"\xff\xfe odd", charset) == "ÿþ odd"


# --- which part is the text --------------------------------------------------------------


def test_a_tiny_plain_part_is_read_with_the_html_one() -> None:
    blank = MimePart("1.1", "text", "plain", size=2)
    html = MimePart("1.2", "text", "html", size=900)
    assert first_reads(text_parts([blank, html])) == [blank, html]
    real = MimePart("1.1", "text", "plain", size=700)
    assert first_reads(text_parts([real, html])) == [real]
    assert first_reads(text_parts([html])) == [html]


def test_text_parts_never_include_attachments() -> None:
    html = MimePart("1", "text", "html", size=500)
    notes = MimePart("2", "text", "plain", filename="notes.txt", disposition="attachment")
    trailing = MimePart("3", "text", "plain", size=0)
    report = MimePart("4", "message", "delivery-status")
    assert text_parts([html, notes, trailing, report]) == [trailing, html, report]


def test_a_named_text_part_shown_inline_is_the_text_when_there_is_no_other() -> None:
    named = MimePart("1", "text", "plain", filename="message.txt")
    attached = MimePart("2", "text", "plain", filename="log.txt", disposition="attachment")
    assert text_parts([named, attached]) == [named]
    assert text_parts([attached]) == []
    assert attachment_names([named, attached]) == ["message.txt", "log.txt"]


def test_attachment_names() -> None:
    parts = [
        MimePart("1.1", "text", "plain"),
        MimePart("1.2", "text", "html", embedded=True),
        MimePart("2", "application", "pdf", filename="Rechnung 42.pdf", disposition="attachment"),
        MimePart("3", "image", "jpeg", filename="IMG_0042.JPG", disposition="inline"),
        MimePart("4", "image", "png", embedded=True),  # a logo the HTML shows
        MimePart("5", "audio", "basic", description="Voice memo"),
        MimePart("6", "video", "mp4"),
        MimePart("7", "application", "pgp-signature", filename="signature.asc"),
        MimePart("8", "message", "rfc822", description="Minutes of Tuesday"),
    ]
    assert attachment_names(parts) == [
        "Rechnung 42.pdf",
        "IMG_0042.JPG",
        "Voice memo",
        "video/mp4",
        "Minutes of Tuesday",
    ]


def test_an_unnamed_picture_no_html_shows_is_an_attachment() -> None:
    picture = MimePart("1.1", "image", "jpeg", embedded=True)
    assert attachment_names([picture]) == ["image/jpeg"]
    assert attachment_names([MimePart("1.2", "text", "html", embedded=True), picture]) == []


@pytest.mark.parametrize(
    ("names", "summary"),
    [
        ([], ""),
        (["plan.pdf"], "[1 attachment: plan.pdf]"),
        (["a.pdf", "b.jpg"], "[2 attachments: a.pdf, b.jpg]"),
        (
            [f"p{n}.jpg" for n in range(7)],
            "[7 attachments: p0.jpg, p1.jpg, p2.jpg, p3.jpg, p4.jpg, …]",
        ),
    ],
)
def test_attachment_summary(names: list[str], summary: str) -> None:
    assert attachment_summary(names) == summary


# --- parameters --------------------------------------------------------------------------


def test_header_params_are_split_outside_quotes() -> None:
    assert split_header_params('Attachment; filename="a;b \\"c\\".pdf"; size=12') == (
        "attachment",
        {"filename": 'a;b "c".pdf', "size": "12"},
    )
    assert split_header_params("inline; filename") == ("inline", {})
    assert split_header_params("") == ("", {})


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"filename": "plain.pdf"}, "plain.pdf"),
        ({"filename*": "utf-8''%E2%82%AC%20invoice.pdf"}, "€ invoice.pdf"),
        ({"filename*": "iso-8859-1'de'Gr%FC%DFe.txt"}, "Grüße.txt"),
        (
            {"filename*0*": "utf-8''%C3%A9t%C3%A9", "filename*1": "_2024", "filename*2*": ".pdf"},
            "été_2024.pdf",
        ),
        ({"filename": "=?UTF-8?B?0L/Qu9Cw0L0ucGRm?="}, "план.pdf"),
        ({"filename*": "x-bogus''caf%E9.txt"}, "café.txt"),
        ({}, None),
    ],
)
def test_param_values_as_a_reader_sees_them(params: dict[str, str], name: str | None) -> None:
    assert param_value(params, "filename") == name


# --- broken boundaries -------------------------------------------------------------------


def test_a_body_with_broken_boundaries_is_read_as_it_stands() -> None:
    html = base64.encodebytes(b"<html><body><p>Save <b>40%</b> today</p></body></html>")
    body = (
        b"This is a multi-part message in MIME format.\r\n\r\n"
        b"--=_wrong_boundary\r\nContent-Type: text/html; charset=us-ascii\r\n"
        b"Content-Transfer-Encoding: base64\r\n\r\n" + html + b"\r\n--=_wrong_boundary--\r\n"
    )
    assert loose_text(body) == "Save 40% today"
    assert loose_text(b"Just words,\r\nno parts at all.\r\n") == "Just words,\nno parts at all."
    assert loose_text(b"") == ""


def test_the_links_of_an_html_part_are_kept_as_their_hosts() -> None:
    markup = (
        '<p>Change your password <a href="https://Bit.ly/3XmP#x">here</a>, or '
        '<a href="//cdn.mailer-host.example.net/x">there</a>, or '
        '<a href="mailto:desk@ferrow-desk.example">write</a>. '
        '<a href="https://bit.ly/other">again</a></p>'
    )
    assert part_links(markup.encode(), HTML) == ["bit.ly", "cdn.mailer-host.example.net"]
    assert part_links(markup.encode(), PLAIN) == []


def test_a_plain_part_that_is_html_after_all_is_read_as_html() -> None:
    body = (
        'Download it now:\n<a href="http://freehost.example/gen.html">\n'
        'http://freehost.example/gen.html </a>\nor <a href="http://freehost.example/x">here</a>'
    )
    text = part_text(body.encode(), PLAIN)
    assert "<a" not in text and "</a>" not in text
    assert "http://freehost.example/gen.html" in text
    kept = "Use <b> for bold in the template, and compare a < b."
    assert part_text(kept.encode(), PLAIN) == kept  # one tag in prose stays as written
