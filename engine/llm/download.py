"""Downloading a catalog model from the Hugging Face hub into the workspace's ``models/``.

Through ``huggingface_hub``: ``hf_hub_url`` and ``get_hf_file_metadata`` find the file at its
pinned revision (honouring ``HF_ENDPOINT``, ``HF_HUB_OFFLINE`` and the token), and its
``http_get`` fetches it with HTTP range requests, resuming by itself after a dropped
connection. ``hf_hub_download`` is not used: since huggingface_hub 2.0 it downloads to a
temporary file of its own and deletes it on any failure, so neither a paused download nor
one cut by quitting the app could resume. Here the bytes go to ``models/<file>.part``, which
stays on cancel, crash or network loss, and a later download continues from its length.

The file becomes visible (renamed to ``<file>``) only after its size, its GGUF header and
its sha256 checked out: the catalog's sha256, else the one the hub publishes for the file,
else none (then the computed one is recorded). A corrupt file is deleted.

Blocking: run it on a worker thread; ``cancel`` stops it between chunks."""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import os
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from engine.errors import ModelError, TicError
from engine.llm.capability import gguf_metadata
from engine.llm.catalog import CatalogEntry
from engine.llm.library import part_path, record
from engine.modeltypes import DownloadState, human_bytes
from engine.network_errors import unreachable

if TYPE_CHECKING:
    from huggingface_hub import HfFileMetadata

log = logging.getLogger(__name__)

DEFAULT_ENDPOINT = "https://huggingface.co"
CHUNK = 1 << 20  # progress and cancel every MiB (huggingface_hub's default is 10 MiB)
REPORT_EVERY = 0.25  # seconds between progress reports
RATE_WINDOW = 5.0  # seconds the transfer rate is averaged over
_SHA256 = re.compile(r"^[0-9a-f]{64}$")

ProgressSink = Callable[[DownloadState], None]


class DownloadError(ModelError):
    """The download failed or the file did not check out (one line, saying why)."""


class DownloadCancelled(TicError):
    """The user paused the download: what arrived is kept in the .part file."""


