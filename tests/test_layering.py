"""The layers: the engine never imports Qt (statically, and at run time) nor a front end; the
front ends (the desktop app, the command line) use the engine only through its façade, its bus
messages, plain data and the client side of the workspace's channel, and neither imports the
other; the engine's top level stays small."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QT = ("PySide6", "PyQt5", "PyQt6", "PySide2", "qasync", "shiboken6", "shiboken2")
FRONT_ENDS = ("desktop", "tic_cli")
ABOVE_THE_ENGINE = ("desktop", "tic_cli", "tic_desktop")
MAX_ENGINE_TOP_LEVEL = 14  # .py files directly in engine/, __init__ included
# What a front end (desktop/, tic_cli/) may import from engine/: the façade, its bus messages,
# plain data, a few generic helpers, and the client side of the single instance.
FRONT_END_MAY_IMPORT = frozenset(
    {
        "engine.engine",  # the Engine façade, and the plain data its methods use (__all__)
        "engine.triage.standalone",  # TIC's decisions on files, no engine (triage, eval)
        "engine.bus",  # the typed messages it publishes
        "engine.errors",
        "engine.settings",
        "engine.workspace",
        "engine.events",  # the canonical event (what ``ingest`` takes) and JSON Lines reading
        "engine.types",  # the façade's own plain data types
        "engine.modeltypes",  # plain data about models (catalog choices, capability, downloads)
        "engine.tasks",  # generic asyncio helpers (named tasks, one-line errors)
        "engine.clock",  # pure time helpers (quiet-hours windows)
        "engine.extras",  # which optional extra a feature needs
        "engine.logs.setup",  # the workspace log file, and the terminal's lines
        "engine.workspace.atomic",  # atomic writes of the user's files
        # the single instance's client side: take the workspace, or hand the work (or a
        # terminal chat) to the process that holds it
        "engine.ipc.lock",
        "engine.ipc.client",
        "engine.ipc.handover",
        "engine.ipc.attach",
    }
)
IMPORTERS = ("import_module", "__import__")


def _modules(path: Path) -> set[str]:
    """Every import in ``path``, at any level (function bodies too): ``a.b`` for
    ``import a.b`` and for string arguments of ``importlib.import_module`` / ``__import__``,
    ``a:b`` for ``from a import b`` (b may be a module or a name in a)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.update(f"{node.module}:{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if called in IMPORTERS and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    names.add(first.value)
    return names


def _top(names: set[str]) -> set[str]:
    return {name.split(".")[0].split(":")[0] for name in names}


def _engine_imports(path: Path) -> list[str]:
    """The engine imports in ``path`` that a front end may not use."""
    bad = set()
    for name in _modules(path):
        module, _, member = name.partition(":")
        if module != "engine" and not module.startswith("engine."):
            continue
        if module in FRONT_END_MAY_IMPORT or f"{module}.{member}" in FRONT_END_MAY_IMPORT:
            continue
        bad.add(name)
    return sorted(bad)


def test_no_engine_module_imports_qt():
    offenders = {
        str(p.relative_to(ROOT)): sorted(_top(_modules(p)) & set(QT))
        for p in (ROOT / "engine").rglob("*.py")
        if _top(_modules(p)) & set(QT)
    }
    assert offenders == {}


def test_no_engine_module_imports_a_front_end_or_the_launcher():
    offenders = {
        str(p.relative_to(ROOT)): sorted(_top(_modules(p)) & set(ABOVE_THE_ENGINE))
        for p in (ROOT / "engine").rglob("*.py")
        if _top(_modules(p)) & set(ABOVE_THE_ENGINE)
    }
    assert offenders == {}


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_a_front_end_uses_only_the_facade_its_messages_and_plain_data(front_end):
    offenders = {
        str(p.relative_to(ROOT)): _engine_imports(p)
        for p in (ROOT / front_end).rglob("*.py")
        if _engine_imports(p)
    }
    assert offenders == {}


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_a_front_end_imports_neither_the_other_nor_the_launcher(front_end):
    others = set(ABOVE_THE_ENGINE) - {front_end}
    offenders = {
        str(p.relative_to(ROOT)): sorted(_top(_modules(p)) & others)
        for p in (ROOT / front_end).rglob("*.py")
        if _top(_modules(p)) & others
    }
    assert offenders == {}


def test_the_command_line_imports_no_qt():
    offenders = {
        str(p.relative_to(ROOT)): sorted(_top(_modules(p)) & set(QT))
        for p in (ROOT / "tic_cli").rglob("*.py")
        if _top(_modules(p)) & set(QT)
    }
    assert offenders == {}


def test_the_engine_top_level_stays_small():
    """Its top level holds the façade and the plain data and helpers everything shares; the
    rest lives in sub-packages with one job each."""
    top_level = sorted(p.name for p in (ROOT / "engine").glob("*.py"))
    assert len(top_level) <= MAX_ENGINE_TOP_LEVEL, top_level


def test_the_facade_has_no_static_pass_throughs():
    """What needs no running engine is the subsystem's own function, named by the façade
    module (its ``__all__``) or reached through the channel's client side, not a static
    method on ``Engine`` that only forwards the call."""
    from engine.engine import Engine

    static = [name for name, value in vars(Engine).items() if isinstance(value, staticmethod)]
    assert static == []


def test_the_facade_names_what_it_exports():
    import engine.engine as facade

    missing = [name for name in facade.__all__ if not hasattr(facade, name)]
    assert missing == []


def test_the_front_end_import_check_sees_function_level_and_string_imports(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import importlib\n"
        "from engine.bus import ReplyFinished\n"
        "from engine import types\n"
        "import engine.engine\n"
        "def f():\n"
        "    import engine.sources.google.auth as auth\n"
        "    from engine.chat import history\n"
        "    importlib.import_module('engine.triage.runner')\n"
    )
    assert _engine_imports(sample) == [
        "engine.chat:history",
        "engine.sources.google.auth",
        "engine.triage.runner",
    ]


def test_importing_the_whole_engine_loads_no_qt():
    code = (
        "import importlib, pkgutil, sys, engine\n"
        "for m in pkgutil.walk_packages(engine.__path__, 'engine.'):\n"
        "    importlib.import_module(m.name)\n"
        f"print(sorted(n for n in sys.modules if n.split('.')[0] in {QT!r}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert out.stdout.strip() == "[]"
