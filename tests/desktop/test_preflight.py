"""Where Qt cannot start (no display, missing xcb libraries, no X server), the app says why
and how to fix it in one line and exits with 2, before Qt could abort; the terminal commands
keep working."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from desktop.system import preflight
from tests.cli_helpers import ROOT

QT_DIR = preflight.pyside_qt_dir()
LDD_CURSOR_MISSING = """\
/site-packages/PySide6/Qt/plugins/platforms/libqxcb.so:
\tlinux-vdso.so.1 (0x00007ffd)
\tlibQt6XcbQpa.so.6 => /site-packages/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007f1)
\tlibxcb-cursor.so.0 => not found
\tlibxcb-icccm.so.4 => /lib/x86_64-linux-gnu/libxcb-icccm.so.4 (0x00007f2)
\tlibxcb-cursor.so.0 => not found
/site-packages/PySide6/Qt/lib/libQt6Widgets.so.6:
\tlibQt6Gui.so.6 => /site-packages/PySide6/Qt/lib/libQt6Gui.so.6 (0x00007f3)
"""


def fake_ldd(output: str | None):
    seen: list[list[Path]] = []

    def ldd(paths: Sequence[Path]) -> str | None:
        seen.append(list(paths))
        return output

    ldd.seen = seen  # type: ignore[attr-defined]
    return ldd


@pytest.fixture
def qt_dir(tmp_path: Path) -> Path:
    """A PySide6-like Qt folder holding the two files the check hands to ldd."""
    root = tmp_path / "Qt"
    for relative in ("plugins/platforms/libqxcb.so", "lib/libQt6Widgets.so.6"):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_bytes(b"\x7fELF")
    return root


@pytest.fixture
def x_server(monkeypatch) -> None:
    monkeypatch.setattr(preflight, "x_display_reachable", lambda display: True)


def test_no_display_names_the_cause_and_the_way_out():
    problem = preflight.startup_problem({}, platform="linux")
    assert problem is not None and "\n" not in problem
    assert "no display" in problem and "DISPLAY" in problem and "WAYLAND_DISPLAY" in problem
    assert "terminal commands" in problem


@pytest.mark.parametrize(
    "env",
    [
        {"QT_QPA_PLATFORM": "offscreen"},
        {"WAYLAND_DISPLAY": "wayland-0"},
        {"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"},
        {"DISPLAY": ":0", "QT_QPA_PLATFORM": "wayland"},
    ],
)
def test_platforms_other_than_xcb_are_left_to_qt(env, qt_dir):
    ldd = fake_ldd(LDD_CURSOR_MISSING)
    assert preflight.startup_problem(env, ldd=ldd, qt_dir=qt_dir, platform="linux") is None
    assert ldd.seen == []


def test_a_missing_xcb_library_names_it_and_the_packages(qt_dir, x_server):
    ldd = fake_ldd(LDD_CURSOR_MISSING)
    problem = preflight.startup_problem({"DISPLAY": ":0"}, ldd=ldd, qt_dir=qt_dir, platform="linux")
    assert problem == (
        "Qt's xcb platform needs libxcb-cursor.so.0 — install it: "
        "sudo apt-get install libxcb-cursor0 (Fedora: xcb-util-cursor; Arch: xcb-util-cursor)"
    )
    assert ldd.seen == [
        [qt_dir / "plugins/platforms/libqxcb.so", qt_dir / "lib/libQt6Widgets.so.6"]
    ]


def test_qt_qpa_platform_xcb_is_checked_too(qt_dir, x_server):
    env = {"DISPLAY": ":0", "QT_QPA_PLATFORM": "xcb"}
    ldd = fake_ldd(LDD_CURSOR_MISSING)
    problem = preflight.startup_problem(env, ldd=ldd, qt_dir=qt_dir, platform="linux")
    assert problem is not None and "libxcb-cursor0" in problem
    no_display = preflight.startup_problem(
        {"QT_QPA_PLATFORM": "xcb"}, ldd=ldd, qt_dir=qt_dir, platform="linux"
    )
    assert no_display is not None and "DISPLAY is not set" in no_display


def test_several_missing_libraries_and_an_unknown_one():
    line = preflight.install_hint(["libxcb-cursor.so.0", "libxkbcommon-x11.so.0", "libodd.so.3"])
    assert "install them: sudo apt-get install libxcb-cursor0 libxkbcommon-x11-0" in line
    assert "(Fedora: xcb-util-cursor libxkbcommon-x11; Arch: xcb-util-cursor" in line
    assert "the package that provides libodd.so.3" in line
    assert "\n" not in line


def test_packages_are_not_repeated():
    line = preflight.install_hint(["libxcb-shape.so.0", "libxcb-randr.so.0"])
    assert "(Fedora: libxcb; Arch: libxcb)" in line


def test_musl_ldd_output_is_understood(qt_dir):
    output = "Error loading shared library libxcb-cursor.so.0: No such file or directory"
    paths = preflight.qt_libraries(qt_dir)
    assert preflight.missing_libraries(paths, fake_ldd(output)) == ["libxcb-cursor.so.0"]


def test_without_ldd_the_check_steps_aside(qt_dir, x_server, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert preflight.run_ldd(preflight.qt_libraries(qt_dir)) is None
    assert preflight.startup_problem({"DISPLAY": ":0"}, qt_dir=qt_dir, platform="linux") is None


def test_ldd_that_cannot_run_counts_as_no_answer(qt_dir, monkeypatch):
    def broken(*args, **kwargs):
        raise OSError("exec format error")

    monkeypatch.setattr(subprocess, "run", broken)
    assert preflight.run_ldd(preflight.qt_libraries(qt_dir)) is None


@pytest.mark.skipif(QT_DIR is None or not shutil.which("ldd"), reason="needs PySide6 and ldd")
def test_real_ldd_reads_pysides_xcb_plugin():
    assert QT_DIR is not None
    paths = preflight.qt_libraries(QT_DIR)
    assert [p.name for p in paths] == ["libqxcb.so", "libQt6Widgets.so.6"]
    output = preflight.run_ldd(paths)
    assert output is not None and "libQt6Gui.so.6" in output


def test_an_x_display_nobody_answers_on(qt_dir):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        assert port > 6000  # ephemeral ports are
        assert preflight.x_display_reachable(f"127.0.0.1:{port - 6000}")
    assert not preflight.x_display_reachable(f"127.0.0.1:{port - 6000}.0")
    problem = preflight.startup_problem(
        {"DISPLAY": f"127.0.0.1:{port - 6000}"}, ldd=fake_ldd(""), qt_dir=qt_dir, platform="linux"
    )
    assert problem is not None and "no X server answers on DISPLAY=127.0.0.1:" in problem
    assert preflight.x_display_reachable("some/odd/launchd:0")  # unknown forms: Qt decides


def test_other_systems_are_not_checked():
    assert preflight.startup_problem({}, platform="darwin") is None
    assert preflight.startup_problem({}, platform="win32") is None


# --- the real command ----------------------------------------------------------------


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tic_desktop", *args],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def headless_env(tmp_path: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    env.update(TIC_HOME=str(tmp_path / "home"), TIC_ALLOW_MODEL_REQUESTS="0")
    return env


def test_the_app_without_a_display_exits_2_with_one_line(headless_env, tmp_path):
    done = run([], headless_env)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("tic-desktop: cannot start the desktop app: no display")

    events = tmp_path / "events.jsonl"
    events.write_text("")
    assert run(["ingest", str(events)], headless_env).returncode == 0
    history = run(["history"], headless_env)
    assert history.returncode == 0, history.stderr
    assert run(["--help"], headless_env).returncode == 0


@pytest.mark.skipif(QT_DIR is None, reason="needs PySide6")
def test_the_app_with_a_missing_xcb_library_exits_2_naming_the_package(headless_env, tmp_path):
    """The real command, with an ``ldd`` on PATH that reports libxcb-cursor missing."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    ldd = bin_dir / "ldd"
    ldd.write_text("#!/bin/sh\necho '\tlibxcb-cursor.so.0 => not found'\n")
    ldd.chmod(0o755)
    env = dict(headless_env, DISPLAY=":0", PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    done = run([], env)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "tic-desktop: cannot start the desktop app: Qt's xcb platform needs libxcb-cursor.so.0 "
        "— install it: sudo apt-get install libxcb-cursor0 "
        "(Fedora: xcb-util-cursor; Arch: xcb-util-cursor)"
    ]
