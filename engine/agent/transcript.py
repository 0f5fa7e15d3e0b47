"""A chat session's transcript in the store (``chat_history`` + ``chat_llm_tools``), as the
agent loop reads and writes it."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.agent import taint
from engine.agent.actions import Action
from engine.agent.loop import ToolStep, Transcript, estimate_tokens, result_message
from engine.agent.taint import OUTSIDE, Sources, as_data
from engine.llm.base import Completion, Message
from engine.store import chat
from engine.store.base import database
from engine.store.fields import utcnow
from engine.store.models import ChatMessage, ChatToolCall

HISTORY_WINDOW = 40  # messages looked back through for a proposal awaiting the user's yes
MAX_ROWS = 200  # the most stored messages one prompt is built from (and ``quoted`` reads)

Rows = list[tuple[ChatMessage, list[ChatToolCall]]]


def render(row: ChatMessage, calls: list[ChatToolCall]) -> list[Message]:
    """One stored message for the model: a user's words as they are, an assistant's tool
    calls and reply as the JSON actions the model writes, tool results as it reads them. A
    marked message's words and results (see ``engine.agent.taint``) sit inside an
    untrusted-content block."""
    outside = taint.sources(row.meta)
    if row.role == "user":
        return [{"role": "user", "content": as_data(row.content) if outside else row.content}]
    out: list[Message] = []
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


def prompt_messages(session_id: int, window: int = HISTORY_WINDOW) -> list[Message]:
    """The last ``window`` stored messages rendered for the model."""
    rows = chat.recent_messages(window, session_id)
    return [m for row, calls in rows for m in render(row, calls)]


class HistoryWindow:
    """Where each session's prompt history starts, trimmed by tokens in steps.

    While the history fits the budget it starts where it started; once it outgrows it, the
    oldest messages go until about half the budget is left (from a user's message), and the
    new start then stays put while the conversation grows back. So the prompt's beginning
    is byte-identical from turn to turn and llama.cpp evaluates only the new end, where a
    window sliding by a message a turn would re-read the whole history every turn. The start
    lives in memory: after a restart the first prompt is evaluated afresh anyway."""

    def __init__(self) -> None:
        self._start: dict[int, int] = {}

    def window(self, session_id: int, budget: int | None) -> tuple[Rows, list[Message]]:
        """The stored messages the prompt holds (from the window's start, trimmed to
        ``budget`` when they outgrow it) and how the model reads them."""
        rows = chat.recent_messages(MAX_ROWS, session_id, since_id=self._start.get(session_id))
        parts = [render(row, calls) for row, calls in rows]
        sizes = [sum(estimate_tokens(m["content"]) for m in part) for part in parts]
        if budget is not None and rows and (sum(sizes) > budget or len(rows) == MAX_ROWS):
            first = self._trimmed_start(rows, sizes, budget // 2)
            self._start[session_id] = rows[first][0].id
            rows, parts = rows[first:], parts[first:]
        return rows, [m for part in parts for m in part]

    def messages(self, session_id: int, budget: int | None) -> list[Message]:
        return self.window(session_id, budget)[1]

    @staticmethod
    def _trimmed_start(rows: Rows, sizes: list[int], keep: int) -> int:
        """The first row to keep: the newest rows within ``keep`` tokens (the newest always),
        moved on to a user's message when one is among them."""
        first, kept = len(rows) - 1, sizes[-1]
        while first > 0 and kept + sizes[first - 1] <= keep:
            first -= 1
            kept += sizes[first]
        if len(rows) - first == MAX_ROWS:
            first += MAX_ROWS // 2
        users = [i for i in range(first, len(rows)) if rows[i][0].role == "user"]
        return users[0] if users else first


class StoredTranscript(Transcript):
    def __init__(
        self,
        session_id: int,
        kind: str,
        *,
        reply_meta: dict[str, Any] | None = None,
        on_reply: Callable[[ChatMessage], None] | None = None,
        complete_reply: Callable[[str], str] | None = None,
        history: HistoryWindow | None = None,
    ):
        self.session_id = session_id
        self.kind = kind
        self.reply_meta = reply_meta or {}
        self.on_reply = on_reply
        self.complete_reply = complete_reply
        self.history = history if history is not None else HistoryWindow()

    def messages(self, budget: int | None = None) -> list[Message]:
        return self.history.messages(self.session_id, budget)

    def begin_tool(
        self, action: Action, completion: Completion, outside: Sources = ()
    ) -> ChatToolCall:
        return chat.begin_tool_call(
            self.session_id,
            action.tool,
            action.arguments,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            duration_ms=completion.duration_ms,
            meta=taint.marked({"kind": self.kind}, outside),
        )

    def end_tool(self, handle: ChatToolCall, step: ToolStep) -> None:
        with database.atomic():
            chat.finish_tool_call(handle, step.status, step.result_type, step.result, utcnow())
            if step.outside:
                held = chat.get_message(handle.message_id)
                mark = taint.marked(held.meta if held is not None else {}, step.outside)
                chat.update_meta(handle.message_id, {OUTSIDE: mark[OUTSIDE]})

    def outside_content(self, budget: int | None = None) -> Sources:
        rows, _messages = self.history.window(self.session_id, budget)
        return taint.merge(*(taint.sources(row.meta) for row, _ in reversed(rows)))

    def origin(self, action: Action, outside: Sources) -> Sources:
        return taint.merge(outside, quoted(self.session_id, action.arguments))

    def add_reply(self, text: str, completion: Completion, outside: Sources = ()) -> ChatMessage:
        """The reply and whatever ``on_reply`` marks (delivered notifications) commit together."""
        if self.complete_reply is not None:
            text = self.complete_reply(text)
        return self._add(text, completion, {}, outside)

    def add_proposal(
        self, action: Action, text: str, completion: Completion, outside: Sources = ()
    ) -> ChatMessage:
        """The question is composed in code; the proposed call waits in the reply's meta for
        the user's yes (see :func:`pending_proposal`), marked with where its words came
        from."""
        proposed = {"tool": action.tool, "arguments": action.arguments}
        return self._add(text, completion, {"composed": True, "proposed": proposed}, outside)

    def _add(
        self, text: str, completion: Completion, meta: dict[str, Any], outside: Sources
    ) -> ChatMessage:
        with database.atomic():
            msg = chat.add_message(
                self.session_id,
                "assistant",
                text,
                prompt_tokens=completion.prompt_tokens,
                completion_tokens=completion.completion_tokens,
                duration_ms=completion.duration_ms,
                meta=taint.marked({"kind": self.kind, **self.reply_meta, **meta}, outside),
            )
            if self.on_reply is not None:
                self.on_reply(msg)
        return msg


def quoted(session_id: int, arguments: dict[str, Any]) -> Sources:
    """Where the stored outside content that a change's words repeat came from: the sources
    of the marked messages among the session's last ``MAX_ROWS`` that hold one of its values
    word for word (``taint.phrases``), newest first. Found however far back: the history
    window is no bound on what a model may have read, or a user pasted."""
    phrases = taint.phrases(arguments)
    if not phrases:
        return ()
    rows = chat.recent_messages(MAX_ROWS, session_id)
    return taint.merge(
        *(
            taint.sources(row.meta)
            for row, calls in reversed(rows)
            if taint.is_outside(row.meta) and taint.repeats(_words(row, calls), phrases)
        )
    )


def _words(row: ChatMessage, calls: list[ChatToolCall]) -> str:
    results = [(c.result_type, c.result or "") for c in calls]
    arguments = [("json", json.dumps(c.arguments or {}, ensure_ascii=False)) for c in calls]
    return taint.text_of(row.content, results + arguments)


@dataclass(frozen=True)
class Proposal:
    """A change put to the user, waiting for their yes."""

    tool: str
    arguments: dict[str, Any]
    outside: Sources = ()  # where its words came from (marked: see engine.agent.taint)
    language: str = "en"  # the language the change was asked in, to answer in


def pending_proposal(session_id: int) -> Proposal | None:
    """The change the assistant last asked the user about, if the user has not answered
    yet. Notifications in between don't count."""
    for row, _calls in reversed(chat.recent_messages(HISTORY_WINDOW, session_id)):
        meta = row.meta or {}
        if row.is_synthetic or meta.get("kind") == "notification":
            continue
        proposed = meta.get("proposed") if row.role == "assistant" else None
        if not isinstance(proposed, dict):
            return None
        arguments = dict(proposed.get("arguments") or {})
        language = str(proposed.get("language") or "en")
        return Proposal(str(proposed.get("tool")), arguments, taint.sources(meta), language)
    return None
