"""Settings → Rules on a sample workspace, saved as a PNG: run under a real display by
tests/desktop/test_rules_page.py (it makes the README's docs/rules-page.png).

    python -m tests.desktop.rules_page_shot HOME OUT.png

The family rules of the triage dev set decide its 13 family events in a tick; then two lines
are typed in the editor (one TIC cannot read, one that silences Rita), and the page shows how
each line is read and what the edited rules would have done with those events."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_API", "pyside6")

from tests.cli_helpers import TRIAGE_DEV

NOW = datetime.fromisoformat("2026-11-10T08:00:00+00:00")
TYPED = ("- WhatsApp messages from Rita\n", "- Correos de la tintorería\n")
SIZE = (1000, 760)


def family_events() -> list[dict[str, Any]]:
    cases = [json.loads(line) for line in (TRIAGE_DEV / "cases.jsonl").read_text().splitlines()]
    return [case["event"] for case in cases if case["rules"] == "family"]


def edited(rules: str) -> str:
    """The family rules with a Never line and a line read only in part typed into the Never
    section."""
    head, never, tail = rules.partition("## Never notify\n")
    body, custom, rest = tail.partition("\n## Custom rules")
    return f"{head}{never}{body.rstrip(chr(10))}\n{TYPED[0]}{TYPED[1]}{custom}{rest}"


async def shoot(home: Path, out: Path) -> bool:
    from desktop.qt import QtCore, QtWidgets
    from desktop.settings.dialog import SettingsDialog
    from desktop.settings.rules_page import RulesPage
    from engine.engine import Engine
    from engine.events import parse_event
    from engine.llm.scripted import ScriptedModel
    from engine.settings import Settings
    from engine.workspace import Workspace

    workspace = Workspace.open(home)
    rules = (TRIAGE_DEV / "rules-family.md").read_text(encoding="utf-8")
    workspace.rules_file.write_text(rules, encoding="utf-8")
    engine = Engine(workspace, Settings(), ScriptedModel(capability="tiny"), clock=lambda: NOW)
    try:
        engine.ingest([parse_event(e) for e in family_events()])
        await engine.tic.tick()  # decided as TIC did; nothing is delivered (no hub runs)

        def spawn(coro: Any, name: str) -> asyncio.Task[Any]:
            return asyncio.get_running_loop().create_task(coro, name=name)

        page = RulesPage(engine, spawn)
        dialog = SettingsDialog(Settings(), rules_page=page, rules_file=workspace.rules_file)
        dialog.tabs.setCurrentWidget(page)
        dialog.resize(*SIZE)
        dialog.show()
        page.editor.setPlainText(edited(rules))
        line = page.text().splitlines().index(TYPED[1].strip()) + 1
        page.editor.go_to_line(line)
        page.refresh_understanding()
        await page.refresh_preview()
        for _ in range(20):  # let the layout and the paint settle
            QtWidgets.QApplication.processEvents()
            await asyncio.sleep(0.05)
        QtCore.QCoreApplication.processEvents()
        ok = dialog.grab().save(str(out))
        dialog.close()
        return bool(ok)
    finally:
        await engine.stop()


def main(argv: list[str]) -> int:
    import qasync

    from desktop.qt import QtWidgets

    home, out = Path(argv[0]), Path(argv[1])
    qapp = QtWidgets.QApplication.instance() or QtWidgets.QApplication(["tic-rules-shot"])
    loop = qasync.QEventLoop(qapp)
    asyncio.set_event_loop(loop)
    with loop:
        ok = loop.run_until_complete(shoot(home, out))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
