"""SourceRunner: each source polled in its own loop, backing off on failures; a failure that
is not a source's expected error is a bug, logged with its traceback and counted."""

from __future__ import annotations

import logging

import pytest

from engine.bus import EventBus, UnexpectedError
from engine.sources.base import Batch, Source, TransientError
from engine.sources.sync import SourceRunner
from engine.store.models import SourceStatus
from tests.waits import until


class Scripted(Source):
    """Fails with the given errors in turn, then reads nothing new."""

    kind = "scripted"
    poll_seconds = 60.0

    def __init__(self, *failures: BaseException):
        super().__init__("test")
        self.failures = list(failures)
        self.fetches = 0

    async def fetch(self, cursor: str | None) -> Batch:
        self.fetches += 1
        if self.failures:
            raise self.failures.pop(0)
        return Batch()


@pytest.mark.allow_log_warnings
async def test_failures_back_off_then_polling_resumes(db, caplog) -> None:
    bus, seen = EventBus(), []
    bus.subscribe(seen.append)
    runner = SourceRunner(backoff_base=0.01, backoff_max=0.05, bus=bus)
    source = Scripted(TransientError("timeout"), KeyError("page"))
    runner.add(source)
    try:
        await until(lambda: source.fetches == 3)
        await until(lambda: SourceStatus.get_or_none(SourceStatus.state == "ok") is not None)
    finally:
        await runner.stop()
    assert [e.where for e in seen if isinstance(e, UnexpectedError)] == [
        "scripted:test failed; retrying in 0 s"
    ]
    transient, bug = [r for r in caplog.records if r.name == "engine.sources.sync"]
    assert transient.levelno == logging.INFO and transient.exc_info is None
    assert bug.levelno == logging.ERROR and bug.exc_info is not None
    assert runner.active_keys() == []
