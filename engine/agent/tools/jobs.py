"""Tools that let the main agent create, list and cancel scheduled jobs."""

from __future__ import annotations

from typing import Any

from engine.agent.tools.base import Tool, ToolContext
from engine.clock import local_zone_name, parse_when, zone
from engine.errors import ToolError
from engine.jobs.scheduler import RECURRENCES, JobScheduler, describe


class ScheduleJobTool(Tool):
    name = "schedule_job"
    description = (
        "Schedule a reminder (kind=reminder: tell the user `text` at that time) or a task "
        "(kind=task: do `text` then, e.g. summarise this week's calendar). `at`: 17:00, "
        "tomorrow 9:00, monday 09:00, in 20 minutes, or 2026-12-01T17:00. repeat: none, "
        "hourly, daily, weekdays, weekly or monthly."
    )
    parameters = {
        "type": "object",
        "properties": {
            "text": {"type": "string", "minLength": 1, "maxLength": 300},
            "at": {"type": "string", "minLength": 1, "maxLength": 40},
            "repeat": {"type": "string", "enum": RECURRENCES},
            "kind": {"type": "string", "enum": ["reminder", "task"]},
        },
        "required": ["text", "at"],
        "additionalProperties": False,
    }
    category = "Scheduling"
    read_only = False
    result_type = "json"

    def __init__(self, jobs: JobScheduler):
        self.jobs = jobs

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        tz_name = local_zone_name()
        try:
            when = parse_when(arguments["at"], ctx.now, zone(tz_name))
        except ValueError as exc:
            raise ToolError(str(exc)) from None
        repeat = arguments.get("repeat", "none")
        if repeat == "none" and when <= ctx.now:
            raise ToolError(f"{arguments['at']!r} is in the past")
        job = self.jobs.create(
            arguments["text"], when, repeat, arguments.get("kind", "reminder"), tz_name
        )
        return describe(job)


class ListJobsTool(Tool):
    name = "list_jobs"
    description = "List the active scheduled jobs (reminders and recurring tasks)."
    parameters = {"type": "object", "properties": {}, "additionalProperties": False}
    category = "Scheduling"
    result_type = "json"

    def __init__(self, jobs: JobScheduler):
        self.jobs = jobs

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        return [describe(j) for j in self.jobs.active()]


class CancelJobTool(Tool):
    name = "cancel_job"
    description = "Cancel a scheduled job by its job_id (see list_jobs)."
    parameters = {
        "type": "object",
        "properties": {"job_id": {"type": "integer", "minimum": 1}},
        "required": ["job_id"],
        "additionalProperties": False,
    }
    category = "Scheduling"
    read_only = False

    def __init__(self, jobs: JobScheduler):
        self.jobs = jobs

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> Any:
        if not self.jobs.cancel(arguments["job_id"]):
            raise ToolError(f"no active job {arguments['job_id']}")
        return f"cancelled job {arguments['job_id']}"
