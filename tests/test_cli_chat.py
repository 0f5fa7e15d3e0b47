"""``tic chat`` as a user runs it: a real ``python -m tic_cli chat`` subprocess on a
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

from engine.chat.calendar_answer import no_calendar
from engine.chat.firstrun import BUILTIN_CAN, BUILTIN_CANNOT
from tests.cli_helpers import ROOT, run_tic, write_jsonl
from tests.factories import event_dict, reply
from tests.model_server import ScriptedServer
from tic_cli.chatconsole import CLEAR_LINE

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal"),
    pytest.mark.slow,  # tic-desktop chat on a pseudo-terminal, a second or more each
]

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
            os.execve(sys.executable, [sys.executable, "-m", "tic_cli", *args], env)
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
        tool = term.expect("  · Rule added to Never notify\r\n", start=redrawn)
        term.expect(f"assistant: {LINKEDIN_DONE}\r\n", start=tool)  # composed: no model call
        term.expect("> ", start=tool)
        term.type("/quit\r")
        assert term.wait() == 0
    finally:
        term.close()
    assert "LinkedIn" in (home / "data" / "notifications.md").read_text()
    assert "Traceback" not in term.output


def test_an_ingest_beside_a_running_chat_is_told_within_seconds_without_a_tick(tmp_path, server):
    """The schedule is 15 minutes: only the ingest's own wake-up can bring the reply."""
    home = workspace_with_rules(tmp_path)
    urgent = event_dict(subject="Grandma", text="I'm at A&E with grandma, she fell. Please call me")
    events = write_jsonl(tmp_path / "e.jsonl", [urgent])
    term = Terminal(["--model", server.url, "chat"], chat_env(home))
    try:
        shown = term.expect("TIC chat: type a message")
        term.expect("> ", start=shown)
        started = time.monotonic()
        handed = run_tic("ingest", str(events), home=home)
        assert handed.returncode == 0, handed.stderr
        assert "tic-desktop chat" in handed.stdout  # handed to the running chat
        server.wait_for_requests(1, timeout=10)  # TIC checked, and the reply is being written
        server.answer(reply(NOTE))
        told = term.expect("assistant (notification): ", start=shown, timeout=10)
        term.expect("Anna Berg", start=told, timeout=10)
        assert time.monotonic() - started < 10
        term.type("/quit\r")
        assert term.wait() == 0
    finally:
        term.close()
    assert "> /tick" not in term.output  # nobody asked for a check
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
    assert out.stdout.splitlines()[:4] == [
        "TIC chat: type a message; /tick checks now, /quit leaves.",  # a capable model: no welcome
        "  · Rule added to Never notify",  # what changed, in words; a look-up gets no line
        f"assistant: {LINKEDIN_DONE}",
        f"assistant: {no_calendar('en')}",
    ]
    assert out.stderr == ""
    log = (home / "logs" / "tic.log").read_text()
    assert "tic chat" in log
    rows = [json.loads(r) for r in run_tic("history", "--json", home=home).stdout.splitlines()]
    replies = [r["content"] for r in rows if r["role"] == "assistant" and r["content"]]
    assert replies == [LINKEDIN_DONE, no_calendar("en")]
    assert all(r["composed"] for r in rows if r["role"] == "assistant" and r["content"])
    assert server.requests == []  # both turns were recognised: the model was never asked


def test_the_first_chat_on_the_built_in_model_says_what_it_can_do_and_offers_more(tmp_path):
    home = tmp_path / "home"
    first = run_tic("chat", home=home, timeout=120, input_text="/quit\n")
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[1:3] == [BUILTIN_CAN, BUILTIN_CANNOT]
    if len(lines) > 3:  # a catalog model fits this computer: it is offered, with the command
        assert lines[3].startswith("For a real assistant, ")
        assert re.fullmatch(
            r"To get it: (tic-desktop model pull \S+ && )?tic-desktop model use \S+", lines[4]
        )
    asked = run_tic("chat", home=home, timeout=120, input_text="what did I miss?\n/quit\n")
    assert asked.stdout.splitlines()[1:3] == [BUILTIN_CAN, BUILTIN_CANNOT]  # nothing stored yet
    again = run_tic("chat", home=home, timeout=120, input_text="/quit\n")
    assert again.stdout.splitlines() == [
        "TIC chat: type a message; /tick checks now, /quit leaves."
    ]
