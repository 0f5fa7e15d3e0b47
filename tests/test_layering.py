"""The engine never imports Qt: statically, and at run time."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QT = ("PySide6", "PyQt5", "PyQt6", "PySide2", "qasync", "shiboken6", "shiboken2")


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_no_engine_module_imports_qt():
    offenders = {
        str(p.relative_to(ROOT)): sorted(_imports(p) & set(QT))
        for p in (ROOT / "engine").rglob("*.py")
        if _imports(p) & set(QT)
    }
    assert offenders == {}


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
