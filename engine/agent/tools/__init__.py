"""Tools the agents can call, and the registry that hands each agent its list."""

from engine.agent.tools.base import Tool, ToolContext, ToolRegistry
from engine.agent.tools.builtin import build_registry

__all__ = ["Tool", "ToolContext", "ToolRegistry", "build_registry"]
