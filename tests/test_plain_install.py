"""The plain install (``pip install -e .``, no extras) runs everything but the extras' features:
every import of an extra's package is lazy, every other third-party import is a declared
dependency, and a feature used without its extra says in one line which extra to install."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

from engine.extras import (
    EXTRA_MODULES,
    EXTRA_ONLY_MODULES,
    ExtraMissing,
    import_extra,
    install_hint,
)
from engine.sources.base import SourceError
from tests.cli_helpers import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
WHATSAPP_HINT = "WhatsApp live needs: pip install -e '.[whatsapp]'"


def this_checkout() -> dict[str, str]:
    """The environment for a child Python that imports this checkout's code."""
    return dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
    )


def dist_name(requirement: str) -> str:
    """The normalised distribution name of a requirement string (PEP 503)."""
    name = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert name is not None, requirement
    return re.sub(r"[-_.]+", "-", name.group(0)).lower()


def imports(path: Path) -> Iterator[tuple[str, bool]]:
    """(top-level module, imported when the module is) for each absolute import in ``path``."""
    for module, eager in imports_of_project(path):
        yield module.partition(".")[0], eager


def imports_of_project(path: Path) -> Iterator[tuple[str, bool]]:
    """(module, imported when the module is) for each absolute import in ``path``."""

    def walk(node: ast.AST, eager: bool) -> Iterator[tuple[str, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield alias.name, eager
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                yield child.module, eager
            elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            else:
                lazy = isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
                yield from walk(child, eager and not lazy)

    yield from walk(ast.parse(path.read_text(encoding="utf-8")), True)


def _module_name(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".").removesuffix(".__init__")


def test_extra_only_modules_are_imported_lazily() -> None:
    """The modules that import an extra at module level are themselves imported only inside
    functions (after ``engine.extras.require``)."""
    eager = [
        f"{path}: {module}"
        for package in ("engine", "desktop", "tic_cli", "tic_desktop")
        for path in sorted((ROOT / package).rglob("*.py"))
        for module, is_eager in imports_of_project(path)
        if is_eager
        and module in EXTRA_ONLY_MODULES
        and _module_name(str(path.relative_to(ROOT))) not in EXTRA_ONLY_MODULES
    ]
    assert eager == []


def third_party_imports() -> list[tuple[str, str, bool]]:
    """(file, module, eager) for every import of neither the stdlib nor the project."""
    own = {"engine", "desktop", "tic_cli", "tic_desktop", "__future__"}
    found = []
    for package in ("engine", "desktop", "tic_cli", "tic_desktop"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for module, eager in imports(path):
                if module not in sys.stdlib_module_names and module not in own:
                    found.append((str(path.relative_to(ROOT)), module, eager))
    return found


def test_every_third_party_import_is_a_dependency_or_a_lazy_extra() -> None:
    dependencies = {dist_name(r) for r in PYPROJECT["dependencies"]}
    extras = {
        extra: {dist_name(r) for r in reqs}
        for extra, reqs in PYPROJECT["optional-dependencies"].items()
    }
    owners = packages_distributions()
    problems = []
    for path, module, eager in third_party_imports():
        dists = {dist_name(d) for d in owners.get(module, [module])}
        if module in EXTRA_MODULES:
            extra = EXTRA_MODULES[module][0]
            if eager and _module_name(path) not in EXTRA_ONLY_MODULES:
                problems.append(f"{path}: {module} (extra {extra}) is imported at module level")
            if not dists & extras.get(extra, set()):
                problems.append(f"{path}: {module} is not in the {extra} extra")
        elif not dists & dependencies:
            problems.append(f"{path}: {module} ({', '.join(sorted(dists))}) is no dependency")
    assert problems == []


def test_extras_modules_name_real_extras() -> None:
    for module, (extra, _feature) in EXTRA_MODULES.items():
        assert extra in PYPROJECT["optional-dependencies"], module
        assert module not in {dist_name(r) for r in PYPROJECT["dependencies"]}


def test_every_module_imports_with_the_extras_unimportable() -> None:
    """In a fresh interpreter whose import system refuses the extras' packages."""
    check = ROOT / ".ci" / "plain_install_check.py"
    out = subprocess.run(
        [sys.executable, str(check), "--block-extras"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=this_checkout(),
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    packages = "engine, desktop, tic_cli, tic_desktop"
    assert re.fullmatch(rf"imported \d+ modules of {packages}", out.stdout.strip())


def test_the_block_really_blocks() -> None:
    """The check above would prove nothing if blocked packages could still be imported."""
    code = (
        "import sys; sys.path.insert(0, '.ci'); import plain_install_check as c; "
        "sys.meta_path.insert(0, c.BlockModules(['segno'])); import segno"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=this_checkout(),
        timeout=60,
    )
    assert out.returncode == 1
    assert "ModuleNotFoundError: No module named 'segno' (blocked)" in out.stderr


def test_a_missing_extra_is_one_line_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "segno", None)  # None in sys.modules: "not installed"
    with pytest.raises(ExtraMissing) as info:
        import_extra("segno")
    assert str(info.value) == WHATSAPP_HINT == install_hint("segno")


def test_a_broken_extra_is_not_reported_as_missing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Installed but missing a dependency of its own: the real error, not the hint."""
    (tmp_path / "tic_fake_extra.py").write_text("import tic_no_such_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(EXTRA_MODULES, "tic_fake_extra", ("whatsapp", "WhatsApp live"))
    with pytest.raises(ModuleNotFoundError, match="tic_no_such_dependency"):
        import_extra("tic_fake_extra")


def test_whatsapp_live_without_the_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from engine.sources.whatsapp.live import load_neonize

    monkeypatch.setitem(sys.modules, "neonize", None)
    with pytest.raises(SourceError) as info:
        load_neonize()
    assert str(info.value) == WHATSAPP_HINT


def test_a_qr_code_without_the_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from desktop.widgets.qr import qr_image

    monkeypatch.setitem(sys.modules, "segno", None)
    with pytest.raises(ExtraMissing, match=re.escape(WHATSAPP_HINT)):
        qr_image("2@pairing-code")
