"""Model servers already running on this machine, so a model the user runs elsewhere is used
without copying it: Ollama (port 11434), LM Studio (1234), llama.cpp's server (8080), or any
OpenAI-compatible URL the user gives. Each is asked for its models: ``/v1/models``, and for
Ollama its own ``/api/tags`` (size, parameters, quantisation), for LM Studio ``/api/v0/models``
(which of them are chat models, and which are loaded).

An API key for a server lives in the keyring (``model-server:<its /v1 URL>``). It is read
only when the server asks for one (it answers 401 or 403), on the worker thread that talks
to the server: a locked keyring then costs that request its time limit, never a wait on the
event loop, nor one for a server that needs no key. Discovery reads one only for a server
the user named (an address typed in, the server in use): whatever else answers on the usual
ports and asks for a key is listed as asking, and the keyring stays closed (opening it can
make the desktop ask for a new keyring's password)."""

from __future__ import annotations

import asyncio
import json
import re
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any
from urllib.parse import urlparse, urlunparse

from engine.errors import ModelError
from engine.modeltypes import LocalServer, ServerModel, human_bytes

# The keyring (engine.accounts.secrets) is imported only when a key is read or kept: loading a
# GGUF model (tic triage) needs none.

KNOWN_SERVERS: tuple[tuple[int, str], ...] = (
    (11434, "Ollama"),
    (1234, "LM Studio"),
    (8080, "llama.cpp server"),
)
GENERIC = "OpenAI-compatible server"
PROBE_TIMEOUT = 1.5
KeyLookup = Callable[[str], str | None]
"""A server's API key by its URL (None: it has none); ModelError, one line, when it cannot
be read now."""
LOCKED_KEY = "the keyring is locked \u2014 unlock it, or TIC continues without the server's key"


_HOST_PORT = re.compile(r"^[\w.-]+:\d+(/\S*)?$")


def looks_like_server(text: str | None) -> bool:
    """``http(s)://…``, or ``host:port`` (``localhost:11434``)."""
    text = (text or "").strip()
    return text.startswith(("http://", "https://")) or bool(_HOST_PORT.match(text))


def normalize_url(text: str) -> str:
    """``localhost:11434`` → ``http://localhost:11434/v1``: the OpenAI base URL of a server."""
    text = text.strip()
    if not text:
        raise ValueError("no server URL given")
    if "://" not in text:
        text = f"http://{text}"
    parsed = urlparse(text)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ValueError(f"not a server URL: {text}")
    path = parsed.path.rstrip("/")
    for tail in ("/chat/completions", "/models"):
        path = path.removesuffix(tail)
    if not path.endswith("/v1"):
        path = f"{path}/v1"
    return urlunparse((parsed.scheme, parsed.netloc, path, "", "", ""))


def _root(base_url: str) -> str:
    return base_url.removesuffix("/v1")


def secret_name(base_url: str) -> str:
    return f"model-server:{normalize_url(base_url)}"


def server_api_key(base_url: str) -> str | None:
    """The server's API key from the keyring; None when there is none (or no keyring).
    ModelError (``LOCKED_KEY``) when the keyring does not answer within its time limit."""
    from engine.accounts.secrets import SecretStoreLocked, SecretStoreUnavailable, get_secret

    try:
        return get_secret(secret_name(base_url))
    except SecretStoreLocked:
        raise ModelError(LOCKED_KEY) from None
    except (SecretStoreUnavailable, ValueError):
        return None


def set_server_api_key(base_url: str, key: str | None) -> None:
    """Keep ``key`` for the server in the keyring; None or "" forgets it."""
    from engine.accounts.secrets import delete_secret, set_secret

    if key:
        set_secret(secret_name(base_url), key)
    else:
        delete_secret(secret_name(base_url))


class _Refused(Exception):
    def __init__(self, status: int, detail: str):
        super().__init__(detail)
        self.status = status


