"""A scripted model for a ``tic`` subprocess: an OpenAI-compatible server on 127.0.0.1 that
answers each request with the next reply the test hands it (``--model http://…/v1``).

A request waits until the test has given its answer, so a test decides exactly when the
model "finishes" (e.g. while the user is typing). With ``default`` every request the test
has not answered gets that answer at once (after ``delay`` seconds): a model that always
works, for runs that make any number of calls. With ``pace`` an answer streams slowly, a
chunk every ``pace`` seconds (``chunks_sent`` counts them), as a real model's tokens do."""

from __future__ import annotations

import json
import queue
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.serving import serving_thread

WAIT = 60.0  # seconds a request waits for the test's answer


class ScriptedServer:
    def __init__(
        self, default: dict[str, Any] | None = None, delay: float = 0.0, pace: float = 0.0
    ) -> None:
        self.requests: list[dict[str, Any]] = []
        self.default = default
        self.delay = delay
        self.pace = pace
        self.chunks_sent: list[int] = []  # per request answered: the chunks sent so far
        self._answers: queue.Queue[dict[str, Any]] = queue.Queue()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers["Content-Length"])
                outer.requests.append(json.loads(self.rfile.read(length)))
                time.sleep(outer.delay)
                try:
                    if outer.default is not None:
                        answer = outer._answers.get_nowait()
                    else:
                        answer = outer._answers.get(timeout=WAIT)
                except queue.Empty:
                    if outer.default is not None:
                        self._stream(outer.default)
                        return
                    self.send_response(503)
                    self.end_headers()
                    self.wfile.write(b"the test gave no answer")
                    return
                self._stream(answer)

            def _stream(self, answer: dict[str, Any]) -> None:
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    text = json.dumps(answer)
                    outer.chunks_sent.append(0)
                    for i in range(0, len(text), 8):
                        chunk = {"choices": [{"delta": {"content": text[i : i + 8]}}]}
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                        self.wfile.flush()
                        outer.chunks_sent[-1] += 1
                        time.sleep(outer.pace)
                    self.wfile.write(b"data: [DONE]\n\n")
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client was killed mid-answer (a crash trial)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = serving_thread(self.httpd)

    def answer(self, *replies: dict[str, Any]) -> None:
        for reply in replies:
            self._answers.put(reply)

    def wait_for_requests(self, count: int, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.requests) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"the model got {len(self.requests)} of {count} requests")
            time.sleep(0.05)

    def __enter__(self) -> ScriptedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()
