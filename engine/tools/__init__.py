"""Tools the agents can call, and the registry that hands each agent its list."""

from engine.tools.base import Tool, ToolContext, ToolRegistry
from engine.tools.builtin import build_registry

__all__ = ["Tool", "ToolContext", "ToolRegistry", "build_registry"]
