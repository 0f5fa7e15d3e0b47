"""The ``tic`` command line. Each subcommand owns a plain asyncio loop; errors are one line.

The engine's work goes through the ``Engine`` façade. With no subcommand the launcher above
(``tic_desktop``) starts the desktop app: it hands ``main`` the function that does, so the
engine never imports the desktop."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import engine.ipc.client as ipc
from engine.bus import ReplyFinished, ReplyStarted, ReplyToken, TurnFailed
from engine.clock import utcnow
from engine.engine import Engine
from engine.errors import InputError, TicError
from engine.events import read_events
from engine.llm.loading import load_model
from engine.settings import Settings
from engine.triage.decider import RULES_FILE
from engine.workspace import Workspace, default_home

log = logging.getLogger("tic")

# Starts the desktop app: (home, model, verbose) -> exit status.
DesktopRunner = Callable[[Path | None, str | None, bool], int]
NO_DESKTOP = "a command is needed here (the desktop app starts with: python -m tic_desktop)"

EPILOG = """\
workspace: %(home)s (set TIC_HOME or --home to use another)
model: --model PATH, the "model_path" setting, the first *.gguf in the workspace's models/,
       or the embedded SmolLM2-135M-Instruct, in that order."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tic",
        description="TIC Desktop: a local assistant that tells you only what matters. "
        "With no command it starts the desktop app.",
        epilog=EPILOG % {"home": default_home()},
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--home",
        type=Path,
        help="workspace folder (default: $TIC_HOME or the platform's user data dir)",
    )
    parser.add_argument("--model", help="GGUF model file to run")
    parser.add_argument("-v", "--verbose", action="store_true", help="log what happens")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("ingest", help="add canonical events (JSON Lines) to the store")
    p.add_argument("file", type=Path, help="events file, one canonical event per line")

    sub.add_parser("tick", help="run TIC once now over pending events and wait for the replies")

    sub.add_parser(
        "chat",
        help="chat with the assistant in the terminal (notifications "
        "appear here too); /tick checks now, /quit leaves",
    )

    p = sub.add_parser(
        "history", help="show the chat history, with synthetic messages and tool calls"
    )
    p.add_argument("--json", action="store_true", help="one JSON object per message")
    p.add_argument("--limit", type=int, default=50, help="last N messages (default 50)")

    p = sub.add_parser(
        "triage",
        help="decide events under a rules file, touching no store and sending nothing",
        description="Runs exactly TIC's decision pipeline. Prints one JSON object per event: "
        '{"id", "notify", "summary", "reason", "rule"}.',
    )
    p.add_argument("--rules", type=Path, required=True, help="a notifications.md rules file")
    p.add_argument("--events", type=Path, required=True, help="events, JSON Lines")
    p.add_argument("--now", help="the tick's time, ISO-8601 with offset (default: now)")

    p = sub.add_parser(
        "rules",
        help="show each line of the rules file and how TIC understood it",
        description="Prints each rule line with its section and, in plain words, what TIC "
        "understood it to mean; lines it could not read are flagged. Changes nothing.",
    )
    p.add_argument(
        "--rules",
        type=Path,
        help="a notifications.md rules file (default: the workspace's data/notifications.md)",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per rule line")

    p = sub.add_parser(
        "eval",
        help="measure TIC's decisions on a labelled set (the triage dev-set format)",
        description="Prints accuracy, precision, recall, hard-rule violations and every wrong "
        "case with its reason.",
    )
    p.add_argument("cases", type=Path, help="cases, JSON Lines: {rules, now, event, notify}")
    p.add_argument(
        "--rules-dir",
        type=Path,
        help="folder of rules-<id>.md files (default: the cases file's folder)",
    )
    p.add_argument(
        "--min-accuracy",
        type=float,
        default=None,
        help="exit 1 when accuracy (0-1) is below this, or any hard rule is broken",
    )
    return parser


def main(argv: Sequence[str] | None = None, *, desktop: DesktopRunner | None = None) -> int:
    """Run one subcommand; with none, ``desktop`` (from the launcher) starts the app."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        if args.command is None:
            if desktop is None:
                raise InputError(NO_DESKTOP)
            return desktop(args.home, args.model, args.verbose)
        return asyncio.run(dispatch(args))
    except InputError as exc:
        print(f"tic: error: {exc}", file=sys.stderr)
        return 2
    except TicError as exc:
        print(f"tic: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. `tic history | head`
        sys.stderr.close()
        return 0


async def dispatch(args: argparse.Namespace) -> int:
    command = args.command
    if command == "triage":
        return await cmd_triage(args)
    if command == "eval":
        return await cmd_eval(args)
    workspace = Workspace.open(args.home)
    if command == "ingest":
        return await cmd_ingest(workspace, args.file)
    if command == "tick" and ipc.app_running(workspace):
        return handover_tick(workspace)
    if command == "history":
        return await cmd_history(workspace, as_json=args.json, limit=args.limit)
    if command == "rules":
        return await cmd_rules(workspace, args)
    if command == "tick":
        return await cmd_tick(workspace, args.model)
    if command == "chat":
        return await cmd_chat(workspace, args.model)
    raise TicError(f"unknown command {command}")


async def cmd_ingest(workspace: Workspace, file: Path) -> int:
    events = read_events(file)
    answer = ipc.request(
        workspace, {"cmd": "ingest", "events": [e.model_dump(mode="json") for e in events]}
    )
    if answer is not None:  # the running app owns the store's writes
        if not answer.get("ok"):
            raise TicError(f"the running app refused the events: {answer.get('error')}")
        print(
            f"{answer['added']} new event(s) added, {answer['known']} already known "
            "(handed to the running app)"
        )
        return 0
    engine = Engine.without_model(workspace)
    try:
        result = engine.ingest(events)
    finally:
        await engine.stop()
    print(f"{result.added} new event(s) added, {result.known} already known")
    return 0


def _printer(stream_tokens: bool) -> Any:
    streamed: list[str] = []
    started = [False]

    def show(event: Any) -> None:
        if isinstance(event, ReplyStarted) and stream_tokens:
            streamed.clear()
            started[0] = True
            label = "assistant (notification)" if event.kind == "notification" else "assistant"
            print(f"\n{label}: ", end="", flush=True)
        elif isinstance(event, ReplyToken) and stream_tokens:
            streamed.append(event.text)
            print(event.text, end="", flush=True)
        elif isinstance(event, ReplyFinished):
            if not stream_tokens:
                print(f"assistant: {event.text}")
                return
            said = "".join(streamed).strip()
            rest = event.text[len(said) :] if event.text.startswith(said) and said else ""
            if not said:  # nothing was streamed (e.g. plain wording): show it all
                print(f"\nassistant: {event.text}")
            elif rest.strip():
                print(rest.rstrip())
            else:
                print()
            started[0] = False
            streamed.clear()
        elif isinstance(event, TurnFailed):
            print(f"\n[{event.kind} turn failed: {event.error}]", file=sys.stderr)

    return show


def handover_tick(workspace: Workspace) -> int:
    """The app is running: it runs the tick, so its toasts show on the desktop."""
    answer = ipc.request(workspace, {"cmd": "tick"})
    if answer is None:
        raise TicError("the running app stopped answering")
    if answer.get("skipped"):
        print("TIC is already checking (in the running app)")
        return 0
    print(
        f"TIC checked {answer.get('events', 0)} event(s), notified {answer.get('notified', 0)}"
        + (f", failed: {answer['error']}" if answer.get("error") else "")
        + " (in the running app)"
    )
    return 0 if answer.get("ok") else 1


async def cmd_tick(workspace: Workspace, model_path: str | None) -> int:
    engine = Engine.open(workspace, model_path)
    engine.bus.subscribe(_printer(stream_tokens=False))
    try:
        await engine.start(schedule=False)
        result = await engine.check_now()
    finally:
        await engine.stop()
    print(
        f"TIC checked {result.events} event(s), notified {result.notified}"
        + (f", failed: {result.error}" if result.error else "")
        + (
            f"; {result.failed} event(s) given up on (see tic history / the log)"
            if result.failed
            else ""
        )
    )
    return 1 if result.error else 0


async def cmd_chat(workspace: Workspace, model_path: str | None) -> int:
    engine = Engine.open(workspace, model_path)
    engine.bus.subscribe(_printer(stream_tokens=True))
    loop = asyncio.get_running_loop()
    await engine.start(schedule=True)
    print("TIC chat: type a message; /tick checks now, /quit leaves.")
    try:
        while True:
            try:
                line = await loop.run_in_executor(None, input, "> ")
            except EOFError:
                break
            text = line.strip()
            if not text:
                continue
            if text in ("/quit", "/exit"):
                break
            if text == "/tick":
                result = await engine.check_now()
                print(f"checked {result.events} event(s), notified {result.notified}")
                continue
            try:
                await engine.send(text)
            except TicError as exc:
                print(f"tic: error: {exc}", file=sys.stderr)
    finally:
        await engine.stop()
    return 0


async def cmd_history(workspace: Workspace, *, as_json: bool, limit: int) -> int:
    engine = Engine.without_model(workspace)
    try:
        rows = engine.history(limit)
    finally:
        await engine.stop()
    for row in rows:
        if as_json:
            print(json.dumps(row, ensure_ascii=False))
            continue
        when = row["created_at"][:16].replace("T", " ")
        tag = " (synthetic)" if row["is_synthetic"] else ""
        print(f"[{when}] {row['role']}{tag}: {row['content']}".rstrip())
        if row["reasoning_content"]:
            print(f"    reasoning: {row['reasoning_content']}")
        for call in row["tool_calls"]:
            print(
                f"    tool {call['name']}({json.dumps(call['arguments'])}) "
                f"[{call['status']}] -> {call['result']}"
            )
        for why in row.get("why", []):
            print(
                f"    why: {why.get('reason')}"
                + (f" (rule: {why['rule']})" if why.get("rule") else "")
            )
    return 0


async def cmd_rules(workspace: Workspace, args: argparse.Namespace) -> int:
    text: str | None = None
    if args.rules is not None:
        try:
            text = args.rules.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{args.rules}: cannot read ({exc})") from None
    engine = Engine.open(workspace, args.model, stand_in=True)
    try:
        lines = engine.rules_report(text)
    finally:
        await engine.stop()
    if args.json:
        for line in lines:
            print(json.dumps(line.to_json(), ensure_ascii=False))
        return 0
    where = args.rules or RULES_FILE
    if not lines:
        print(f"{where}: no rule lines; TIC's built-in judgement decides")
        return 0
    unclear = sum(1 for line in lines if not line.understood)
    print(
        f"{where}: {len(lines)} rule line(s)"
        + (f", {unclear} not understood" if unclear else ", all understood")
    )
    for line in lines:
        print(f"line {line.line_number}: {line.text}")
        print(f"    {line.sentence}")
    return 0


async def cmd_triage(args: argparse.Namespace) -> int:
    from engine.triage.decider import TriageDecider

    try:
        rules_text = args.rules.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{args.rules}: cannot read ({exc})") from None
    events = read_events(args.events)
    now = utcnow()
    if args.now:
        try:
            now = datetime.fromisoformat(args.now)
        except ValueError:
            raise InputError(f"--now {args.now!r} is not ISO-8601") from None
        if now.tzinfo is None:
            raise InputError("--now needs a UTC offset, e.g. 2026-11-10T08:00:00+00:00")
    workspace = Workspace(args.home or default_home())
    settings = Settings.load(workspace.settings_file)
    model = load_model(workspace, settings, args.model)
    try:
        decider = TriageDecider(model, workspace)
        for decision in await decider.decide(events, now, rules_text=rules_text):
            print(decision.to_json(), flush=True)
    finally:
        await model.close()
    return 0


async def cmd_eval(args: argparse.Namespace) -> int:
    from engine.triage.decider import TriageDecider
    from engine.triage.evaluate import evaluate, read_cases

    cases = read_cases(args.cases)
    rules_dir = args.rules_dir or args.cases.parent
    workspace = Workspace(args.home or default_home())
    model = load_model(workspace, Settings.load(workspace.settings_file), args.model)
    try:
        report = await evaluate(cases, rules_dir, TriageDecider(model, workspace))
    finally:
        await model.close()
    print("\n".join(report.lines()))
    if args.min_accuracy is not None and (
        report.accuracy < args.min_accuracy or report.never_violations or report.always_violations
    ):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
