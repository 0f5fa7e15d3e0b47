"""The agent loop: each step the model writes one schema-constrained JSON action; a tool
action runs the tool and feeds its result back, a reply action ends the turn. The last
allowed step may only reply, so a turn always ends with words for the user.

A prompt is built for llama.cpp's prefix cache, which reuses the evaluated prompt up to the
first token that differs from the previous call's: the system message (the agent, its memory
files, the tools the turn may use) comes first and is byte-identical from step to step and
turn to turn; the history follows, trimmed by tokens in steps so that its start stays put
(see :class:`~engine.agent.transcript.HistoryWindow`); the current time, which changes every
minute, comes last. A follow-up turn then evaluates only what is new."""

from __future__ import annotations

import json
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.agent import taint
from engine.agent.actions import (
    REPLY_MAX_CHARS,
    Action,
    ReplyStreamer,
    action_schema,
    parse_action,
    tool_catalogue,
)
from engine.agent.definitions import AgentDefinition, system_prompt
from engine.agent.taint import Sources, as_data
from engine.agent.tools.base import Tool, ToolContext, ToolRegistry
from engine.clock import utcnow
from engine.errors import ModelError, TicError
from engine.llm.base import Completion, LanguageModel, Message, TokenCallback
from engine.tasks import one_line
from engine.workspace import Workspace

log = logging.getLogger(__name__)

MAX_RESULT_CHARS = 4000
STEP_MAX_TOKENS = 512
CHARS_PER_TOKEN = 3  # fewer than most text has: a step may always reach its reply's bound