def _get_json(url: str, api_key: str | None, timeout: float) -> Any:
    headers = {"Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read().decode("utf-8", "replace"))
    except urllib.error.HTTPError as exc:
        with exc:
            detail = exc.read().decode("utf-8", "replace")[:200].strip()
        raise _Refused(exc.code, detail or str(exc.reason)) from None


def _reason(exc: BaseException) -> str:
    if isinstance(exc, urllib.error.URLError):
        exc = exc.reason if isinstance(exc.reason, BaseException) else exc
    if isinstance(exc, ConnectionRefusedError):
        return "nothing answers there (connection refused)"
    if isinstance(exc, TimeoutError):
        return "it did not answer in time"
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _ollama_details(entry: dict[str, Any]) -> str:
    details = entry.get("details") or {}
    parts = [
        str(details.get("parameter_size") or ""),
        str(details.get("quantization_level") or ""),
    ]
    size = entry.get("size")
    if isinstance(size, int) and size > 0:
        parts.append(human_bytes(size))
    return ", ".join(p for p in parts if p)


def _is_embedding(model_id: str, kind: str | None = None) -> bool:
    return kind in ("embeddings", "embedding") or "embed" in model_id.lower()


def _ollama_models(root: str, api_key: str | None, timeout: float) -> tuple[ServerModel, ...]:
    tags = _get_json(f"{root}/api/tags", api_key, timeout)
    models = []
    for entry in tags.get("models", []) if isinstance(tags, dict) else []:
        name = entry.get("name") or entry.get("model")
        family = str((entry.get("details") or {}).get("family") or "")
        if isinstance(name, str) and not _is_embedding(
            name, "embeddings" if "bert" in family else None
        ):
            models.append(ServerModel(name, _ollama_details(entry)))
    return tuple(models)


def _lmstudio_models(root: str, api_key: str | None, timeout: float) -> tuple[ServerModel, ...]:
    listing = _get_json(f"{root}/api/v0/models", api_key, timeout)
    models = []
    for entry in listing.get("data", []) if isinstance(listing, dict) else []:
        model_id, kind = entry.get("id"), entry.get("type")
        if not isinstance(model_id, str) or _is_embedding(model_id, kind) or kind == "vlm-embed":
            continue
        parts = [
            str(entry.get("quantization") or ""),
            "loaded" if entry.get("state") == "loaded" else "",
        ]
        context = entry.get("max_context_length")
        if isinstance(context, int):
            parts.append(f"{context // 1024}k context")
        models.append(ServerModel(model_id, ", ".join(p for p in parts if p)))
    return tuple(models)


def _openai_models(listing: Any) -> tuple[ServerModel, ...]:
    data = listing.get("data", []) if isinstance(listing, dict) else []
    models = []
    for entry in data:
        model_id = entry.get("id") if isinstance(entry, dict) else None
        if isinstance(model_id, str) and not _is_embedding(model_id):
            meta = entry.get("meta") or {}
            params = meta.get("n_params") if isinstance(meta, dict) else None
            details = f"{params / 1e9:.1f}B parameters" if isinstance(params, int) else ""
            models.append(ServerModel(model_id, details))
    return tuple(models)


def _kind(base_url: str, listing: Any) -> str:
    port = urlparse(base_url).port
    owners = {
        str(e.get("owned_by"))
        for e in (listing.get("data", []) if isinstance(listing, dict) else [])
        if isinstance(e, dict)
    }
    if "llamacpp" in owners:
        return "llama.cpp server"
    if "library" in owners or port == 11434:
        return "Ollama"
    if "organization_owner" in owners or port == 1234:
        return "LM Studio"
    return dict(KNOWN_SERVERS).get(port or 0, GENERIC)


def probe(
    url: str,
    api_key: str | None = None,
    timeout: float = PROBE_TIMEOUT,
    *,
    key_for: KeyLookup | None = None,
) -> LocalServer:
    """Ask the server at ``url`` for its chat models (blocking). A server that does not answer
    or refuses comes back with ``error`` (one line). Without ``api_key``, ``key_for`` gives
    the key when the server asks for one."""
    base = normalize_url(url)
    root = _root(base)
    try:
        listing, api_key = _listing(base, api_key, timeout, key_for)
    except _Refused as exc:
        needs_key = exc.status in (401, 403)
        error = (
            "it asks for an API key" if needs_key and not api_key else f"it answered {exc.status}"
        )
        if needs_key and api_key:
            error = "it refused the API key"
        return LocalServer(base, GENERIC, error=error, needs_key=needs_key)
    except ModelError as exc:  # the key could not be read
        return LocalServer(base, GENERIC, error=f"it asks for an API key: {exc}", needs_key=True)
    except (OSError, ValueError) as exc:
        return LocalServer(base, GENERIC, error=_reason(exc))
    kind = _kind(base, listing)
    models = _openai_models(listing)
    richer = {"Ollama": _ollama_models, "LM Studio": _lmstudio_models}.get(kind)
    if richer is not None:
        try:
            models = richer(root, api_key, timeout) or models
        except (_Refused, OSError, ValueError):
            pass  # the OpenAI listing is enough
    return LocalServer(base, kind, models)


def _listing(
    base: str, api_key: str | None, timeout: float, key_for: KeyLookup | None
) -> tuple[Any, str | None]:
    """The server's ``/models`` listing, and the API key it took (read only if asked for)."""
    try:
        return _get_json(f"{base}/models", api_key, timeout), api_key
    except _Refused as exc:
        if exc.status not in (401, 403) or api_key or key_for is None:
            raise
        api_key = key_for(base)
        if not api_key:
            raise
    return _get_json(f"{base}/models", api_key, timeout), api_key


async def discover(
    extra: list[str] | tuple[str, ...] = (),
    *,
    key_for: KeyLookup = server_api_key,
    keyed: list[str] | tuple[str, ...] = (),
    ports: tuple[tuple[int, str], ...] | None = None,
    timeout: float = PROBE_TIMEOUT,
) -> list[LocalServer]:
    """The servers that answer on this machine's known ports, and the user's ``extra`` URLs
    whether they answer or not (with why not), probed together. ``key_for`` is asked only
    for the ``extra`` URLs and the ``keyed`` ones (the server in use)."""
    known = ports if ports is not None else KNOWN_SERVERS
    local = [f"http://127.0.0.1:{port}/v1" for port, _kind in known]
    wanted = [normalize_url(u) for u in extra]
    urls = list(dict.fromkeys([*local, *wanted]))
    named = {*wanted, *(normalize_url(u) for u in keyed)}

    def one(url: str) -> LocalServer:
        return probe(url, timeout=timeout, key_for=key_for if url in named else None)

    found = await asyncio.gather(*(asyncio.to_thread(one, url) for url in urls))
    return [s for s in found if s.error is None or s.url in wanted or s.needs_key]
