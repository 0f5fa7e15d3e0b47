"""A chat session's transcript in the store (``chat_history`` + ``chat_llm_tools``), as the
agent loop reads and writes it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.agent.actions import Action
from engine.agent.loop import ToolStep, Transcript, result_message
from engine.agent.taint import OUTSIDE, as_data, is_outside
from engine.llm.base import Completion, Message
from engine.store import chat
from engine.store.db import database
from engine.store.fields import utcnow
from engine.store.models import ChatMessage, ChatToolCall

HISTORY_WINDOW = 40


def prompt_messages(session_id: int, window: int = HISTORY_WINDOW) -> list[Message]:
    """The last ``window`` stored messages rendered for the model: replies and tool calls as
    the JSON actions the model writes, tool results as the messages it reads (those holding
    outside content inside an untrusted-content block, see ``engine.agent.taint``)."""
    out: list[Message] = []
    for row, calls in chat.recent_messages(window, session_id):
        if row.role == "user":
            out.append({"role": "user", "content": row.content})
            continue
        outside = is_outside(row.meta)
        for call in calls:
            action = Action("tool", tool=call.name, arguments=call.arguments or {})
            out.append({"role": "assistant", "content": action.to_json()})
            if call.status in ("done", "failed", "rejected"):
                result = call.result or ""
                step = ToolStep(action, call.status, call.result_type, result, outside=outside)
                out.append(result_message(step))
        if row.content:
            text = as_data(row.content) if outside else row.content
            out.append({"role": "assistant", "content": Action("reply", text).to_json()})
    return out


class StoredTranscript(Transcript):
    def __init__(
        self,
        session_id: int,
        kind: str,
        *,
        reply_meta: dict[str, Any] | None = None,
        on_reply: Callable[[ChatMessage], None] | None = None,
        complete_reply: Callable[[str], str] | None = None,
        window: int = HISTORY_WINDOW,
    ):
        self.session_id = session_id
        self.kind = kind
        self.reply_meta = reply_meta or {}
        self.on_reply = on_reply
        self.complete_reply = complete_reply
        self.window = window

    def messages(self) -> list[Message]:
        return prompt_messages(self.session_id, self.window)

    def begin_tool(self, action: Action, completion: Completion) -> ChatToolCall:
        return chat.begin_tool_call(
            self.session_id,
            action.tool,
            action.arguments,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            duration_ms=completion.duration_ms,
            meta={"kind": self.kind},
        )

    def end_tool(self, handle: ChatToolCall, step: ToolStep) -> None:
        with database.atomic():
            chat.finish_tool_call(handle, step.status, step.result_type, step.result, utcnow())
            if step.outside:
                chat.update_meta(handle.message_id, {OUTSIDE: True})

    def outside_content(self) -> bool:
        return any(
            is_outside(row.meta) for row, _ in chat.recent_messages(self.window, self.session_id)
        )

    def add_reply(self, text: str, completion: Completion) -> ChatMessage:
        """The reply and whatever ``on_reply`` marks (delivered notifications) commit together."""
        if self.complete_reply is not None:
            text = self.complete_reply(text)
        return self._add(text, completion, {})

    def add_proposal(self, action: Action, text: str, completion: Completion) -> ChatMessage:
        """The question is composed in code; the proposed call waits in the reply's meta for
        the user's yes (see :func:`pending_proposal`)."""
        proposed = {"tool": action.tool, "arguments": action.arguments}
        return self._add(text, completion, {"composed": True, "proposed": proposed})

    def _add(self, text: str, completion: Completion, meta: dict[str, Any]) -> ChatMessage:
        with database.atomic():
            msg = chat.add_message(
                self.session_id,
                "assistant",
                text,
                prompt_tokens=completion.prompt_tokens,
                completion_tokens=completion.completion_tokens,
                duration_ms=completion.duration_ms,
                meta={"kind": self.kind, **self.reply_meta, **meta},
            )
            if self.on_reply is not None:
                self.on_reply(msg)
        return msg


def pending_proposal(session_id: int) -> dict[str, Any] | None:
    """The change the assistant last asked the user about, if the user has not answered
    yet: ``{"tool": ..., "arguments": ...}``. Notifications in between don't count."""
    for row, _calls in reversed(chat.recent_messages(HISTORY_WINDOW, session_id)):
        meta = row.meta or {}
        if row.is_synthetic or meta.get("kind") == "notification":
            continue
        proposed = meta.get("proposed") if row.role == "assistant" else None
        return proposed if isinstance(proposed, dict) else None
    return None
