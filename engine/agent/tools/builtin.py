"""The built-in tools, registered the same way any other tool would be.

The agent framework knows no subsystem above it: tools that belong to one (the rules tools of
``engine.triage.tools``) are handed in by the façade as ``extra`` and registered like these."""

from __future__ import annotations

from collections.abc import Iterable

from engine.agent.tools.base import Tool, ToolRegistry
from engine.agent.tools.delegate import DelegateTool
from engine.agent.tools.digest import DigestTool
from engine.agent.tools.files import EditFileTool, ReadFileTool, WriteFileTool
from engine.agent.tools.jobs import CancelJobTool, ListJobsTool, ScheduleJobTool
from engine.agent.tools.lookup import SearchEventsTool, UpcomingCalendarTool
from engine.agent.tools.notify import NotifyTool, ReadNotificationTool
from engine.jobs.scheduler import JobScheduler


def build_registry(jobs: JobScheduler | None = None, extra: Iterable[Tool] = ()) -> ToolRegistry:
    registry = ToolRegistry(
        [
            NotifyTool(),
            ReadNotificationTool(),
            ReadFileTool(),
            WriteFileTool(),
            EditFileTool(),
            SearchEventsTool(),
            UpcomingCalendarTool(),
            DigestTool(),
            DelegateTool(),
            *extra,
        ]
    )
    if jobs is not None:
        for tool in (ScheduleJobTool(jobs), ListJobsTool(jobs), CancelJobTool(jobs)):
            registry.register(tool)
    return registry
