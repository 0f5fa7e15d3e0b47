"""The layers: the engine never imports Qt (statically, and at run time) nor the desktop; the
desktop uses the engine only through its façade, its bus messages and plain data."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QT = ("PySide6", "PyQt5", "PyQt6", "PySide2", "qasync", "shiboken6", "shiboken2")
# What desktop/ may import from engine/: the façade, its bus messages, plain data.
DESKTOP_MAY_IMPORT = frozenset(
    {
        "engine.engine",  # the Engine façade
        "engine.bus",  # the typed messages it publishes
        "engine.errors",
        "engine.settings",
        "engine.workspace",
        "engine.types",  # the façade's plain data types and fixed wording
        "engine.modeltypes",  # plain data about models (catalog choices, servers, downloads)
        "engine.tasks",  # generic asyncio helpers (named tasks, one-line errors)
        "engine.clock",  # pure time helpers (quiet-hours windows)
        "engine.extras",  # which optional extra a feature needs
        "engine.logsetup",  # the workspace log file
        "engine.fsutil",  # atomic writes of the user's files
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
    """The engine imports in ``path`` that the desktop may not use."""
    bad = set()
    for name in _modules(path):
        module, _, member = name.partition(":")
        if module != "engine" and not module.startswith("engine."):
            continue
        if module in DESKTOP_MAY_IMPORT or f"{module}.{member}" in DESKTOP_MAY_IMPORT:
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


def test_no_engine_module_imports_the_desktop_or_the_launcher():
    offenders = {
        str(p.relative_to(ROOT)): sorted(_top(_modules(p)) & {"desktop", "tic_desktop"})
        for p in (ROOT / "engine").rglob("*.py")
        if _top(_modules(p)) & {"desktop", "tic_desktop"}
    }
    assert offenders == {}


def test_the_desktop_uses_only_the_facade_its_messages_and_plain_data():
    offenders = {
        str(p.relative_to(ROOT)): _engine_imports(p)
        for p in (ROOT / "desktop").rglob("*.py")
        if _engine_imports(p)
    }
    assert offenders == {}


def test_the_desktop_import_check_sees_function_level_and_string_imports(tmp_path):
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
        "    if m.name != 'engine.__main__':\n"
        "        importlib.import_module(m.name)\n"
        f"print(sorted(n for n in sys.modules if n.split('.')[0] in {QT!r}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert out.stdout.strip() == "[]"
