"""The chat window on a sample workspace, saved as PNGs: run under a real display by
tests/desktop/test_chat_shots.py (it makes the README's docs/digest.png).

    python -m tests.desktop.chat_shot HOME OUT_DIR

``welcome.png``: the first run on the built-in model, with the bigger model this (made-up)
laptop is best served by on offer. ``digest.png``: a day of mixed mail and messages decided
by a real tick, then "What did I miss today?" and the same in Spanish, answered in code.
``rules-es.png``: rules changed by talking, in Spanish: a line added, and a line taken out
after the user's yes, each answered in Spanish."""

from __future__ import annotations

import asyncio
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_API", "pyside6")
os.environ.setdefault("TZ", "UTC")

NOW = datetime.fromisoformat("2026-11-10T16:00:00+00:00")
SIZE = (560, 820)
QUESTIONS = ("What did I miss today?", "¿Qué me perdí hoy?")
SPANISH_RULES = '# Notificaciones\n\n## Nunca avisar\n- Instagram\n- Grupo "Excompis 2009"\n'
SPANISH_REQUESTS = (
    "no me avises más de LinkedIn, porfa",
    "Ya puedes quitarle el silencio al grupo Excompis 2009, que organizamos la cena",
    "sí",
)


async def _settle(widget: Any) -> None:
    from desktop.qt import QtWidgets

    for _ in range(20):  # let the layout and the paint settle
        QtWidgets.QApplication.processEvents()
        await asyncio.sleep(0.05)
    widget.repaint()


async def shoot(home: Path, out: Path) -> bool:
    from desktop.chat.window import ChatWindow
    from engine.engine import Engine
    from engine.events import parse_event
    from engine.llm.scripted import ScriptedModel
    from engine.modeltypes import GB, MachineInfo, describe_capability, model_label
    from engine.settings import Settings
    from engine.store.models import ChatMessage
    from engine.workspace import Workspace
    from tests.chat.test_digest import day_of_events

    workspace = Workspace.open(home)
    model = ScriptedModel(capability="tiny")
    model.name = "SmolLM2-135M-Instruct.Q4_1"
    engine = Engine(workspace, Settings(), model, clock=lambda: NOW)
    laptop = MachineInfo(memory_total=8 * GB, memory_available=4 * GB, cores=2, disk_free=50 * GB)
    engine.models.machine_probe = lambda: laptop
    saved = []
    try:
        label = model_label(model.name, "tiny")
        first = ChatWindow()
        first.set_model(label, describe_capability("tiny"), show_timing=False)
        first.welcome.set_model(tiny=True, offer=engine.models.offer())
        first.pin_welcome()
        first.resize(*SIZE)
        first.show()
        await _settle(first)
        saved.append(first.grab().save(str(out / "welcome.png")))
        first.close()

        engine.ingest([parse_event(e) for e in day_of_events()])
        await engine.tic.tick()  # decided as TIC does; the digest needs no delivery
        for question in QUESTIONS:
            await engine.send(question)
        ChatMessage.update(created_at=NOW).execute()  # the sample's clock, as in the answers
        window = ChatWindow()
        window.set_model(label, describe_capability("tiny"), show_timing=False)
        window.load_history(engine.history(50))
        window.resize(*SIZE)
        window.show()
        await _settle(window)
        saved.append(window.grab().save(str(out / "digest.png")))
        window.close()

        workspace.rules_file.write_text(SPANISH_RULES, encoding="utf-8")
        for request in SPANISH_REQUESTS:
            await engine.send(request)
        ChatMessage.update(created_at=NOW).execute()
        rules = ChatWindow()
        rules.set_model(label, describe_capability("tiny"), show_timing=False)
        rules.load_history(engine.history(2 * len(SPANISH_REQUESTS) + 2))  # with its two tool calls
        rules.resize(*SIZE)
        rules.show()
        await _settle(rules)
        saved.append(rules.grab().save(str(out / "rules-es.png")))
        rules.close()
    finally:
        await engine.stop()
    return all(saved)


def main(argv: list[str]) -> int:
    import qasync

    from desktop.qt import QtWidgets

    home, out = Path(argv[0]), Path(argv[1])
    out.mkdir(parents=True, exist_ok=True)
    qapp = QtWidgets.QApplication.instance() or QtWidgets.QApplication(["tic-chat-shot"])
    qapp.setQuitOnLastWindowClosed(False)  # one window closes before the next opens
    loop = qasync.QEventLoop(qapp)
    asyncio.set_event_loop(loop)
    with loop:
        ok = loop.run_until_complete(shoot(home, out))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
