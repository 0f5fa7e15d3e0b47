"""Tables of the store. The schema itself is created by versioned migrations."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import peewee as pw

from engine.store.base import database
from engine.store.fields import EnumField, JsonField, UtcDateTimeField, utcnow
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


class BaseModel(pw.Model):
    # peewee adds this very column when none is declared; declared, the type checker sees it.
    id = pw.AutoField()

    class Meta:
        database = database
        legacy_table_names = False

    if TYPE_CHECKING:
        # The stubs declare ``delete`` in a way mypy will not call on a subclass.
        @classmethod
        def delete(cls) -> pw.ModelDelete: ...


class SchemaVersion(BaseModel):
    version = pw.IntegerField()
    applied_at = UtcDateTimeField(default=utcnow)


class EventRecord(BaseModel):
    """One canonical event. ``status``: pending → processing → done (or failed after too many
    attempts). Marked done only after TIC's run and its notifications are committed."""

    event_id = pw.TextField(unique=True)
    source = pw.TextField(index=True)
    event_type = pw.TextField()
    time = UtcDateTimeField(index=True)
    sender_name = pw.TextField(null=True)
    sender_address = pw.TextField(null=True)
    subject = pw.TextField(null=True)
    text = pw.TextField(default="")
    chat_name = pw.TextField(null=True)
    calendar_start = UtcDateTimeField(null=True, index=True)
    payload = pw.TextField()
    status = EnumField(EventStatus, default=EventStatus.PENDING, index=True)
    attempts = pw.IntegerField(default=0)
    last_error = pw.TextField(null=True)
    ingested_at = UtcDateTimeField(default=utcnow)
    processed_at = UtcDateTimeField(null=True)
    decision_notify = pw.BooleanField(null=True)
    decision_reason = pw.TextField(null=True)
    decision_rule = pw.TextField(null=True)

    class Meta:
        table_name = "events"


class SourceCursor(BaseModel):
    source = pw.TextField(unique=True)
    value = pw.TextField()
    updated_at = UtcDateTimeField(default=utcnow)

    class Meta:
        table_name = "source_cursors"


class SourceStatus(BaseModel):
    """Per-source health for the UI: ok, retrying, error, needs_sign_in."""

    key = pw.TextField(unique=True)
    kind = pw.TextField()
    account = pw.TextField()
    state = EnumField(SourceState, default=SourceState.OK)
    last_sync_at = UtcDateTimeField(null=True)
    last_error = pw.TextField(null=True)
    updated_at = UtcDateTimeField(default=utcnow)

    class Meta:
        table_name = "source_status"


class ChatSession(BaseModel):
    title = pw.TextField(default="Chat")
    created_at = UtcDateTimeField(default=utcnow)

    class Meta:
        table_name = "chat_sessions"


class ChatMessage(BaseModel):
    session = pw.ForeignKeyField(ChatSession, backref="messages", on_delete="CASCADE")
    session_id: int  # peewee's accessor for the raw key
    role = EnumField(ChatRole)
    content = pw.TextField(default="")
    is_synthetic = pw.BooleanField(default=False)
    reasoning_content = pw.TextField(null=True)
    prompt_tokens = pw.IntegerField(default=0)
    completion_tokens = pw.IntegerField(default=0)
    duration_ms = pw.IntegerField(default=0)
    created_at = UtcDateTimeField(default=utcnow)
    meta = JsonField(default=dict)

    class Meta:
        table_name = "chat_history"


class ChatToolCall(BaseModel):
    message = pw.ForeignKeyField(ChatMessage, backref="tool_calls", on_delete="CASCADE")
    message_id: int  # peewee's accessor for the raw key
    name = pw.TextField()
    arguments = JsonField(default=dict)
    status = EnumField(ToolCallStatus, default=ToolCallStatus.PENDING)
    result_type = EnumField(ToolResultType, default=ToolResultType.STRING)
    result = pw.TextField(null=True)
    created_at = UtcDateTimeField(default=utcnow)
    finished_at = UtcDateTimeField(null=True)

    class Meta:
        table_name = "chat_llm_tools"
        constraints = [
            pw.Check("status in ('running','pending','done','failed','cancelled','rejected')"),
            pw.Check("result_type in ('string','json')"),
        ]


class Notification(BaseModel):
    """A notification on its way to the user. ``dedup_key`` (the event id, or a job run id)
    is unique, so a retried event can never be notified twice."""

    dedup_key = pw.TextField(unique=True)
    event_id = pw.TextField(null=True, index=True)
    source = pw.TextField()
    event_type = pw.TextField()
    summary = pw.TextField()
    event_time = UtcDateTimeField(null=True)
    refs = JsonField(default=dict)
    reason = pw.TextField(null=True)
    rule = pw.TextField(null=True)
    state = EnumField(NotificationState, default=NotificationState.PENDING, index=True)
    attempts = pw.IntegerField(default=0)
    next_attempt_at = UtcDateTimeField(null=True)
    last_error = pw.TextField(null=True)
    message_id = pw.IntegerField(null=True)
    reply_message_id = pw.IntegerField(null=True)
    created_at = UtcDateTimeField(default=utcnow)
    delivered_at = UtcDateTimeField(null=True)

    class Meta:
        table_name = "notifications"

    def as_payload(self) -> dict[str, Any]:
        """The structured notification as ``notify`` took it (what read_notification returns)."""
        return {
            "id": self.id,
            "source": self.source,
            "event_type": self.event_type,
            "summary": self.summary,
            "event_time": self.event_time.isoformat() if self.event_time else None,
            "refs": self.refs or {},
        }


class AgentRun(BaseModel):
    agent = pw.TextField()
    started_at = UtcDateTimeField(default=utcnow)
    ended_at = UtcDateTimeField(null=True)
    status = EnumField(RunStatus, default=RunStatus.RUNNING)
    events_in = pw.IntegerField(default=0)
    notifications_out = pw.IntegerField(default=0)
    error = pw.TextField(null=True)

    class Meta:
        table_name = "agent_runs"


class Job(BaseModel):
    """A scheduled job: a one-off or recurring reminder or agent task, delivered via notify."""

    kind = EnumField(JobKind, default=JobKind.REMINDER)
    text = pw.TextField()
    next_run_at = UtcDateTimeField(null=True, index=True)
    recurrence = EnumField(Recurrence, default=Recurrence.NONE)
    timezone = pw.TextField(default="UTC")
    status = EnumField(JobStatus, default=JobStatus.ACTIVE, index=True)
    created_at = UtcDateTimeField(default=utcnow)
    last_run_at = UtcDateTimeField(null=True)

    class Meta:
        table_name = "jobs"


ALL_MODELS: list[type[BaseModel]] = [
    SchemaVersion,
    EventRecord,
    SourceCursor,
    SourceStatus,
    ChatSession,
    ChatMessage,
    ChatToolCall,
    Notification,
    AgentRun,
    Job,
]
