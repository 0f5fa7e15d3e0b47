"""``tic chat`` as a user runs it: a real ``python -m engine chat`` subprocess on a
pseudo-terminal (readline, the prompt redrawn under a notification) and on a pipe (plain
lines), its model a scripted server the test answers."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.chatconsole import CLEAR_LINE
from tests.cli_helpers import ROOT, run_tic, write_jsonl
from tests.factories import event_dict, reply
from tests.model_server import ScriptedServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")

RULES = "# Notification rules\n\n## Always notify\n- Emails from Anna Berg\n"
NOTE = "Anna Berg asks you to call her back today."
LINKEDIN_DONE = (
    "Done — I won't notify you about LinkedIn any more (Never notify: LinkedIn). "
    "I read it as “Never notify: from LinkedIn”."
)
ESCAPES = re.compile(r"\x1b\[\?[0-9;]*[hl]")  # readline's mode switches (bracketed paste…)


class Terminal:
    """``tic`` on a pseudo-terminal: type into it, wait for what it prints."""

    def __init__(self, args: list[str], env: dict[str, str]):
        pid, fd = pty.fork()
        if pid == 0:  # the child: the pty is its controlling terminal
            os.chdir(ROOT)
            os.execve(sys.executable, [sys.executable, "-m", "engine", *args], env)
        self.pid, self.fd = pid, fd
        self.output = ""
        self.status: int | None = None

    def type(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def expect(self, text: str, timeout: float = 60.0, start: int = 0) -> int:
        """Wait until ``text`` appears after position ``start``; returns where it ends."""
        deadline = time.monotonic() + timeout
        while (at := self.output.find(text, start)) < 0:
            if time.monotonic() > deadline or not self._read(deadline - time.monotonic()):
                raise AssertionError(f"never saw {text!r}; the terminal shows:\n{self.output!r}")
        return at + len(text)

    def _read(self, timeout: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], max(0.0, timeout))
        if not ready:
            return False
        try:
            data = os.read(self.fd, 4096)
        except OSError:  # the child closed the terminal
            return False
        self.output += ESCAPES.sub("", data.decode("utf-8", "replace"))
        return bool(data)

    def wait(self, timeout: float = 60.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                return self.status
            self._read(0.1)
        raise AssertionError(f"tic chat did not exit; the terminal shows:\n{self.output!r}")

    def close(self) -> None:
        if self.status is None:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        os.close(self.fd)


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as fake:
        yield fake


def chat_env(home: Path) -> dict[str, str]:
    # The model is the test's own local server: no weights are loaded anywhere.
    return dict(
        os.environ,
        TIC_HOME=str(home),
        TIC_ALLOW_MODEL_REQUESTS="1",
        TERM="xterm",
        INPUTRC="/dev/null",
        COLUMNS="120",
    )


def workspace_with_rules(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (home / "data").mkdir(parents=True)
    (home / "data" / "notifications.md").write_text(RULES)
    return home


def test_a_notification_prints_above_the_prompt_and_keeps_the_typed_line(tmp_path, server):
    home = workspace_with_rules(tmp_path)
    events = write_jsonl(tmp_path / "e.jsonl", [event_dict(subject="Call me")])
    assert run_tic("ingest", str(events), home=home).returncode == 0

    term = Terminal(["--model", server.url, "chat"], chat_env(home))
    try:
        term.expect("TIC chat: type a message")
        shown = term.expect("> ")
        term.type("stop telling me")
        term.expect("stop telling me", start=shown)
        server.wait_for_requests(1)  # the start's check found Anna's email: its turn waits

        server.answer(reply(NOTE))
        redrawn = term.expect(f"{NOTE}\r\n> stop telling me", start=shown)
        block = term.output[shown:redrawn]
        assert f"{CLEAR_LINE}assistant (notification): {NOTE}\r\n> stop telling me" in block

        term.type(" about LinkedIn\r")
        tool = term.expect("→ done", start=redrawn)
        assert (
            '  · add_notification_rule(section="never", rule="LinkedIn") → done'
            in (term.output[redrawn:tool])
        )
        term.expect(f"assistant: {LINKEDIN_DONE}\r\n", start=tool)  # composed: no model call
        term.expect("> ", start=tool)
        term.type("/quit\r")
        assert term.wait() == 0
    finally:
        term.close()
    assert "LinkedIn" in (home / "data" / "notifications.md").read_text()
    assert "Traceback" not in term.output


def test_ctrl_c_at_the_prompt_leaves_at_once(tmp_path, server):
    home = workspace_with_rules(tmp_path)
    term = Terminal(["--model", server.url, "chat"], chat_env(home))
    try:
        term.expect("> ")
        term.type("half a line")
        term.expect("half a line")
        term.type("\x03")
        assert term.wait(timeout=20) == 130
    finally:
        term.close()
    assert "Traceback" not in term.output


def test_on_a_pipe_the_chat_prints_plain_lines(tmp_path, server):
    home = workspace_with_rules(tmp_path)
    out = run_tic(
        "--model",
        server.url,
        "chat",
        home=home,
        allow_model=True,
        timeout=120,
        input_text="stop telling me about LinkedIn\nwhat's on my calendar tomorrow?\n/quit\n",
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[:5] == [
        "TIC chat: type a message; /tick checks now, /quit leaves.",
        '  · add_notification_rule(section="never", rule="LinkedIn") → done',
        f"assistant: {LINKEDIN_DONE}",
        "  · upcoming_calendar(hours=48) → done",
        "assistant: Nothing on your calendar tomorrow.",
    ]
    assert out.stderr == ""
    log = (home / "logs" / "tic.log").read_text()
    assert "tic chat" in log
    rows = [json.loads(r) for r in run_tic("history", "--json", home=home).stdout.splitlines()]
    replies = [r["content"] for r in rows if r["role"] == "assistant" and r["content"]]
    assert replies == [LINKEDIN_DONE, "Nothing on your calendar tomorrow."]
    assert all(r["composed"] for r in rows if r["role"] == "assistant" and r["content"])
    assert server.requests == []  # both turns were recognised: the model was never asked
