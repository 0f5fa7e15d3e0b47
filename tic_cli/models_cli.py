"""``tic-desktop model …``: list the catalog as it fits this computer, pull a model (with a
progress bar on a terminal), use one (a catalog name, a GGUF file, or a model server's URL),
remove one, find the model servers running here, and keep a Hugging Face token or a
server's API key in the keyring. ``--json`` prints JSON (lines, for ``pull``).

When the app runs on the workspace, ``use`` and ``rm`` are handed to it, so it swaps its
model live and never loses a file it is running; ``pull`` downloads here either way (a lock
keeps two downloads of one file apart)."""

from __future__ import annotations

import argparse
import getpass
import json
import shutil
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import engine.ipc.client as ipc
from engine.errors import InputError, TicError
from engine.workspace import Workspace

# The engine and the model types are imported by the commands that use them: `tic-desktop
# --help` builds this parser and runs none of them.
if TYPE_CHECKING:
    from engine.engine import Engine
    from engine.modeltypes import CatalogChoice, DownloadState

BAR = 24


def add_model_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    model = sub.add_parser(
        "model",
        help="list, download, use or remove models; find the model servers running here",
        description="Models for TIC: a catalog of GGUF models that fit this computer "
        "(downloaded from Hugging Face into the workspace's models/), any GGUF file, or a "
        "model you already run in Ollama, LM Studio or llama.cpp's server.",
    )
    actions = model.add_subparsers(dest="model_command", metavar="ACTION", required=True)

    p = actions.add_parser("list", help="the catalog, what fits this computer, what is here")
    p.add_argument("--json", action="store_true", help="one JSON object")

    p = actions.add_parser("pull", help="download a catalog model (resumes an interrupted one)")
    p.add_argument("name", help="a name from `tic-desktop model list`")
    p.add_argument("--json", action="store_true", help="progress as JSON lines")

    p = actions.add_parser("use", help="use a model from now on (the running app swaps live)")
    p.add_argument("choice", metavar="NAME|PATH|URL", help="catalog name, .gguf file, server URL")
    p.add_argument("--server-model", help="which of the server's models (when it has several)")
    p.add_argument("--json", action="store_true", help="one JSON object")

    p = actions.add_parser("rm", help="delete a downloaded model (not the one in use)")
    p.add_argument("name", help="a catalog name or a file in models/")
    p.add_argument("--json", action="store_true", help="one JSON object")

    p = actions.add_parser("servers", help="model servers on this machine and their models")
    p.add_argument("urls", nargs="*", metavar="URL", help="also ask these servers")
    p.add_argument("--json", action="store_true", help="one JSON object")

    p = actions.add_parser("token", help="keep your Hugging Face access token (gated models)")
    p.add_argument("--forget", action="store_true", help="remove it from the keyring")

    p = actions.add_parser("key", help="keep a model server's API key in the keyring")
    p.add_argument("url", help="the server's URL")
    p.add_argument("--forget", action="store_true", help="remove it from the keyring")


async def run_model_command(workspace: Workspace, args: argparse.Namespace) -> int:
    from engine.engine import Engine

    action = args.model_command
    engine = Engine.without_model(workspace)
    try:
        if action == "list":
            return cmd_list(engine, as_json=args.json)
        if action == "pull":
            return await cmd_pull(engine, args.name, as_json=args.json)
        if action == "use":
            return await cmd_use(engine, args.choice, args.server_model, as_json=args.json)
        if action == "rm":
            return cmd_rm(engine, args.name, as_json=args.json)
        if action == "servers":
            return await cmd_servers(engine, args.urls, as_json=args.json)
        if action == "token":
            engine.models.set_hub_token(None if args.forget else _secret("Hugging Face token"))
            print("Hugging Face token " + ("forgotten" if args.forget else "kept in the keyring"))
            return 0
        if action == "key":
            key = None if args.forget else _secret(f"API key for {args.url}")
            engine.models.set_server_key(args.url, key)
            print("API key " + ("forgotten" if args.forget else "kept in the keyring"))
            return 0
    finally:
        await engine.stop()
    raise TicError(f"unknown model action {action}")


def _secret(what: str) -> str:
    """Read a secret from the terminal without echo, or from a pipe."""
    value = getpass.getpass(f"{what}: ") if sys.stdin.isatty() else sys.stdin.readline()
    if not value.strip():
        raise InputError(f"no {what} given")
    return value.strip()


def _print_json(value: Any) -> None:
    print(json.dumps(value, ensure_ascii=False, default=str), flush=True)


# list -------------------------------------------------------------------------------------


def _choice_json(choice: CatalogChoice) -> dict[str, Any]:
    data = asdict(choice)
    data["status"] = choice.status
    return data


