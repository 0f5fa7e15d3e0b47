"""The ``tic-desktop`` command line. Each subcommand owns a plain asyncio loop; errors are one
line. ``tic`` is its old name, kept as an alias: ncurses' terminfo compiler is also called ``tic``.

The engine's work goes through the ``Engine`` façade (``triage`` and ``eval``, which need no
engine, through ``engine.triage.standalone``), and a command beside the running app hands its
work over the workspace's channel (``engine.ipc``). With no subcommand the launcher above
(``tic_desktop``) starts the desktop app: it hands ``main`` the functions that do, so neither
the command line nor the engine imports the desktop."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.errors import InputError, TicError, WorkspaceReadOnly
from engine.logs import setup as logsetup
from engine.workspace import Workspace, default_home
from tic_cli.models_cli import add_model_commands, run_model_command

if TYPE_CHECKING:  # the commands import what they run when they run: --help stays quick
    from engine.engine import Engine, FileNote, RequestHandler, RuleSuggestion
    from engine.ipc.handover import HandedOver
    from engine.ipc.lock import Holder
    from tic_cli.chatconsole import ChatConsole

log = logging.getLogger("tic")
PROG = "tic-desktop"

EMPTY_HISTORY = "No messages yet. TIC's notifications and your chats appear here."

# Starts the desktop app: (home, model, verbose) -> exit status.
DesktopRunner = Callable[[Path | None, str | None, bool], int]
# Adds (True) or removes (False) the app's menu entry, launching it on a workspace: -> status.
MenuEntryRunner = Callable[[bool, Path | None], int]
NO_DESKTOP = "a command is needed here (the desktop app starts with: python -m tic_desktop)"

EPILOG = """\
workspace: %(home)s (set TIC_HOME or --home to use another)
model: --model PATH, the "model_path" setting, the first *.gguf in the workspace's models/,
       or the embedded SmolLM2-135M-Instruct, in that order."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
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
    entry = parser.add_mutually_exclusive_group()
    entry.add_argument(
        "--install-desktop-entry",
        action="store_true",
        help="add the app to the desktop's application menu (a .desktop file and an icon)",
    )
    entry.add_argument(
        "--uninstall-desktop-entry",
        action="store_true",
        help="remove it from the application menu again",
    )
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
    p.add_argument("--limit", type=_positive, default=50, help="last N messages (default 50)")

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
        "understood it to mean; lines it could not read are flagged. Changes nothing, except "
        "--confirm LINE, which applies a line held because it would silence most recent "
        "messages.",
    )
    p.add_argument(
        "--rules",
        type=Path,
        help="a notifications.md rules file (default: the workspace's data/notifications.md)",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per rule line")
    p.add_argument(
        "--confirm",
        type=int,
        metavar="LINE",
        help="apply the rule on line LINE although it would silence most recent messages",
    )
    p.add_argument(
        "--accept",
        metavar="LINE:KIND",
        help="read the line LINE, read only in part, as suggested: KIND is sender or topic",
    )

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
    add_model_commands(sub)
    return parser


def _positive(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {number}")
    return number


def main(
    argv: Sequence[str] | None = None,
    *,
    desktop: DesktopRunner | None = None,
    menu_entry: MenuEntryRunner | None = None,
) -> int:
    """Run one subcommand; with none, ``desktop`` (from the launcher) starts the app, and
    ``menu_entry`` (from the launcher too) adds or removes the app's menu entry."""
    os.umask(0o077)  # whatever TIC writes (store, logs, settings, rules) is the user's only
    parser = build_parser()
    args = parser.parse_args(argv)
    logsetup.setup_console(args.verbose)
    try:
        if args.install_desktop_entry or args.uninstall_desktop_entry:
            if menu_entry is None:
                raise InputError(NO_DESKTOP)
            home = args.home or (default_home() if os.environ.get("TIC_HOME") else None)
            return menu_entry(bool(args.install_desktop_entry), home)
        if args.command is None:
            if desktop is None:
                raise InputError(NO_DESKTOP)
            return desktop(args.home, args.model, args.verbose)
        import asyncio

        return asyncio.run(dispatch(args))
    except InputError as exc:
        return _failed(args.command, exc, 2)
    except TicError as exc:
        return _failed(args.command, exc, 1)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. `tic-desktop history | head`
        sys.stderr.close()
        return 0
    except Exception as exc:
        from engine.engine import describe_failure  # only on this path: it loads the engine

        known = describe_failure(exc, Workspace(args.home or default_home()))
        if known is not None:  # a store or disk fault the engine let by
            return _failed(args.command, known, 1)
        return _crashed(exc, args.verbose)
    finally:
        logsetup.teardown_logging()


def _read_only(workspace: Workspace, why: str) -> WorkspaceReadOnly:
    return WorkspaceReadOnly.at(workspace.root, why)


def _only_reads(args: argparse.Namespace) -> bool:
    """Whether the command writes nothing in the workspace, so it works on a read-only one
    (``model token`` and ``model key`` write the keyring only)."""
    if args.command in ("history", "triage", "eval"):
        return True
    if args.command == "rules":
        return args.confirm is None and args.accept is None
    keeps_to_itself = ("list", "servers", "token", "key")
    return args.command == "model" and args.model_command in keeps_to_itself


def _failed(command: str | None, exc: TicError, code: int) -> int:
    """An expected error: one line on the terminal, the same line in the log."""
    log.error("tic %s failed: %s", command or "app", exc, extra=logsetup.FILE_ONLY)
    print(f"{PROG}: error: {exc}", file=sys.stderr)
    return code


def _crashed(exc: Exception, verbose: bool) -> int:
    """A bug: the traceback goes to the log, the terminal gets one line saying where."""
    log.error("unexpected error", exc_info=exc, extra=logsetup.FILE_ONLY)
    where = logsetup.current_log_file()
    if where is not None:
        hint = f"details in {where}"
    elif verbose:  # no log file here (triage, eval without a workspace): show it all
        traceback.print_exception(exc, file=sys.stderr)
        hint = "the traceback is above"
    else:
        hint = "run with -v for the details"
    print(f"{PROG}: unexpected error: {type(exc).__name__}: {exc} ({hint})", file=sys.stderr)
    return 1


async def dispatch(args: argparse.Namespace) -> int:
    command = args.command
    if command == "triage":
        return await cmd_triage(args)
    if command == "eval":
        return await cmd_eval(args)
    workspace = Workspace.open(args.home)
    if not workspace.writable:  # only reading works here, and no log is kept
        if not _only_reads(args):
            raise _read_only(workspace, f"{_role(command)} writes to it (make it writable)")
    else:
        logsetup.setup_logging(workspace)
        log.info("tic %s (workspace %s)", command, workspace.root)
    if command == "ingest":
        return await cmd_ingest(workspace, args.file)
    if command == "history":
        return await cmd_history(workspace, as_json=args.json, limit=args.limit)
    if command == "rules":
        return await cmd_rules(workspace, args)
    if command == "tick":
        return await cmd_tick(workspace, args.model)
    if command == "chat":
        return await cmd_chat(workspace, args.model)
    if command == "model":
        return await run_model_command(workspace, args)
    raise TicError(f"unknown command {command}")


def _log_if_kept(workspace: Workspace, command: str) -> None:
    """triage and eval create no workspace, but log into one that already exists."""
    if workspace.logs_dir.is_dir() and workspace.writable:
        logsetup.setup_logging(workspace)
        log.info("tic %s (workspace %s)", command, workspace.root)


def _role(command: str) -> str:
    return f"{PROG} {command}"


def _note_wait(who: Holder) -> None:
    print(f"waiting for {who.describe()} to finish…", file=sys.stderr, flush=True)


async def cmd_ingest(workspace: Workspace, file: Path) -> int:
    """Into the store here, or handed to the process that holds the workspace."""
    from engine.engine import Engine
    from engine.events import read_events
    from engine.ipc.handover import HandedOver, run_here_or_hand_over

    events = read_events(file)
    where = run_here_or_hand_over(
        workspace,
        _role("ingest"),
        lambda: {"cmd": "ingest", "events": [e.model_dump(mode="json") for e in events]},
        on_wait=_note_wait,
    )
    if isinstance(where, HandedOver):
        answer = where.answer
        if not answer.get("ok"):
            raise TicError(f"{where.holder.describe()} refused the events: {answer.get('error')}")
        print(
            f"{answer['added']} new event(s) added, {answer['known']} already known "
            f"(handed to the running app: {where.holder.describe()})"
        )
        return 0
    with where:  # nothing else may write the store meanwhile (it serves no requests)
        engine = Engine.without_model(workspace)
        try:
            result = engine.ingest(events)
        finally:
            await engine.stop()
    print(f"{result.added} new event(s) added, {result.known} already known")
    return 0


def handover_tick(handed: HandedOver) -> int:
    """The workspace's holder ran the tick (the app: its toasts show on the desktop)."""
    answer, by = handed.answer, handed.holder.describe()
    if answer.get("skipped"):
        print(f"TIC is already checking (in the running app: {by})")
        return 0
    if "events" not in answer:
        raise TicError(f"{by} could not check: {answer.get('error')}")
    print(
        f"TIC checked {answer.get('events', 0)} event(s), notified {answer.get('notified', 0)}"
        + (f", failed: {answer['error']}" if answer.get("error") else "")
        + (" after the check it was running" if answer.get("waited") else "")
        + f" (in the running app: {by})"
    )
    return 0 if answer.get("ok") else 1


async def cmd_tick(workspace: Workspace, model_path: str | None) -> int:
    from engine.engine import Engine
    from engine.ipc.handover import HandedOver, run_here_or_hand_over
    from tic_cli.chatconsole import ChatConsole

    role = _role("tick")
    where = run_here_or_hand_over(workspace, role, lambda: {"cmd": "tick"}, on_wait=_note_wait)
    if isinstance(where, HandedOver):
        return handover_tick(where)
    with where:
        engine = Engine.open(workspace, model_path)
        _print_replies(engine, ChatConsole(sys.stdout, sys.stderr, stream=False))
        try:
            await engine.start(schedule=False)
            # another tick or ingest meanwhile is handed here; a chat or the app waits
            await engine.serve({}, role=role, busy=("chat", "show"))
            result = await engine.check_now()
        finally:
            await engine.stop_serving(grace=None)
            await engine.stop()
    print(
        f"TIC checked {result.events} event(s), notified {result.notified}"
        + (f", failed: {result.error}" if result.error else "")
        + (
            f"; {result.failed} event(s) given up on (see tic-desktop history / the log)"
            if result.failed
            else ""
        )
    )
    return 1 if result.error else 0


def _print_replies(engine: Engine, console: ChatConsole) -> None:
    """A tick prints each reply once it is stored, then takes its unprinted mark off; what a
    killed tick stored but never printed is printed first. So a kill loses no reply, and
    reprints at most the one it landed between printing and unmarking."""
    from engine.bus import ReplyFinished

    engine.print_replies_here()
    for reply in engine.unprinted_replies():
        console.on_event(reply)
        engine.printed(reply.message_id)

    def show(event: object) -> None:
        console.on_event(event)
        if isinstance(event, ReplyFinished):
            engine.printed(event.message_id)

    engine.bus.subscribe(show)


async def cmd_chat(workspace: Workspace, model_path: str | None) -> int:
    import asyncio

    from engine.engine import Engine
    from engine.ipc.attach import ChatSession, run_here_or_attach
    from tic_cli.chatconsole import ChatConsole
    from tic_cli.remote_chat import AttachedChat

    role = _role("chat")
    console = ChatConsole.for_terminal()
    where = await run_here_or_attach(workspace, role, on_wait=_note_wait)
    if isinstance(where, ChatSession):
        with console.session():
            return await AttachedChat(where).run(console)
    with where, console.session():
        engine = Engine.open(workspace, model_path)
        unsubscribe = engine.bus.subscribe(console.on_event)
        await engine.start(schedule=True)
        await engine.serve({"show": _refuse_app(role)}, role=role)
        console.say("TIC chat: type a message; /tick checks now, /quit leaves.")
        _welcome(engine, console)
        # While the user types, the model reads what the first reply will open with.
        warm_up = asyncio.create_task(engine.warm_up(), name="warm-up")
        try:
            await _chat_loop(engine, console)
        finally:
            warm_up.cancel()
            await engine.stop()
            unsubscribe()
    return 0


def _welcome(engine: Engine, console: ChatConsole) -> None:
    """The first chat in a workspace, on a tiny model: what the built-in model can and
    can't do, and the command that gets the model this computer is best served by."""
    from engine.engine import terminal_welcome

    if engine.capability != "tiny" or engine.history(1):
        return
    for line in terminal_welcome(engine.models.offer()):
        console.say(line)


def _refuse_app(role: str) -> RequestHandler:
    """The desktop app cannot start beside this chat: it says so in one line."""

    async def refuse(_request: dict[str, Any]) -> dict[str, Any]:
        who = f"{role} (pid {os.getpid()})"
        return {"ok": False, "error": f"TIC runs in {who} on this workspace: quit it first"}

    return refuse


async def _chat_loop(engine: Engine, console: ChatConsole) -> None:
    while True:
        try:
            line = await console.next_line()
        except EOFError:
            return
        text = line.strip()
        if not text:
            continue
        if text in ("/quit", "/exit"):
            return
        if text == "/tick":
            result = await engine.check_now()
            console.say(f"checked {result.events} event(s), notified {result.notified}")
            continue
        try:
            await engine.send(text)
        except TicError as exc:
            console.say(f"{PROG}: error: {exc}", error=True)


async def cmd_history(workspace: Workspace, *, as_json: bool, limit: int) -> int:
    from engine.engine import Engine
    from engine.ipc.lock import WorkspaceLock

    # Reading is safe beside the workspace's holder (WAL); with none, hold it meanwhile
    # (a read-only workspace takes no lock file, and no process can write it anyway).
    role = _role("history")
    lock = WorkspaceLock.try_acquire(workspace, role) if workspace.writable else None
    try:
        engine = Engine.without_model(workspace)
        try:
            rows = engine.history(limit)
        finally:
            await engine.stop()
    finally:
        if lock is not None:
            lock.release()
    if not rows and not as_json:  # --json stays empty: nothing for a program to read
        print(EMPTY_HISTORY)
        return 0
    if as_json:
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
        return 0
    from tic_cli.history_lines import history_lines

    for line in history_lines(rows):
        print(line)
    return 0


async def cmd_rules(workspace: Workspace, args: argparse.Namespace) -> int:
    from engine.engine import RULES_FILE, Engine
    from engine.triage.standalone import read_rules_file

    text: str | None = None
    unreadable: list[FileNote] = []
    if args.rules is not None:
        text, unreadable = read_rules_file(args.rules)
    engine = Engine.open(workspace, args.model, stand_in=True)
    try:
        lines = engine.rules_report(text)
        notes = engine.rules_notes(text) + unreadable
        holds = {h.text: h for h in await engine.rule_holds(text)}
        suggestions = engine.rule_suggestions(text)
        if args.accept is not None:
            return _accept(engine, suggestions, args.accept)
        if args.confirm is not None:
            chosen = [h for h in holds.values() if h.line_number == args.confirm]
            if not chosen:
                raise InputError(f"line {args.confirm} is not held; nothing to confirm")
            for hold in chosen:
                engine.confirm_rule(hold.text)
                print(f"line {hold.line_number} applied from the next check: {hold.text}")
            return 0
    finally:
        await engine.stop()
    if args.json:
        for line in lines:
            print(json.dumps(line.to_json(), ensure_ascii=False))
        for note in notes:
            print(json.dumps(note.to_json(), ensure_ascii=False))
        for hold in holds.values():
            print(json.dumps({"line": hold.line_number, "held": hold.sentence}, ensure_ascii=False))
        return 0
    where = args.rules or RULES_FILE
    if not lines:
        print(f"{where}: no rule lines; TIC's built-in judgement decides")
    else:
        unclear = sum(1 for line in lines if not line.understood)
        print(
            f"{where}: {len(lines)} rule(s)"
            + (f", {unclear} not understood" if unclear else ", all understood")
        )
    shown: list[tuple[int, str, str]] = [
        (x.line_number, x.text, f"{x.sentence}\n    \u23f8 {holds[x.text].sentence}")
        if x.text in holds and x.understood
        else (x.line_number, x.text, x.sentence)
        for x in lines
    ]
    shown += [(n.line_number, n.text, n.sentence) for n in notes]
    for s in suggestions:
        shown.append(
            (
                s.line_number,
                s.line,
                f"did you mean: {s.reading}? (--accept {s.line_number}:{s.kind})",
            )
        )
    printed: set[tuple[int, str]] = set()
    for number, said, sentence in sorted(shown, key=lambda s: s[0]):
        if (number, said) not in printed:
            print(f"line {number}: {said}")
            printed.add((number, said))
        print(f"    {sentence}")
    return 0


def _accept(engine: Engine, suggestions: list[RuleSuggestion], said: str) -> int:
    line, _, kind = said.partition(":")
    chosen = [s for s in suggestions if str(s.line_number) == line.strip() and s.kind == kind]
    if not chosen:
        raise InputError(f"no suggestion {said!r}; `tic-desktop rules` lists them")
    engine.accept_suggestion(chosen[0].line, kind)
    print(f"line {chosen[0].line_number} is read from the next check as: {chosen[0].reading}")
    return 0


async def cmd_triage(args: argparse.Namespace) -> int:
    from engine.clock import utcnow
    from engine.events import read_events
    from engine.triage.standalone import StandaloneTriage, Undecided, read_rules_file

    rules_text, _skipped = read_rules_file(args.rules)  # skipped lines are logged, as ever
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
    _log_if_kept(workspace, args.command)
    triage = StandaloneTriage(workspace, args.model)
    undecided = 0
    try:
        for outcome in await triage.decide(events, now, rules_text):
            print(outcome.to_json(), flush=True)
            if isinstance(outcome, Undecided):  # it fails alone: {"id", "error"}
                undecided += 1
                log.error("tic triage: %s: %s", outcome.id, outcome.reason)
    finally:
        await triage.close()
    return 1 if undecided else 0


async def cmd_eval(args: argparse.Namespace) -> int:
    from engine.triage.standalone import StandaloneTriage, read_cases

    cases = read_cases(args.cases)
    rules_dir = args.rules_dir or args.cases.parent
    workspace = Workspace(args.home or default_home())
    _log_if_kept(workspace, args.command)
    triage = StandaloneTriage(workspace, args.model)
    try:
        report = await triage.evaluate(cases, rules_dir)
    finally:
        await triage.close()
    print("\n".join(report.lines()))
    if args.min_accuracy is not None and (
        report.accuracy < args.min_accuracy or report.never_violations or report.always_violations
    ):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