def step_tokens(reply_max_chars: int) -> int:
    """The tokens a step may take: enough for a reply as long as its bound, and the JSON."""
    return max(STEP_MAX_TOKENS, reply_max_chars // CHARS_PER_TOKEN + 64)


HISTORY_TOKENS = 1500  # the most history a prompt carries (estimated tokens)

FORMAT_NOTE = (
    "\n\n## How to answer\n"
    "Answer with one JSON object per step. To talk to the user: "
    '{"action": "reply", "text": "..."}. To use a tool: '
    '{"action": "tool", "tool": "<name>", "arguments": {...}}. '
    "After a tool result you may use another tool or reply."
)


@dataclass(frozen=True)
class ToolStep:
    action: Action
    status: str
    result_type: str
    result: str
    outside: Sources = ()  # where the outside content the result holds came from


def estimate_tokens(text: str) -> int:
    """A cautious token count without the model's tokenizer (which lives on the model's
    thread): about 3 characters a token for the prose and JSON of these prompts (SmolLM2
    averages 3.5–4), plus a few for the chat template around each message."""
    return len(text) // 3 + 4


def turn_note(outside: bool) -> str:
    """What holds for this turn only, said at the end of the prompt: with outside content in
    it, that the turn may only read (the step's schema allows nothing else). Not in the
    system message, which stays byte-identical whether or not a notification came in, so
    llama.cpp's cache of the history survives it."""
    return taint.READ_ONLY_NOTE if outside else ""


def with_time(messages: list[Message], now: datetime, note: str = "") -> list[Message]:
    """The current time at the very end (appended to the last user message), after this
    turn's ``note``: both change between turns, and every token after a changed one is
    evaluated again."""
    local = now.astimezone()
    line = f"Current time: {local.isoformat(timespec='minutes')} ({local.strftime('%A')})"
    if note:
        line = f"{note}\n\n{line}"
    last = messages[-1] if messages else None
    if last is not None and last["role"] == "user":
        return [*messages[:-1], {"role": "user", "content": f"{last['content']}\n\n{line}"}]
    return [*messages, {"role": "user", "content": line}]


def render_result(value: Any, result_type: str) -> str:
    if result_type == "json" or not isinstance(value, str):
        return json.dumps(value, ensure_ascii=False, default=str)
    return value


def result_message(step: ToolStep) -> Message:
    body = (
        step.result
        if len(step.result) <= MAX_RESULT_CHARS
        else (step.result[:MAX_RESULT_CHARS] + " …(truncated)")
    )
    if step.outside:
        body = as_data(body)
    verb = "returned" if step.status == "done" else step.status
    return {"role": "user", "content": f"[tool {step.action.tool} {verb}]\n{body}"}


class Transcript(ABC):
    """Where a turn's conversation lives: the store for chats, memory for sub-agents."""

    @abstractmethod
    def messages(self, budget: int | None = None) -> list[Message]:
        """The conversation for the prompt, its history within about ``budget`` tokens
        (``estimate_tokens``; None: no limit)."""

    # ``outside`` below: where the outside content in the turn's input came from (empty:
    # none); what the turn stores is marked with it (see engine.agent.taint).

    @abstractmethod
    def begin_tool(self, action: Action, completion: Completion, outside: Sources = ()) -> Any:
        """Record a tool call as running; returns a handle for ``end_tool``."""

    @abstractmethod
    def end_tool(self, handle: Any, step: ToolStep) -> None:
        """Record the call's result (marked too when it holds outside content)."""

    @abstractmethod
    def add_reply(self, text: str, completion: Completion, outside: Sources = ()) -> Any: ...

    def add_proposal(
        self, action: Action, text: str, completion: Completion, outside: Sources = ()
    ) -> Any:
        """End the turn by putting a change the model chose to the user (``text`` asks;
        ``outside``: where its words came from, see ``origin``); a stored transcript
        remembers ``action`` for the user's yes."""
        return self.add_reply(text, completion, outside)

    def outside_content(self, budget: int | None = None) -> Sources:
        """Where the outside content in the messages the model reads (within ``budget``)
        came from: empty when they hold none (engine.agent.taint)."""
        return ()

    def origin(self, action: Action, outside: Sources) -> Sources:
        """Where the words of a change the model chose came from: the turn's outside
        content, and (for a stored transcript) any stored outside content they repeat."""
        return outside


class MemoryTranscript(Transcript):
    def __init__(self, task: str):
        self._messages: list[Message] = [{"role": "user", "content": task}]
        self.reply: str | None = None

    def messages(self, budget: int | None = None) -> list[Message]:
        return list(self._messages)  # a sub-agent's task: short, never trimmed

    def begin_tool(self, action: Action, completion: Completion, outside: Sources = ()) -> Any:
        return None

    def end_tool(self, handle: Any, step: ToolStep) -> None:
        self._messages.append({"role": "assistant", "content": step.action.to_json()})
        self._messages.append(result_message(step))

    def add_reply(self, text: str, completion: Completion, outside: Sources = ()) -> str:
        self.reply = text
        self._messages.append({"role": "assistant", "content": Action("reply", text).to_json()})
        return text


class AgentLoop:
    def __init__(
        self,
        model: LanguageModel,
        registry: ToolRegistry,
        workspace: Workspace,
        *,
        max_steps: int = 6,
        clock: Callable[[], datetime] = utcnow,
    ):
        self.model = model
        self.registry = registry
        self.workspace = workspace
        self.max_steps = max_steps
        self.clock = clock

    def tools(self, definition: AgentDefinition, depth: int, read_only: bool) -> list[Tool]:
        """The tools a turn may use (and its prompt lists): the agent's, less what its depth
        or ``read_only`` rules out and what only the system completes."""
        chosen = self.registry.tools_for(definition.tools, depth=depth, read_only=read_only)
        return [t for t in chosen if t.offered]

    def system_message(self, definition: AgentDefinition, tools: list[Tool]) -> Message:
        """Byte-identical while the agent, its memory files and the tools stay the same (the
        time and what holds for one turn only are not in it: see ``with_time``)."""
        text = (
            system_prompt(definition, self.workspace)
            + "\n\n## Tools\n"
            + (tool_catalogue(tools) or "(none)")
            + FORMAT_NOTE
            + taint.GUIDANCE
        )
        return {"role": "system", "content": text}

    def history_budget(self, system: Message) -> int:
        """Tokens of history a prompt may carry: ``HISTORY_TOKENS``, less where the model's
        context leaves less room beside the system message, the turn's note and the reply."""
        context = self.model.context_tokens()
        if context is None:
            return HISTORY_TOKENS
        note = estimate_tokens(turn_note(True))
        room = context - estimate_tokens(system["content"]) - note - STEP_MAX_TOKENS - 64
        return max(256, min(HISTORY_TOKENS, room))

    def _frame(
        self,
        definition: AgentDefinition,
        transcript: Transcript,
        depth: int,
        read_only: bool,
        reply_only: bool,
    ) -> tuple[int, Sources, list[Tool]]:
        """A turn's history budget, where the outside content in it came from, and the tools
        its prompt lists (outside content narrows what it may call, not what is listed)."""
        if self.model.capability == "tiny":
            read_only = True
        listed = [] if reply_only else self.tools(definition, depth, read_only)
        budget = self.history_budget(self.system_message(definition, listed))
        return budget, transcript.outside_content(budget), listed

    def opening(
        self,
        definition: AgentDefinition,
        transcript: Transcript,
        *,
        read_only: bool = False,
        reply_only: bool = False,
    ) -> list[Message]:
        """What the next turn's first prompt on ``transcript`` will open with: the system
        message and the history as they stand (the turn adds its message and the time after
        them), for ``LanguageModel.prefill``."""
        budget, _outside, listed = self._frame(definition, transcript, 0, read_only, reply_only)
        return [self.system_message(definition, listed), *transcript.messages(budget)]

    async def run(
        self,
        definition: AgentDefinition,
        transcript: Transcript,
        *,
        depth: int = 0,
        read_only: bool = False,
        reply_only: bool = False,
        context: ToolContext | None = None,
        on_token: TokenCallback | None = None,
        on_tool: Callable[[str, str, dict[str, Any]], None] | None = None,
        propose: Callable[[Action, Sources], str] | None = None,
        reply_max_chars: int = REPLY_MAX_CHARS,
    ) -> Any:
        """Run steps until the agent replies; returns what ``transcript.add_reply`` returns.
        ``reply_max_chars``: the reply's bound (a reply announcing a batch of notifications
        may be longer than one to the user), and with it the tokens a step may take.

        Writes happen only on the user's word: a tiny model is never offered a tool that
        changes anything, and with ``propose`` a change the model chooses is not run but put
        to the user (the turn ends with ``propose(action, origin)``, ``origin`` saying where
        its words came from; see ``Transcript.add_proposal``).

        Outside content never shares a turn with a tool that changes anything: a transcript
        that holds some makes the turn read-only, and so does a tool result that brings some
        in (from that step on). Whatever such a turn stores is marked with it, so the turns
        after it are read-only too for as long as they see what it stored."""
        budget, outside, listed = self._frame(definition, transcript, depth, read_only, reply_only)
        system = self.system_message(definition, listed)
        ctx = context or ToolContext(
            workspace=self.workspace, now=self.clock(), depth=depth, agent=definition.name
        )
        if ctx.delegate is None and depth == 0:
            ctx.delegate = self.delegate_to(definition)
        # What the next step may call (the prompt keeps listing ``listed``).
        allowed = [t for t in listed if t.read_only] if outside else listed
        previous: Action | None = None
        for step in range(self.max_steps):
            final = step == self.max_steps - 1
            schema = action_schema([] if final else allowed, reply_max_chars=reply_max_chars)
            note = turn_note(bool(outside))
            messages = with_time([system, *transcript.messages(budget)], self.clock(), note)
            tokens = step_tokens(reply_max_chars)
            action, completion = await self._step(messages, schema, on_token, tokens)
            if action.kind == "reply":
                return transcript.add_reply(action.text, completion, outside)
            chosen = next((t for t in allowed if t.name == action.tool), None)
            if propose is not None and chosen is not None and not chosen.read_only:
                origin = transcript.origin(action, outside)
                return transcript.add_proposal(action, propose(action, origin), completion, origin)
            if action == previous:  # the same call again: answer with what it returned
                allowed = []
            previous = action
            handle = transcript.begin_tool(action, completion, outside)
            if on_tool is not None:
                on_tool(action.tool, "running", action.arguments)
            result = await self._run_tool(action, allowed, ctx)
            if result.outside:
                outside = taint.merge(outside, result.outside)
                allowed = [t for t in allowed if t.read_only]
            transcript.end_tool(handle, result)
            if on_tool is not None:
                on_tool(action.tool, result.status, action.arguments)
        raise ModelError("the agent did not reply")  # unreachable: the last step must reply

    async def _step(
        self,
        messages: list[Message],
        schema: dict[str, Any],
        on_token: TokenCallback | None,
        max_tokens: int = STEP_MAX_TOKENS,
    ) -> tuple[Action, Completion]:
        """One model call. Decoding is greedy, so asking again with the same prompt would
        give the same answer: an invalid one (cut off at ``max_tokens``) fails the step."""
        streamer = ReplyStreamer(on_token) if on_token is not None else None
        completion = await self.model.complete(
            messages,
            schema=schema,
            max_tokens=max_tokens,
            on_token=streamer.feed if streamer else None,
        )
        try:
            return parse_action(completion.text, schema), completion
        except ValueError as exc:
            raise ModelError(f"the model produced no valid step: {exc}") from None

    async def _run_tool(self, action: Action, allowed: list[Tool], ctx: ToolContext) -> ToolStep:
        tool = next((t for t in allowed if t.name == action.tool), None)
        if tool is None:
            return ToolStep(action, "rejected", "string", f"tool {action.tool!r} is not allowed")
        try:
            value = await tool.call(action.arguments, ctx)
        except TicError as exc:  # a ToolError, or another expected failure
            return ToolStep(action, "failed", "string", str(exc))
        except Exception as exc:  # a bug in a tool: the turn goes on, the log has it all
            log.error("tool %s failed unexpectedly", action.tool, exc_info=exc)
            return ToolStep(action, "failed", "string", f"{action.tool} failed: {one_line(exc)}")
        result = render_result(value, tool.result_type)
        outside = (tool.outside_label,) if tool.outside_content else ()
        return ToolStep(action, "done", tool.result_type, result, outside=outside)

    def delegate_to(self, parent: AgentDefinition) -> Callable[[str, int], Any]:
        async def delegate(task: str, depth: int) -> str:
            transcript = MemoryTranscript(task)
            ctx = ToolContext(
                workspace=self.workspace, now=self.clock(), depth=depth, agent=f"{parent.name}/sub"
            )
            return await self.run(parent, transcript, depth=depth, read_only=True, context=ctx)

        return delegate
