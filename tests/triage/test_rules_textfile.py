"""Reading the rules file line by line: a line that is not UTF-8 is left out and named."""

from __future__ import annotations

import pytest

from engine.triage.rules.textfile import NOT_UTF8, UnreadableLine, decode_rules


@pytest.mark.allow_log_warnings
def test_a_line_that_is_not_utf8_is_left_out_and_named_with_its_bytes_escaped() -> None:
    found = decode_rules(b"## Never notify\r\n- caf\xe9 people\r\n- \xc3\xa9t\xc3\xa9\r\n")

    assert found.text == "## Never notify\n\n- \u00e9t\u00e9\n"
    assert found.unreadable == (UnreadableLine(2, "caf\\xe9 people", NOT_UTF8),)


def test_a_file_that_is_all_utf8_reads_as_text_does() -> None:
    raw = "\ufeff# Rules\r\n\r- Emails from Tom\u00e1s\n- last line".encode()

    found = decode_rules(raw)

    assert found.text == raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    assert found.unreadable == ()
