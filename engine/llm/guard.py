"""Global switches that forbid real model use, so unit tests can never load weights or reach
a model server by accident. Tests opt in with markers: ``real_model`` for the weights (and
servers), ``server`` for a model server on 127.0.0.1 (a fake one, or a port where nothing
answers)."""

from __future__ import annotations

import os

from engine.errors import ModelCallsForbidden

_weights = _servers = os.environ.get("TIC_ALLOW_MODEL_REQUESTS", "1") != "0"


def allow_model_requests(weights: bool, servers: bool | None = None) -> None:
    """Allow or forbid loading and running weights, and requests to model servers (by
    default the same as the weights)."""
    global _weights, _servers
    _weights = weights
    _servers = weights if servers is None else servers


def check_allowed(what: str, *, server: bool = False) -> None:
    """Raise :class:`ModelCallsForbidden` unless ``what`` (a request to a model server when
    ``server``, else work on local weights) is allowed."""
    if not (_servers if server else _weights):
        marker = "server" if server else "real_model"
        raise ModelCallsForbidden(
            f"real model use ({what}) is switched off here; mark the test {marker}"
        )
