"""The chat's store queries: sessions, messages with their tool calls, and notifications on
their way to the user (pending → attached to a synthetic message → delivered)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

import peewee as pw

from engine.store.base import database
from engine.store.models import ChatMessage, ChatSession, ChatToolCall, Notification

# sessions and messages -----------------------------------------------------------------------


def default_session() -> ChatSession:
    session = ChatSession.select().order_by(ChatSession.id).first()
    return session if session is not None else ChatSession.create(title="Chat")


def add_message(session_id: int, role: str, content: str = "", **fields: Any) -> ChatMessage:
    return ChatMessage.create(session=session_id, role=role, content=content, **fields)


def get_message(message_id: int) -> ChatMessage | None:
    return ChatMessage.get_or_none(ChatMessage.id == message_id)


def add_tool_message(
    session_id: int,
    meta: dict[str, Any],
    *,
    name: str,
    arguments: dict[str, Any],
    status: str,
    result_type: str,
    result: str,
    finished_at: datetime,
    **fields: Any,
) -> ChatMessage:
    """An assistant message holding one finished tool call, written together."""
    with database.atomic():
        msg = ChatMessage.create(
            session=session_id, role="assistant", content="", meta=meta, **fields
        )
        ChatToolCall.create(
            message=msg,
            name=name,
            arguments=arguments,
            status=status,
            result_type=result_type,
            result=result,
            finished_at=finished_at,
        )
    return msg


def begin_tool_call(
    session_id: int, name: str, arguments: dict[str, Any], **fields: Any
) -> ChatToolCall:
    """An assistant message with one running tool call (finished by ``finish_tool_call``)."""
    with database.atomic():
        msg = ChatMessage.create(session=session_id, role="assistant", **fields)
        return ChatToolCall.create(message=msg, name=name, arguments=arguments, status="running")


def finish_tool_call(
    call: ChatToolCall, status: str, result_type: str, result: str, now: datetime
) -> None:
    call.status, call.result_type, call.result, call.finished_at = status, result_type, result, now
    call.save()


def update_meta(message_id: int, changes: dict[str, Any]) -> None:
    """Add ``changes`` to a stored message's meta."""
    msg = get_message(message_id)
    if msg is not None:
        msg.meta = {**(msg.meta or {}), **changes}
        msg.save()


def recent_messages(
    limit: int, session_id: int | None = None, *, since_id: int | None = None
) -> list[tuple[ChatMessage, list[ChatToolCall]]]:
    """The last ``limit`` messages (of one session, or all; from message ``since_id`` on),
    oldest first, each with its tool calls in the order they were made."""
    query = ChatMessage.select().order_by(ChatMessage.id.desc()).limit(limit)
    if session_id is not None:
        query = query.where(ChatMessage.session == session_id)
    if since_id is not None:
        query = query.where(ChatMessage.id >= since_id)
    messages = list(query)[::-1]
    calls: dict[int, list[ChatToolCall]] = {}
    if messages:
        for call in (
            ChatToolCall.select()
            .where(ChatToolCall.message.in_([m.id for m in messages]))
            .order_by(ChatToolCall.id)
        ):
            calls.setdefault(call.message_id, []).append(call)
    return [(m, calls.get(m.id, [])) for m in messages]


def delete_from(message_id: int) -> None:
    """Undo a delivery: the message ``message_id`` and everything after it in its session go,
    and its notifications are pending again, attached to nothing."""
    with database.atomic():
        msg = get_message(message_id)
        if msg is not None:
            ChatMessage.delete().where(
                (ChatMessage.session == msg.session_id) & (ChatMessage.id >= message_id)
            ).execute()
        Notification.update(message_id=None).where(
            (Notification.message_id == message_id) & (Notification.state == "pending")
        ).execute()


# notifications -------------------------------------------------------------------------------


def add_notification(**fields: Any) -> Notification | None:
    """A new pending notification; None when its ``dedup_key`` was already notified."""
    try:
        with database.atomic():
            return Notification.create(**fields)
    except pw.IntegrityError:
        return None


