"""Proves the plain install (``pip install -e .``, no extras) runs the app.

    python .ci/plain_install_check.py                  # import every module of engine/, desktop/,
                                                       # tic_cli/ and tic_desktop/
    python .ci/plain_install_check.py --block-extras   # the same with the extras made unimportable
    python .ci/plain_install_check.py --plain --tray   # CI: no extra installed, the commands
                                                       # there; then start the tray app under
                                                       # Xvfb until its icon is embedded, quit it

Run it with the Python of the install under test. Exit 0 when all is well; otherwise one line
per failure on stderr and exit 1. The tray check needs Xvfb, dbus-daemon, trayer and xdotool.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.abc
import importlib.util
import pkgutil
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "desktop", "tic_cli", "tic_desktop")
SCRIPTS = ("tic-desktop", "tic-desktop-gui", "tic")  # pyproject's entry points
APP_START_TIMEOUT = 120.0
QUIT_TIMEOUT = 60.0


class BlockModules(importlib.abc.MetaPathFinder):
    """Makes ``names`` (and their submodules) unimportable, as if not installed."""

    def __init__(self, names: Sequence[str]):
        self.names = frozenset(names)

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if fullname.partition(".")[0] in self.names:
            raise ModuleNotFoundError(f"No module named {fullname!r} (blocked)", name=fullname)
        return None


def extra_modules() -> list[str]:
    from engine.extras import EXTRA_MODULES

    return sorted(EXTRA_MODULES)


def all_modules() -> list[str]:
    """Every module of the packages, ``__main__`` modules left out (they run the program)."""
    names: list[str] = []
    for package_name in PACKAGES:
        package = importlib.import_module(package_name)
        names.append(package_name)
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{package_name}."):
            if info.name.rpartition(".")[2] != "__main__":
                names.append(info.name)
    return names


def import_all() -> list[str]:
    """Import each module; the failures, one line each."""
    from engine.extras import EXTRA_ONLY_MODULES, missing

    failures = []
    for name in all_modules():
        extra = EXTRA_ONLY_MODULES.get(name)
        if extra is not None and missing(extra):
            continue  # imported only after engine.extras.require(extra) said it is there
        try:
            importlib.import_module(name)
        except Exception as exc:
            failures.append(f"{name}: {type(exc).__name__}: {exc}{_where(exc)}")
    return failures


def _where(exc: BaseException) -> str:
    """The project line that raised (or imported what raised), e.g. `` (desktop/x.py:9)``."""
    frames = [
        frame
        for frame in traceback.extract_tb(exc.__traceback__)
        if Path(frame.filename).resolve().is_relative_to(ROOT)
        and Path(frame.filename).resolve() != Path(__file__).resolve()
    ]
    if not frames:
        return ""
    path = Path(frames[-1].filename).resolve().relative_to(ROOT)
    return f" ({path}:{frames[-1].lineno})"


def installed_extras() -> list[str]:
    return [name for name in extra_modules() if importlib.util.find_spec(name) is not None]


def app_command() -> list[str]:
    """The installed console script next to this Python (it proves the entry point too)."""
    script = Path(sys.executable).parent / "tic-desktop"
    return [str(script)] if script.exists() else [sys.executable, "-m", "tic_desktop"]


def check_tray() -> list[str]:
    """Start the tray app in an isolated session; it must embed its icon and quit cleanly."""
    sys.path.insert(0, str(ROOT))  # for the session helper the desktop tests use
    import engine.ipc.client as ipc
    from engine.workspace import Workspace
    from tests.desktop.session import isolated_session

    missing = [t for t in ("Xvfb", "dbus-daemon", "trayer", "xdotool") if not shutil.which(t)]
    if missing:
        return [f"tray check: not installed: {', '.join(missing)}"]
    with tempfile.TemporaryDirectory(prefix="tic-plain-") as tmp, isolated_session() as session:
        session.start_trayer()
        home = Path(tmp) / "home"
        env = dict(session.env, TIC_HOME=str(home), QT_QPA_PLATFORM="xcb")
        log_path = Path(tmp) / "app.out"
        with log_path.open("wb") as log:
            app = subprocess.Popen(
                app_command(), env=env, cwd=tmp, stdout=log, stderr=subprocess.STDOUT
            )
        try:
            problem = _wait_for_tray(app, Workspace(home))
            if problem is None:
                answer = ipc.request(Workspace(home), {"cmd": "quit"}, timeout=30)
                if not (answer and answer.get("ok")):
                    problem = f"quit was refused: {answer}"
                elif (code := app.wait(timeout=QUIT_TIMEOUT)) != 0:
                    problem = f"the app exited with {code} after quit"
        except subprocess.TimeoutExpired:
            problem = f"the app did not exit within {QUIT_TIMEOUT:.0f}s of quit"
        finally:
            if app.poll() is None:
                app.kill()
                app.wait()
        if problem is not None:
            output = log_path.read_text(errors="replace").strip()
            return [
                f"tray check: {problem}" + (f"\n--- app output ---\n{output}" if output else "")
            ]
    print("tray check: the icon was embedded in the tray and the app quit cleanly")
    return []


def _wait_for_tray(app: subprocess.Popen[bytes], workspace: Any) -> str | None:
    """None once the app says its tray icon is visible with a size; else what went wrong."""
    import engine.ipc.client as ipc

    deadline = time.monotonic() + APP_START_TIMEOUT
    status: dict[str, Any] | None = None
    while time.monotonic() < deadline:
        if app.poll() is not None:
            return f"the app exited with {app.returncode} before its tray icon was embedded"
        try:
            status = ipc.request(workspace, {"cmd": "status"}, timeout=10)
        except OSError:
            status = None
        if status and status.get("tray_visible"):
            _, _, width, height = status.get("tray_geometry") or (0, 0, 0, 0)
            if width > 0 and height > 0:
                return None
        time.sleep(0.2)
    return f"no embedded tray icon within {APP_START_TIMEOUT:.0f}s (last status: {status})"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--block-extras", action="store_true", help="make the extras' packages unimportable"
    )
    parser.add_argument("--plain", action="store_true", help="fail if any extra is installed")
    parser.add_argument("--tray", action="store_true", help="also start the tray app")
    args = parser.parse_args(argv)
    failures: list[str] = []
    if args.block_extras:
        sys.meta_path.insert(0, BlockModules(extra_modules()))
    if args.plain and (present := installed_extras()):
        failures.append(f"not a plain install: {', '.join(present)} installed")
    if args.plain:
        bin_dir = Path(sys.executable).parent
        failures += [f"no {s} command in {bin_dir}" for s in SCRIPTS if not (bin_dir / s).exists()]
    failures += import_all()
    if not failures:
        print(f"imported {len(all_modules())} modules of {', '.join(PACKAGES)}")
    if args.tray and not failures:
        failures += check_tray()
    for line in failures:
        print(line, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
