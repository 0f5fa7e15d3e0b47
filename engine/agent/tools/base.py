"""The tool contract and registry.

A tool is a name, a description, JSON-schema parameters, a category and whether only the root
agent (depth 0) may see it. Arguments are validated against the schema before ``run``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from engine import schemas
from engine.errors import ToolError
from engine.workspace import Workspace

if TYPE_CHECKING:
    from engine.agent.draft import NotificationDraft

ResultType = Literal["string", "json"]

# llama.cpp's grammar parser refuses (and llama-cpp-python then crashes on) a string bounded
# by much more than 1000 characters, so no tool's schema allows longer strings (a reply's
# bound may grow past it: engine.llm.llama leaves such a bound out of the grammar).
MAX_STRING = 1000


@dataclass
class ToolContext:
    """What a tool may use while it runs, given by whoever runs the agent."""

    workspace: Workspace
    now: datetime
    depth: int = 0
    agent: str = "main"
    session_id: int | None = None
    notify: Callable[[NotificationDraft], Awaitable[Any]] | None = None
    delegate: Callable[[str, int], Awaitable[str]] | None = None


class Tool(ABC):
    name: ClassVar[str]
    description: ClassVar[str]
    parameters: ClassVar[dict[str, Any]]
    category: ClassVar[str] = "General"
    root_agent_only: ClassVar[bool] = False
    read_only: ClassVar[bool] = True
    result_type: ClassVar[ResultType] = "string"
    outside_content: ClassVar[bool] = False
    """Its result holds what outside senders wrote (messages, invitations): data, never
    orders, and a turn that reads it may change nothing (``engine.agent.taint``)."""
    outside_label: ClassVar[str] = "what a look-up found"
    """Where its outside content came from, as the user is told it ("This came from …")."""
    # False for a tool only the system completes (read_notification): a call by the model
    # returns nothing, so it is not listed in any prompt.
    offered: ClassVar[bool] = True

    def validate(self, arguments: Any) -> dict[str, Any]:
        if not isinstance(arguments, dict):
            raise ToolError(f"{self.name}: arguments must be an object")
        try:
            schemas.validate(arguments, self.parameters)
        except schemas.ValidationError as exc:
            raise ToolError(f"{self.name}: invalid arguments: {exc.message}") from None
        return arguments

    @abstractmethod
    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        """Do the work. Raise ToolError for a refusal the agent should read."""

    async def call(self, arguments: Any, ctx: ToolContext) -> Any:
        return await self.run(self.validate(arguments), ctx)


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool] = ()):
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name!r} registered twice")
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool:
        try:
            return self._tools[name]
        except KeyError:
            raise ToolError(f"unknown tool {name!r}") from None

    def names(self) -> list[str]:
        return list(self._tools)

    def tools_for(
        self, names: Iterable[str] | None, *, depth: int, read_only: bool = False
    ) -> list[Tool]:
        """The tools an agent at ``depth`` may see: sub-agents (depth ≥ 1) never get root-only
        tools; ``read_only`` drops every tool that changes anything."""
        chosen = [self.get(n) for n in names] if names is not None else list(self._tools.values())
        return [
            t
            for t in chosen
            if not (depth >= 1 and t.root_agent_only) and not (read_only and not t.read_only)
        ]