def cmd_list(engine: Engine, *, as_json: bool) -> int:
    from engine.modeltypes import human_bytes

    models = engine.models
    machine = models.machine()
    choices = models.choices(machine)
    known = {c.path for c in choices if c.path is not None}
    others = [m for m in models.installed() if m.path not in known]
    current = models.describe_current()
    if as_json:
        _print_json(
            {
                "machine": asdict(machine),
                "current": current,
                "models": [_choice_json(c) for c in choices],
                "other_files": [asdict(m) for m in others],
            }
        )
        return 0
    print(machine.describe())
    print(f"In use: {current}")
    print()
    rows = [("", "NAME", "MODEL", "SIZE", "MEMORY", "LICENCE", "STATUS")]
    for c in choices:
        mark = "*" if c.recommended else ("✓" if c.in_use else " ")
        size = human_bytes(c.size)
        rows.append((mark, c.name, c.title, size, f"{c.ram_gb:.1f} GB", c.licence, c.status))
    widths = [max(len(r[i]) for r in rows) for i in range(6)]
    for row in rows:
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:6])) + "  " + row[6])
    print()
    print("* recommended for this computer   ✓ in use")
    for other in others:
        used = " (in use)" if other.in_use else ""
        print(f"Also in {models.models_dir}: {other.path.name}, {human_bytes(other.size)}{used}")
    print(
        "Download one: tic-desktop model pull NAME; models you already run: "
        "tic-desktop model servers"
    )
    return 0


# pull -------------------------------------------------------------------------------------


class ProgressBar:
    """One line redrawn in place on a terminal; elsewhere a line at the end only."""

    def __init__(self, out: TextIO, *, tty: bool | None = None):
        self.out = out
        self.tty = out.isatty() if tty is None else tty
        self._drawn = False

    def update(self, state: DownloadState) -> None:
        if not self.tty or state.phase in ("finished", "failed", "cancelled"):
            return
        width = shutil.get_terminal_size((80, 20)).columns
        fraction = state.fraction or 0.0
        filled = int(BAR * fraction)
        line = f"[{'#' * filled}{'.' * (BAR - filled)}] {state.describe()}"
        self.out.write("\r\x1b[K" + line[: max(10, width - 1)])
        self.out.flush()
        self._drawn = True

    def close(self) -> None:
        if self._drawn:
            self.out.write("\r\x1b[K")
            self.out.flush()


async def cmd_pull(engine: Engine, name: str, *, as_json: bool) -> int:
    entry = engine.models.entry(name)

    def emit(state: DownloadState) -> None:
        _print_json(
            {
                "event": state.phase,
                "name": state.name,
                "done": state.done,
                "total": state.total,
                "rate": round(state.rate),
                "eta": None if state.eta is None else round(state.eta, 1),
            }
        )

    bar = ProgressBar(sys.stdout)
    try:
        path = await engine.models.download(entry.name, emit if as_json else bar.update)
    finally:
        bar.close()
    if as_json:
        _print_json({"event": "done", "name": entry.name, "path": str(path)})
    else:
        print(f"{entry.title} downloaded and verified: {path}")
        print(f"Use it: tic-desktop model use {entry.name}")
    return 0


# use, rm ----------------------------------------------------------------------------------


async def cmd_use(engine: Engine, choice: str, server_model: str | None, *, as_json: bool) -> int:
    workspace = engine.workspace
    if ipc.app_running(workspace):
        answer = ipc.request(
            workspace, {"cmd": "model-use", "choice": choice, "server_model": server_model}
        )
        if answer is None:
            raise TicError("the running app stopped answering")
        if not answer.get("ok"):
            raise TicError(str(answer.get("error")))
        message = f"TIC now uses {answer.get('model')} (in the running app)"
    else:  # saved for the next start; the model is not loaded here
        await engine.models.use(choice, server_model, load=False)
        message = f"TIC will use {engine.models.describe_current()} from its next start"
    if as_json:
        _print_json({"ok": True, "model": message})
    else:
        print(message)
    return 0


def cmd_rm(engine: Engine, name: str, *, as_json: bool) -> int:
    workspace = engine.workspace
    if ipc.app_running(workspace):
        answer = ipc.request(workspace, {"cmd": "model-remove", "name": name})
        if answer is None:
            raise TicError("the running app stopped answering")
        if not answer.get("ok"):
            raise TicError(str(answer.get("error")))
        deleted = [Path(p) for p in answer.get("deleted", [])]
    else:
        deleted = engine.models.remove(name)
    if as_json:
        _print_json({"ok": True, "deleted": [str(p) for p in deleted]})
    else:
        for path in deleted:
            print(f"deleted {path}")
    return 0


# servers ----------------------------------------------------------------------------------


async def cmd_servers(engine: Engine, urls: list[str], *, as_json: bool) -> int:
    try:
        servers = await engine.models.find_servers(urls)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    if as_json:
        _print_json({"servers": [asdict(s) for s in servers]})
        return 0
    if not servers:
        print(
            "No model server answers on this machine (Ollama 11434, LM Studio 1234, "
            "llama.cpp 8080). Give its URL: tic-desktop model servers http://HOST:PORT"
        )
        return 0
    for server in servers:
        print(f"{server.kind} at {server.url}" + (f": {server.error}" if server.error else ""))
        for model in server.models:
            print(f"  {model.id}" + (f" ({model.details})" if model.details else ""))
        if server.models:
            first = server.models[0].id
            print(f"  use one: tic-desktop model use {server.url} --server-model {first}")
    return 0
