"""engine.store.values: the state, status, role and kind columns read as StrEnum members
while the database keeps exactly the strings it kept before the enums existed."""

from __future__ import annotations

import re
from enum import StrEnum

import peewee as pw
import pytest

from engine.store.fields import EnumField
from engine.store.models import (
    ALL_MODELS,
    AgentRun,
    ChatMessage,
    ChatSession,
    ChatToolCall,
    EventRecord,
    Job,
    Notification,
    SourceStatus,
)
from engine.store.values import (
    ChatRole,
    EventStatus,
    JobKind,
    JobStatus,
    NotificationState,
    Recurrence,
    RunStatus,
    SourceState,
    ToolCallStatus,
    ToolResultType,
)

# Every enum column: (model, column, its enum, the words existing stores hold).
COLUMNS = [
    (EventRecord, "status", EventStatus, {"pending", "processing", "done", "failed"}),
    (Notification, "state", NotificationState, {"pending", "delivered"}),
    (SourceStatus, "state", SourceState, {"ok", "retrying", "error", "needs_sign_in"}),
    (ChatMessage, "role", ChatRole, {"user", "assistant"}),
    (
        ChatToolCall,
        "status",
        ToolCallStatus,
        {"running", "pending", "done", "failed", "cancelled", "rejected"},
    ),
    (ChatToolCall, "result_type", ToolResultType, {"string", "json"}),
    (AgentRun, "status", RunStatus, {"running", "ok", "error"}),
    (Job, "kind", JobKind, {"reminder", "task", "later"}),
    (Job, "status", JobStatus, {"active", "done", "cancelled"}),
    (
        Job,
        "recurrence",
        Recurrence,
        {"none", "hourly", "daily", "weekdays", "weekly", "monthly"},
    ),
]


def raw(db: pw.Database, sql: str) -> list[tuple[object, ...]]:
    return list(db.execute_sql(sql).fetchall())


def test_every_enum_column_is_listed() -> None:
    declared = {
        (model, name)
        for model in ALL_MODELS
        for name, field in model._meta.fields.items()
        if isinstance(field, EnumField)
    }
    assert declared == {(model, column) for model, column, _, _ in COLUMNS}


@pytest.mark.parametrize(("model", "column", "enum", "words"), COLUMNS)
def test_enum_values_are_the_stored_words(
    model: type[pw.Model], column: str, enum: type[StrEnum], words: set[str]
) -> None:
    assert getattr(model, column).enum is enum
    assert {member.value for member in enum} == words


def test_tool_call_check_constraints_match_the_enums(db: pw.Database) -> None:
    [(checks,)] = raw(db, "SELECT sql FROM sqlite_master WHERE name = 'chat_llm_tools'")
    allowed = {
        column: set(re.findall(r"'([a-z_]+)'", part))
        for column, part in re.findall(r"(\w+) in \(([^)]*)\)", str(checks))
    }
    assert allowed == {
        "status": {m.value for m in ToolCallStatus},
        "result_type": {m.value for m in ToolResultType},
    }


def test_members_and_plain_words_are_stored_as_plain_words(db: pw.Database) -> None:
    Job.create(text="a", status=JobStatus.CANCELLED, recurrence=Recurrence.WEEKDAYS)
    Job.create(text="b", status="done", recurrence="daily", kind="task")
    assert raw(db, "SELECT kind, status, recurrence, typeof(status) FROM jobs ORDER BY id") == [
        ("reminder", "cancelled", "weekdays", "text"),
        ("task", "done", "daily", "text"),
    ]


def test_stored_words_read_back_as_members(db: pw.Database) -> None:
    db.execute_sql(
        "INSERT INTO source_status (key, kind, account, state, updated_at) "
        "VALUES ('imap:a', 'imap', 'a', 'needs_sign_in', '2025-01-01T00:00:00+00:00')"
    )
    row = SourceStatus.get(SourceStatus.key == "imap:a")
    assert row.state is SourceState.NEEDS_SIGN_IN
    assert row.state == "needs_sign_in" and f"{row.state}" == "needs_sign_in"


def test_queries_compare_with_members_or_words(db: pw.Database) -> None:
    session = ChatSession.create()
    message = ChatMessage.create(session=session, role=ChatRole.ASSISTANT)
    ChatToolCall.create(message=message, name="t", status="running")
    ChatToolCall.create(message=message, name="t", status=ToolCallStatus.DONE)
    assert ChatToolCall.select().where(ChatToolCall.status == "done").count() == 1
    assert ChatToolCall.select().where(ChatToolCall.status == ToolCallStatus.RUNNING).count() == 1
    both = ChatToolCall.select().where(ChatToolCall.status.in_(["running", ToolCallStatus.DONE]))
    assert both.count() == 2


def test_a_word_outside_the_set_is_refused(db: pw.Database) -> None:
    with pytest.raises(ValueError, match="not a valid JobStatus"):
        Job.create(text="a", status="finished")
    assert raw(db, "SELECT count(*) FROM jobs") == [(0,)]
