"""A Hugging Face endpoint of the test's own, over real HTTP on 127.0.0.1 (``HF_ENDPOINT``).

It answers like the hub does for a file stored with Git LFS: ``HEAD/GET
/{repo}/resolve/{revision}/{file}`` redirects (302) to a storage host — here a second port,
so a different origin, as a CDN is — with ``X-Linked-Size``, ``X-Linked-Etag`` (the sha256)
and ``X-Repo-Commit``; the storage host serves the bytes with HTTP range requests. It can
hold a download after some bytes (``stall_after``: the test kills the downloader then), or
drop the connection there (``drop_after``), serve slowly (``throttle``), and it can play a
gated repository."""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.serving import serving_thread

BLOCK = 1 << 16


@dataclass
class Served:
    repo: str
    revision: str
    file: str
    path: Path
    sha256: str
    gated: bool = False
    publish_sha256: bool = True

    @property
    def size(self) -> int:
        return self.path.stat().st_size


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


class FakeHub:
    def __init__(self) -> None:
        self.files: dict[str, Served] = {}  # by sha256: the storage host's key
        self.resolve: dict[tuple[str, str, str], Served] = {}
        self.requests: list[dict[str, Any]] = []  # method, path, range, authorization, host
        self.stall_after: int | None = None  # hold the first GET after this many bytes
        self.drop_after: int | None = None  # close the first GET after this many bytes
        self.throttle: float | None = None  # bytes per second the storage host serves
        self.release = threading.Event()  # let a stalled GET go on (or end)
        self.stalled = threading.Event()  # a GET is being held
        self._lock = threading.Lock()
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_HEAD(self) -> None:
                hub._answer(self, body=False)

            def do_GET(self) -> None:
                hub._answer(self, body=True)

        self.api = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.cdn = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.api.server_address[1]}"
        self.cdn_url = f"http://127.0.0.1:{self.cdn.server_address[1]}"
        self._threads = [serving_thread(s) for s in (self.api, self.cdn)]

    def serve(
        self,
        repo: str,
        revision: str,
        file: str,
        path: Path,
        *,
        gated: bool = False,
        publish_sha256: bool = True,
        sha256: str | None = None,
    ) -> Served:
        """Serve ``path`` as ``file`` of ``repo`` at ``revision``; ``sha256`` saves hashing a
        big file (it is only the storage key and the published hash then)."""
        digest = sha256 or sha256_of(path)
        served = Served(repo, revision, file, path, digest, gated, publish_sha256)
        self.files[served.sha256] = served
        self.resolve[(repo, revision, file)] = served
        return served

    def gets(self) -> list[dict[str, Any]]:
        """The downloads of file contents (from the storage host)."""
        return [r for r in self.requests if r["method"] == "GET" and r["host"] == "cdn"]

    # --- answering -------------------------------------------------------------------------

    def _answer(self, handler: BaseHTTPRequestHandler, *, body: bool) -> None:
        port = handler.server.server_address[1]
        with self._lock:
            self.requests.append(
                {
                    "method": handler.command,
                    "path": handler.path,
                    "range": handler.headers.get("Range"),
                    "authorization": handler.headers.get("Authorization"),
                    "host": "cdn" if port == self.cdn.server_address[1] else "hub",
                }
            )
        if handler.path.startswith("/cdn/"):
            self._blob(handler, handler.path.removeprefix("/cdn/"), body=body)
            return
        match = re.fullmatch(r"/(.+?/.+?)/resolve/([^/]+)/(.+)", handler.path)
        served = self.resolve.get(match.groups()) if match else None  # type: ignore[arg-type]
        if served is None:
            self._empty(handler, 404, {"X-Error-Code": "EntryNotFound"})
            return
        if served.gated and not handler.headers.get("Authorization"):
            self._empty(handler, 401, {"X-Error-Code": "GatedRepo"})
            return
        etag = served.sha256 if served.publish_sha256 else "0123abcd"
        self._empty(
            handler,
            302,
            {
                "Location": f"{self.cdn_url}/cdn/{served.sha256}",
                "X-Repo-Commit": served.revision,
                "X-Linked-Size": str(served.size),
                "X-Linked-Etag": f'"{etag}"',
                "ETag": '"git-blob-id"',
            },
        )

    @staticmethod
    def _empty(handler: BaseHTTPRequestHandler, status: int, headers: dict[str, str]) -> None:
        handler.send_response(status)
        for key, value in headers.items():
            handler.send_header(key, value)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    def _blob(self, handler: BaseHTTPRequestHandler, key: str, *, body: bool) -> None:
        served = self.files.get(key)
        if served is None:
            self._empty(handler, 404, {})
            return
        size = served.size
        start = 0
        wanted = handler.headers.get("Range")
        if wanted:
            match = re.fullmatch(r"bytes=(\d+)-", wanted.strip())
            if match is None:
                self._empty(handler, 416, {})
                return
            start = int(match.group(1))
        handler.send_response(206 if wanted else 200)
        handler.send_header("Content-Length", str(size - start))
        handler.send_header("Accept-Ranges", "bytes")
        if wanted:
            handler.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
        handler.end_headers()
        if not body:
            return
        stall, drop = self.stall_after, self.drop_after
        self.stall_after = self.drop_after = None  # only the first GET
        sent = 0
        try:
            for block in self._blocks(served.path, start):
                limit = stall if stall is not None else drop
                if limit is not None and start + sent + len(block) > limit:
                    block = block[: max(0, limit - start - sent)]
                    handler.wfile.write(block)
                    handler.wfile.flush()
                    if stall is not None:
                        self.stalled.set()
                        self.release.wait(60)
                    handler.close_connection = True
                    return
                handler.wfile.write(block)
                sent += len(block)
                if self.throttle:
                    time.sleep(len(block) / self.throttle)
        except (BrokenPipeError, ConnectionResetError):
            handler.close_connection = True

    @staticmethod
    def _blocks(path: Path, start: int) -> Iterator[bytes]:
        with path.open("rb") as handle:
            handle.seek(start)
            while block := handle.read(BLOCK):
                yield block

    def __enter__(self) -> FakeHub:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        for server in (self.api, self.cdn):
            server.shutdown()
            server.server_close()
        for thread in self._threads:
            thread.join()
