"""The built-in tools, registered the same way any other tool would be."""

from __future__ import annotations

from engine.jobs import JobScheduler
from engine.tools.base import ToolRegistry
from engine.tools.delegate import DelegateTool
from engine.tools.files import EditFileTool, ReadFileTool, WriteFileTool
from engine.tools.jobs import CancelJobTool, ListJobsTool, ScheduleJobTool
from engine.tools.lookup import SearchEventsTool, UpcomingCalendarTool
from engine.tools.notify import NotifyTool, ReadNotificationTool
from engine.tools.rules import AddNotificationRuleTool


def build_registry(jobs: JobScheduler | None = None) -> ToolRegistry:
    registry = ToolRegistry(
        [
            NotifyTool(),
            ReadNotificationTool(),
            ReadFileTool(),
            WriteFileTool(),
            EditFileTool(),
            AddNotificationRuleTool(),
            SearchEventsTool(),
            UpcomingCalendarTool(),
            DelegateTool(),
        ]
    )
    if jobs is not None:
        for tool in (ScheduleJobTool(jobs), ListJobsTool(jobs), CancelJobTool(jobs)):
            registry.register(tool)
    return registry
