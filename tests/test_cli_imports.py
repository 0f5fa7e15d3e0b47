"""What the command line loads before it knows what it will do: ``--help`` and ``import
tic_cli.cli`` load no engine façade, store, keyring, schema validator, model runtime nor Qt, and
``triage`` (which touches no store) loads none of them either. Each command imports what it
runs when it runs; a module-level import of one of these would make every command slower."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.cli_helpers import ROOT, write_jsonl
from tests.factories import event_dict

# The engine façade pulls in the agent, the store and the sources.
HEAVY = ("engine.engine", "peewee", "keyring", "jsonschema", "llama_cpp", "googleapiclient")
QT = ("PySide6", "qasync")


def loaded_after(code: str, *, home: Path) -> list[str]:
    """Which of HEAVY, QT and pydantic a fresh Python has loaded after running ``code``."""
    watched = (*HEAVY, *QT, "pydantic")
    probe = (
        f"{code}\nimport json, sys\n"
        f"print(json.dumps(sorted(m for m in {watched!r} if m in sys.modules)))\n"
    )
    env = dict(os.environ, TIC_HOME=str(home), TIC_ALLOW_MODEL_REQUESTS="0", PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    loaded: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


def test_importing_the_command_line_loads_nothing_heavy(tmp_path: Path) -> None:
    assert loaded_after("import tic_cli.cli", home=tmp_path) == []
    assert loaded_after("import tic_desktop.launcher", home=tmp_path) == []


def test_help_loads_nothing_heavy(tmp_path: Path) -> None:
    code = (
        "import contextlib, io\n"
        "from tic_desktop.launcher import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['--help'])\n"
    )
    assert loaded_after(code, home=tmp_path) == []


def test_triage_loads_no_store_keyring_schema_model_runtime_nor_qt(tmp_path: Path) -> None:
    rules = tmp_path / "rules.md"
    rules.write_text("## Always notify\n- Emails from Anna Berg\n", encoding="utf-8")
    events = write_jsonl(tmp_path / "e.jsonl", [event_dict()])
    argv = ["triage", "--rules", str(rules), "--events", str(events)]
    code = (
        "import contextlib, io\n"
        "from tic_cli.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main({argv!r}) == 0\n"
    )
    assert loaded_after(code, home=tmp_path / "none") == ["pydantic"]  # its events are models
