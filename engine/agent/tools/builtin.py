"""The built-in tools, registered the same way any other tool would be."""

from __future__ import annotations

from engine.agent.tools.base import ToolRegistry
from engine.agent.tools.delegate import DelegateTool
from engine.agent.tools.digest import DigestTool
from engine.agent.tools.files import EditFileTool, ReadFileTool, WriteFileTool
from engine.agent.tools.jobs import CancelJobTool, ListJobsTool, ScheduleJobTool
from engine.agent.tools.lookup import SearchEventsTool, UpcomingCalendarTool
from engine.agent.tools.notify import NotifyTool, ReadNotificationTool
from engine.agent.tools.rules import (
    AcceptRuleReadingTool,
    AddNotificationRuleTool,
    ConfirmNotificationRuleTool,
    RemoveNotificationRuleTool,
)
from engine.jobs.scheduler import JobScheduler


def build_registry(jobs: JobScheduler | None = None) -> ToolRegistry:
    registry = ToolRegistry(
        [
            NotifyTool(),
            ReadNotificationTool(),
            ReadFileTool(),
            WriteFileTool(),
            EditFileTool(),
            AddNotificationRuleTool(),
            ConfirmNotificationRuleTool(),
            AcceptRuleReadingTool(),
            RemoveNotificationRuleTool(),
            SearchEventsTool(),
            UpcomingCalendarTool(),
            DigestTool(),
            DelegateTool(),
        ]
    )
    if jobs is not None:
        for tool in (ScheduleJobTool(jobs), ListJobsTool(jobs), CancelJobTool(jobs)):
            registry.register(tool)
    return registry