def hub_endpoint() -> str:
    return (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


class _Meter:
    """Bytes per second over the last few seconds, and the time left at that rate."""

    def __init__(self, window: float = RATE_WINDOW):
        self.window = window
        self.samples: deque[tuple[float, int]] = deque()

    def add(self, done: int, now: float) -> None:
        self.samples.append((now, done))
        while len(self.samples) > 2 and now - self.samples[0][0] > self.window:
            self.samples.popleft()

    def rate(self) -> float:
        if len(self.samples) < 2:
            return 0.0
        (t0, d0), (t1, d1) = self.samples[0], self.samples[-1]
        return (d1 - d0) / (t1 - t0) if t1 > t0 else 0.0


class _Reporter:
    """Turns byte counts into DownloadState reports, at most every REPORT_EVERY seconds."""

    def __init__(self, entry: CatalogEntry, sink: ProgressSink | None):
        self.entry, self.sink = entry, sink
        self.total: int | None = None
        self.meter = _Meter()
        self._last = 0.0

    def phase(self, phase: str, done: int = 0) -> None:
        if self.sink is not None:
            self.sink(
                DownloadState(self.entry.name, self.entry.title, done, self.total, 0.0, None, phase)
            )

    def bytes(self, done: int, *, force: bool = False) -> None:
        now = time.monotonic()
        self.meter.add(done, now)
        if self.sink is None or (not force and now - self._last < REPORT_EVERY):
            return
        self._last = now
        rate = self.meter.rate()
        eta = (self.total - done) / rate if self.total and rate > 0 else None
        self.sink(
            DownloadState(
                self.entry.name, self.entry.title, done, self.total, rate, eta, "downloading"
            )
        )


class _PartFile(io.FileIO):
    """The .part file, opened for appending, reporting its length after each chunk and
    refusing the next chunk once the download is cancelled."""

    def __init__(self, path: Path, reporter: _Reporter, cancel: threading.Event):
        super().__init__(path, "ab")
        self.reporter, self.cancel = reporter, cancel

    def write(self, data: bytes) -> int:  # type: ignore[override]  # buffer types
        if self.cancel.is_set():
            raise DownloadCancelled("download paused")
        written = super().write(data)
        self.reporter.bytes(os.fstat(self.fileno()).st_size)
        return written or 0


@contextlib.contextmanager
def _exclusive(models_dir: Path, entry: CatalogEntry) -> Iterator[None]:
    """One download of a file at a time, across processes (the app and the CLI)."""
    lock_path = models_dir / f".{entry.file}.lock"
    with lock_path.open("a") as handle:
        try:
            import fcntl
        except ImportError:  # not POSIX: no lock
            yield
            return
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise DownloadError(f"{entry.title} is already being downloaded") from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _require_hub() -> None:
    try:
        import huggingface_hub  # noqa: F401
    except ImportError as exc:
        raise DownloadError(
            f"downloading models needs huggingface-hub ({exc}): pip install -e ."
        ) from None


def _is_network_error(exc: BaseException) -> bool:
    """A connection that failed, timed out or dropped (httpx's errors, or the OS's)."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    return bool(names & {"TransportError", "TimeoutException", "NetworkError"}) or isinstance(
        exc, ConnectionError | TimeoutError | socket.gaierror
    )


def explain(exc: BaseException, entry: CatalogEntry, endpoint: str, kept: int = 0) -> str:
    """One line saying why the hub would not give the file."""
    from huggingface_hub import errors

    host = urlparse(endpoint).netloc or endpoint
    page = f"{endpoint}/{entry.repo}"
    resume = (
        f"; the {human_bytes(kept)} downloaded so far are kept, try again to resume" if kept else ""
    )
    if isinstance(exc, errors.OfflineModeIsEnabled):
        return "downloads are off here (HF_HUB_OFFLINE is set); TIC keeps its current model"
    if isinstance(exc, errors.GatedRepoError):
        return (
            f"{entry.repo} is gated: accept its licence at {page} while signed in, then give "
            "TIC your Hugging Face access token (Settings → Model, or tic-desktop model token)"
        )
    if isinstance(exc, errors.RepositoryNotFoundError):
        return f"{entry.repo} is not on {host} (or it is private and needs an access token)"
    if isinstance(exc, errors.RevisionNotFoundError):
        return f"{entry.repo} has no revision {entry.revision[:12]} (the catalog needs updating)"
    if isinstance(exc, errors.EntryNotFoundError):
        return f"{entry.file} is not in {entry.repo} at revision {entry.revision[:12]}"
    if isinstance(exc, errors.HfHubHTTPError):
        status = exc.response.status_code if exc.response is not None else "an error"
        return f"{host} answered {status} for {entry.file}{resume}"
    if _is_network_error(exc):
        said = unreachable(exc, host)
        return f"{said}{' ' if said.endswith('?') else '; '}TIC keeps its current model{resume}"
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else 'failed'}{resume}"


def _metadata(entry: CatalogEntry, endpoint: str, token: str | None) -> HfFileMetadata:
    from huggingface_hub import get_hf_file_metadata, hf_hub_url

    url = hf_hub_url(entry.repo, entry.file, revision=entry.revision, endpoint=endpoint)
    return get_hf_file_metadata(url, token=token, endpoint=endpoint)


def _origin(url: str) -> tuple[str, str, int | None]:
    parsed = urlparse(url)
    return parsed.scheme, (parsed.hostname or "").lower(), parsed.port


def _headers(token: str | None, endpoint: str, location: str) -> dict[str, str]:
    """The hub's headers; the token only where the file is served by the hub itself, never
    to the storage host (a CDN) it redirects to."""
    from huggingface_hub.utils._headers import build_hf_headers

    headers = build_hf_headers(token=token, library_name="tic-desktop")
    if _origin(location) != _origin(endpoint):
        headers = {k: v for k, v in headers.items() if k.lower() != "authorization"}
    return headers


def _expected_sha256(entry: CatalogEntry, meta: HfFileMetadata) -> tuple[str | None, str]:
    """The sha256 to check and whose it is: the catalog's, else the hub's published one."""
    if entry.sha256:
        return entry.sha256, "catalog"
    etag = (meta.etag or "").lower()
    if _SHA256.match(etag):  # the hub's ETag of an LFS file is its sha256
        return etag, "hub"
    return None, "none"


def sha256_file(path: Path, cancel: threading.Event | None = None) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK * 4):
            if cancel is not None and cancel.is_set():
                raise DownloadCancelled("check interrupted")
            digest.update(chunk)
    return digest.hexdigest()


def verify(
    path: Path,
    entry: CatalogEntry,
    *,
    size: int | None,
    sha256: str | None,
    whose: str,
    cancel: threading.Event | None = None,
) -> str:
    """Check a finished download; returns its sha256. A file that is not the one expected
    is deleted (resuming it could never fix it) and DownloadError says why."""
    actual_size = path.stat().st_size
    if size is not None and actual_size != size:
        raise DownloadError(
            f"the download of {entry.file} stopped at {human_bytes(actual_size)} of "
            f"{human_bytes(size)}; try again to resume"
        )
    try:
        gguf_metadata(path)
    except (OSError, ValueError) as exc:
        path.unlink(missing_ok=True)
        raise DownloadError(
            f"{entry.file} is not a valid GGUF file ({exc}); the download was deleted"
        ) from None
    digest = sha256_file(path, cancel)
    if sha256 is not None and digest != sha256:
        path.unlink(missing_ok=True)
        raise DownloadError(
            f"{entry.file} is corrupt: its sha256 {digest[:12]}… differs from the {whose}'s "
            f"{sha256[:12]}…; the download was deleted, try again"
        )
    return digest


def _asks_for_token(exc: BaseException) -> bool:
    """The hub wants an access token: a gated repository, or one it hides without one."""
    from huggingface_hub import errors

    return isinstance(exc, errors.GatedRepoError | errors.RepositoryNotFoundError)


def _first_metadata(
    entry: CatalogEntry,
    endpoint: str,
    token: str | None,
    token_for: Callable[[], str | None] | None,
) -> tuple[HfFileMetadata, str | None]:
    """The file's metadata, and the token it took: ``token_for`` is asked only when the hub
    refuses without one (the keyring stays closed for a public model)."""
    try:
        return _metadata(entry, endpoint, token), token
    except Exception as exc:
        if token is not None or token_for is None or not _asks_for_token(exc):
            raise
        token = token_for()
        if not token:
            raise
    return _metadata(entry, endpoint, token), token


def download(
    entry: CatalogEntry,
    models_dir: Path,
    *,
    token: str | None = None,
    token_for: Callable[[], str | None] | None = None,
    on_progress: ProgressSink | None = None,
    cancel: threading.Event | None = None,
) -> Path:
    """Download ``entry`` into ``models_dir`` (resuming a .part left there) and return the
    checked file. Without ``token``, ``token_for`` gives one when the hub asks for it.
    DownloadError says why not in one line; DownloadCancelled when ``cancel`` was set (the
    .part is kept)."""
    cancel = cancel if cancel is not None else threading.Event()
    final = models_dir / entry.file
    if final.is_file():
        return final
    models_dir.mkdir(parents=True, exist_ok=True)
    _require_hub()
    from huggingface_hub import constants
    from huggingface_hub.file_download import http_get
    from huggingface_hub.utils.tqdm import disable_progress_bars

    constants.DOWNLOAD_CHUNK_SIZE = CHUNK
    disable_progress_bars("huggingface_hub.http_get")  # TIC shows its own progress
    endpoint = hub_endpoint()
    part = part_path(models_dir, entry.file)
    reporter = _Reporter(entry, on_progress)
    with _exclusive(models_dir, entry):
        reporter.phase("starting", _size(part))
        try:
            meta, token = _first_metadata(entry, endpoint, token, token_for)
        except Exception as exc:
            raise DownloadError(explain(exc, entry, endpoint, _size(part))) from None
        total = meta.size
        if entry.size_exact and total is not None and total != entry.size:
            raise DownloadError(
                f"the hub's {entry.file} is {total} bytes, the catalog says {entry.size}: "
                "the catalog entry needs updating"
            )
        reporter.total = total
        sha256, whose = _expected_sha256(entry, meta)
        have = _size(part)
        if total is not None and have > total:
            part.unlink()
            have = 0
        if have:
            log.info("resuming %s from %d of %s bytes", entry.file, have, total)
        if total is None or have < total:
            reporter.bytes(have, force=True)
            try:
                with _PartFile(part, reporter, cancel) as handle:
                    http_get(
                        meta.location,
                        handle,
                        resume_size=have,
                        headers=_headers(token, endpoint, meta.location),
                        expected_size=total,
                        displayed_filename=entry.file,
                    )
            except DownloadCancelled:
                raise
            except Exception as exc:
                if cancel.is_set():
                    raise DownloadCancelled("download paused") from None
                raise DownloadError(explain(exc, entry, endpoint, _size(part))) from None
            reporter.bytes(_size(part), force=True)
        reporter.phase("verifying", _size(part))
        digest = verify(part, entry, size=total, sha256=sha256, whose=whose, cancel=cancel)
        part.replace(final)
    record(
        models_dir,
        entry.file,
        {
            "name": entry.name,
            "repo": entry.repo,
            "revision": entry.revision,
            "sha256": digest,
            "sha256_checked_against": whose,
            "size": final.stat().st_size,
            "downloaded_at": datetime.now(UTC).isoformat(timespec="seconds"),
        },
    )
    reporter.phase("finished", final.stat().st_size)
    return final


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
