"""Reading events (engine.events) and the user's rules file (engine.rules)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from engine.errors import InputError
from engine.events import read_events
from engine.triage.rules.parse import ALWAYS, CUSTOM, NEVER, parse_rules
from tests.factories import event_dict


def write_lines(path: Path, *lines: str | dict[str, Any]) -> Path:
    text = "\n".join(
        ln if isinstance(ln, str) else json.dumps(ln, ensure_ascii=False) for ln in lines
    )
    path.write_text(text + "\n", encoding="utf-8")
    return path


def input_error(path: Path) -> str:
    with pytest.raises(InputError) as info:
        read_events(path)
    message = str(info.value)
    assert "\n" not in message
    return message


# read_events ---------------------------------------------------------------------------


def test_reads_a_good_file(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "events.jsonl",
        event_dict(id="gmail:1", subject="Invoice"),
        "",
        "   ",
        event_dict(
            id="wa:2",
            source="whatsapp",
            event_type="whatsapp.message",
            time="2026-11-10T08:00:00+01:00",
            chat={"id": "g1", "name": "Family", "is_group": True},
            mentions_me=True,
        ),
    )

    events = read_events(path)

    assert [e.id for e in events] == ["gmail:1", "wa:2"]
    assert events[0].subject == "Invoice"
    assert events[0].sender is not None and events[0].sender.display() == (
        "Anna Berg <anna@example.org>"
    )
    assert events[1].time == datetime(2026, 11, 10, 7, 0, tzinfo=UTC)
    assert events[1].chat is not None and events[1].chat.is_group
    assert events[1].mentions_me is True


def test_a_byte_order_mark_and_crlf_line_ends_are_accepted(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    lines = [json.dumps(event_dict(id=f"gmail:{n}")) for n in (1, 2)]
    path.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(lines).encode() + b"\r\n")

    assert [e.id for e in read_events(path)] == ["gmail:1", "gmail:2"]


def test_unicode_line_separators_inside_text_stay_in_the_event(tmp_path: Path) -> None:
    text = "first\u2028second\u2029third\x85fourth"
    path = write_lines(tmp_path / "events.jsonl", event_dict(text=text), event_dict())

    events = read_events(path)

    assert len(events) == 2
    assert events[0].text == text


def test_an_invalid_json_line_names_the_file_and_line(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "events.jsonl", event_dict(), "", '{"id": "gmail:3",')

    message = input_error(path)

    assert message.startswith(f"{path}:3: invalid JSON")


def test_a_line_missing_source_names_the_file_line_and_field(tmp_path: Path) -> None:
    broken = event_dict()
    del broken["source"]
    path = write_lines(tmp_path / "events.jsonl", event_dict(), broken)

    message = input_error(path)

    assert message.startswith(f"{path}:2: invalid event (source:")
    assert "required" in message


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"source": "telegram"}, "source"),
        ({"id": ""}, "id"),
        ({"time": "yesterday"}, "time"),
        ({"labels": "inbox"}, "labels"),
    ],
)
def test_an_invalid_field_names_the_field(
    tmp_path: Path, overrides: dict[str, Any], field: str
) -> None:
    path = write_lines(tmp_path / "events.jsonl", event_dict(**overrides))

    assert input_error(path).startswith(f"{path}:1: invalid event ({field}:")


def test_a_line_that_is_not_an_object_is_refused(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "events.jsonl", event_dict(), "[1, 2]")

    assert input_error(path) == f"{path}:2: invalid event (expected a JSON object)"


def test_one_bad_line_fails_the_whole_file(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "events.jsonl", event_dict(), event_dict(), "nonsense")

    assert input_error(path).startswith(f"{path}:3:")


def test_unknown_extra_fields_are_ignored(tmp_path: Path) -> None:
    event = event_dict(
        id="gmail:x",
        spam_score=0.93,
        sender={"name": "Anna", "address": "anna@example.org", "avatar": "a.png"},
        calendar={"start": "2026-11-12T10:00:00+01:00", "colour": "red"},
    )
    path = write_lines(tmp_path / "events.jsonl", event)

    [parsed] = read_events(path)

    assert parsed.id == "gmail:x"
    assert "spam_score" not in parsed.model_dump()
    assert "avatar" not in parsed.model_dump()["sender"]
    assert "spam_score" not in parsed.to_json()


def test_null_text_labels_headers_and_refs_become_empty(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "events.jsonl",
        event_dict(text=None, labels=None, headers=None, refs=None, sender=None, subject=None),
    )

    [event] = read_events(path)

    assert event.text == ""
    assert event.labels == []
    assert event.headers == {}
    assert event.refs == {}
    assert event.sender is None
    assert event.subject is None


def test_missing_optional_fields_default_to_empty(tmp_path: Path) -> None:
    minimal = {
        "id": "cron:1",
        "source": "cron",
        "event_type": "cron.reminder",
        "time": "2026-11-10T09:00:00Z",
    }
    path = write_lines(tmp_path / "events.jsonl", minimal)

    [event] = read_events(path)

    assert (event.text, event.labels, event.headers, event.refs) == ("", [], {}, {})
    assert event.mentions_me is False
    assert event.time == datetime(2026, 11, 10, 9, 0, tzinfo=UTC)


def test_a_naive_time_is_refused(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "events.jsonl", event_dict(time="2026-11-10T07:01:00"))

    message = input_error(path)

    assert message.startswith(f"{path}:1: invalid event (time:")
    assert "UTC offset" in message


def test_a_file_that_is_not_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    good = json.dumps(event_dict()).encode()
    bad = json.dumps(event_dict(text="caf\u00e9")).encode().replace(b"caf", b"caf\xe9", 1)
    path.write_bytes(good + b"\n" + good + b"\n" + bad + b"\n")

    assert input_error(path) == f"{path}:3: not valid UTF-8"


def test_a_missing_file_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "nope.jsonl"

    assert input_error(path).startswith(f"{path}: cannot read")


# parse_rules --------------------------------------------------------------------------


def sections(text: str) -> dict[str, list[str]]:
    ruleset = parse_rules(text)
    return {name: [r.text for r in ruleset.section(name)] for name in (ALWAYS, NEVER, CUSTOM)}


def test_the_recommended_structure() -> None:
    text = (
        "# Notification preferences\n"
        "## Always notify\n"
        "- emails from Mario\n"
        "## Never notify\n"
        "- newsletters\n"
        "## Custom rules\n"
        "- group chats only when I am mentioned\n"
    )

    ruleset = parse_rules(text)

    assert sections(text) == {
        ALWAYS: ["emails from Mario"],
        NEVER: ["newsletters"],
        CUSTOM: ["group chats only when I am mentioned"],
    }
    assert [r.line_number for r in ruleset.rules] == [3, 5, 7]


def test_bullet_styles() -> None:
    text = (
        "## Always notify\n"
        "- dash\n"
        "* star\n"
        "+ plus\n"
        "1. numbered\n"
        "12) numbered with a paren\n"
        "   - indented   \n"
        "-no space is prose\n"
        "- \n"
    )

    assert sections(text)[ALWAYS] == [
        "dash",
        "star",
        "plus",
        "numbered",
        "numbered with a paren",
        "indented",
    ]


@pytest.mark.parametrize(
    ("heading", "section"),
    [
        ("## ALWAYS notify", ALWAYS),
        ("##Always Notify", ALWAYS),
        ("  ###   always notify me  ##", ALWAYS),
        ("##Never notify", NEVER),
        ("## never NOTIFY", NEVER),
        ("### Don't notify me about", NEVER),
        ("## Do not notify", NEVER),
        ("## Mute", NEVER),
        ("## Custom rules", CUSTOM),
        ("## Work hours", CUSTOM),
    ],
)
def test_heading_variants(heading: str, section: str) -> None:
    ruleset = parse_rules(f"{heading}\n- the rule\n")

    assert [(r.section, r.text) for r in ruleset.rules] == [(section, "the rule")]


def test_prose_lines_are_ignored() -> None:
    text = (
        "# Notification preferences\n"
        "These are my rules. Please respect them.\n"
        "\n"
        "## Never notify\n"
        "Marketing is the worst.\n"
        "- marketing emails\n"
        "  continuation prose under the bullet\n"
    )

    assert sections(text) == {ALWAYS: [], NEVER: ["marketing emails"], CUSTOM: []}


def test_rules_before_any_heading_and_under_the_title_are_custom() -> None:
    text = (
        "- before anything\n"
        "# Notification preferences\n"
        "- under the title\n"
        "## Always notify\n"
        "- from my boss\n"
    )

    assert sections(text) == {
        ALWAYS: ["from my boss"],
        NEVER: [],
        CUSTOM: ["before anything", "under the title"],
    }


def test_an_empty_or_template_file_has_no_rules() -> None:
    template = "# Notification preferences\n\n## Always notify\n\n## Never notify\n"

    assert parse_rules("").is_empty
    assert parse_rules(template).is_empty
    assert not parse_rules("- one rule").is_empty


def test_the_first_keyword_of_a_heading_decides_its_section() -> None:
    from engine.triage.rules.parse import ALWAYS, NEVER, classify_heading

    assert classify_heading("Always notify (never miss these)") == ALWAYS
    assert classify_heading("Never notify, not even always-on alerts") == NEVER
    assert classify_heading("Mute") == NEVER
