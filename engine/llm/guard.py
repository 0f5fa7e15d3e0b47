"""A global switch that forbids real model calls, so unit tests can never load weights by
accident (tests opt in with the ``real_model`` marker)."""

from __future__ import annotations

import os

from engine.errors import ModelCallsForbidden

_allowed = os.environ.get("TIC_ALLOW_MODEL_REQUESTS", "1") != "0"


def allow_model_requests(value: bool) -> None:
    global _allowed
    _allowed = value


def check_allowed(what: str) -> None:
    if not _allowed:
        raise ModelCallsForbidden(
            f"real model use ({what}) is switched off here; mark the test real_model"
        )