def pending_count() -> int:
    return Notification.select().where(Notification.state == "pending").count()


def _due(now: datetime) -> pw.Expression:
    return (Notification.state == "pending") & (
        Notification.next_attempt_at.is_null() | (Notification.next_attempt_at <= now)
    )


def due_notifications(now: datetime, limit: int | None = None) -> list[Notification]:
    """Pending notifications whose (re)try is due, oldest first (at most ``limit``)."""
    query = Notification.select().where(_due(now)).order_by(Notification.id)
    return list(query.limit(limit) if limit is not None else query)


def any_due(now: datetime) -> bool:
    return bool(Notification.select(Notification.id).where(_due(now)).exists())


def next_retry_at() -> datetime | None:
    """When the earliest pending notification that waits for a retry is due."""
    waiting = (
        Notification.select(Notification.next_attempt_at)
        .where((Notification.state == "pending") & Notification.next_attempt_at.is_null(False))
        .order_by(Notification.next_attempt_at)
        .first()
    )
    return waiting.next_attempt_at if waiting is not None else None


def interrupted_deliveries() -> set[int]:
    """The synthetic messages of deliveries a crash interrupted (still pending, attached)."""
    stuck = Notification.select(Notification.message_id).where(
        (Notification.state == "pending") & Notification.message_id.is_null(False)
    )
    return {n.message_id for n in stuck if n.message_id is not None}


def attach(notification_ids: Iterable[int], message_id: int) -> None:
    Notification.update(message_id=message_id).where(
        Notification.id.in_(list(notification_ids))
    ).execute()


def mark_delivered(notification_ids: Iterable[int], reply_id: int, now: datetime) -> None:
    Notification.update(state="delivered", reply_message_id=reply_id, delivered_at=now).where(
        Notification.id.in_(list(notification_ids))
    ).execute()


def record_attempt(notification_id: int, error: str, next_attempt_at: datetime) -> None:
    Notification.update(
        attempts=Notification.attempts + 1, last_error=error, next_attempt_at=next_attempt_at
    ).where(Notification.id == notification_id).execute()


def notifications_of_message(message_id: int) -> list[Notification]:
    """The pending notifications a synthetic message's ``read_notification`` holds, in the
    order it holds them (oldest first)."""
    return list(
        Notification.select()
        .where((Notification.message_id == message_id) & (Notification.state == "pending"))
        .order_by(Notification.id)
    )


def notifications_of_reply(reply_id: int) -> list[Notification]:
    return list(Notification.select().where(Notification.reply_message_id == reply_id))


# replies a terminal has yet to print -----------------------------------------------------------

UNPRINTED = "unprinted"
"""The mark a ``tic-desktop tick`` puts in the meta of each reply it delivers, in the reply's
own transaction, and takes off once it has printed the reply."""


def unprinted_replies() -> list[ChatMessage]:
    """Replies a tick delivered but was killed before printing, oldest first."""
    marked = pw.fn.json_extract(ChatMessage.meta, f"$.{UNPRINTED}") == 1
    return list(ChatMessage.select().where(marked).order_by(ChatMessage.id))


def mark_printed(message_id: int) -> None:
    meta = pw.fn.json_remove(ChatMessage.meta, f"$.{UNPRINTED}")
    ChatMessage.update({ChatMessage.meta: meta}).where(ChatMessage.id == message_id).execute()


# replies the user opened ---------------------------------------------------------------------

READ_AT = "read_at"
"""When the user opened a notification's reply ("Open" on its toast or in the chat), in the
reply's meta."""


def mark_read(message_id: int, when: datetime) -> None:
    meta = pw.fn.json_set(pw.fn.coalesce(ChatMessage.meta, "{}"), f"$.{READ_AT}", when.isoformat())
    ChatMessage.update({ChatMessage.meta: meta}).where(ChatMessage.id == message_id).execute()
