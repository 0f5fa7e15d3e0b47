"""Waiting in a test for what the code under test does next, bounded, instead of sleeping
a guessed time and then asserting."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def until(predicate: Callable[[], bool], timeout: float = 5.0, what: str = "it") -> None:
    """Let the loop run until ``predicate`` holds; fail the test after ``timeout`` seconds."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)
