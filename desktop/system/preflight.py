"""Can Qt start here? Checked before any QApplication exists, without importing Qt.

Qt does not fail politely: with no display, an X display nobody answers on, or a missing xcb
library (``libxcb-cursor0`` on a minimal Debian/Ubuntu) it prints a warning and aborts with
a core dump (exit 134). :func:`startup_problem` finds those cases first and says, in one line,
what is wrong and how to fix it. Anything it cannot tell (no ``ldd``, no PySide6, an unusual
``DISPLAY``) counts as no problem: Qt then gets its chance.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import socket
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from desktop.system.xdg import is_xdg_platform

LDD_TIMEOUT = 10.0  # seconds
CONNECT_TIMEOUT = 2.0  # seconds, to reach the X server named by DISPLAY

# Shared library -> (Debian/Ubuntu, Fedora, Arch) package providing it.
PACKAGES: dict[str, tuple[str, str, str]] = {
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor", "xcb-util-cursor"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm", "xcb-util-wm"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image", "xcb-util-image"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms", "xcb-util-keysyms"),
    "libxcb-render-util.so.0": (
        "libxcb-render-util0",
        "xcb-util-renderutil",
        "xcb-util-renderutil",
    ),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util", "xcb-util"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb", "libxcb"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb", "libxcb"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb", "libxcb"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb", "libxcb"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb", "libxcb"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb", "libxcb"),
    "libxcb-xinerama.so.0": ("libxcb-xinerama0", "libxcb", "libxcb"),
    "libxcb-xinput.so.0": ("libxcb-xinput0", "libxcb", "libxcb"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb", "libxcb"),
    "libxcb-glx.so.0": ("libxcb-glx0", "libxcb", "libxcb"),
    "libxcb.so.1": ("libxcb1", "libxcb", "libxcb"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11", "libxkbcommon-x11"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon", "libxkbcommon"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb", "libx11"),
    "libX11.so.6": ("libx11-6", "libX11", "libx11"),
    "libSM.so.6": ("libsm6", "libSM", "libsm"),
    "libICE.so.6": ("libice6", "libICE", "libice"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl", "libglvnd"),
    "libGL.so.1": ("libgl1", "libglvnd-glx", "libglvnd"),
    "libGLX.so.0": ("libglx0", "libglvnd-glx", "libglvnd"),
    "libOpenGL.so.0": ("libopengl0", "libglvnd-opengl", "libglvnd"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype", "freetype2"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2", "glib2"),
    "libgthread-2.0.so.0": ("libglib2.0-0", "glib2", "glib2"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs", "dbus"),
}

_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found", re.MULTILINE)
_MUSL_NOT_FOUND = re.compile(r"Error loading shared library (\S+?):", re.MULTILINE)

Ldd = Callable[[Sequence[Path]], str | None]


def startup_problem(
    env: Mapping[str, str] | None = None,
    *,
    ldd: Ldd | None = None,
    qt_dir: Path | None = None,
    platform: str | None = None,
) -> str | None:
    """Why Qt cannot start here (the cause and its fix, one line), or None when it can."""
    env = os.environ if env is None else env
    if not is_xdg_platform(platform):
        return None
    override = env.get("QT_QPA_PLATFORM", "").strip()
    display = env.get("DISPLAY", "").strip()
    wayland = env.get("WAYLAND_DISPLAY", "").strip()
    if not override and not display and not wayland:
        return (
            "no display (neither DISPLAY nor WAYLAND_DISPLAY is set) — start it from your "
            "desktop session; the terminal commands (chat, tick, history, …) work without one"
        )
    if not uses_xcb(override, display, wayland):
        return None
    if not display:
        return (
            f"QT_QPA_PLATFORM={override} asks for X11 but DISPLAY is not set — start it from "
            "your desktop session, or unset QT_QPA_PLATFORM"
        )
    qt_dir = qt_dir if qt_dir is not None else pyside_qt_dir()
    if qt_dir is not None:
        missing = missing_libraries(qt_libraries(qt_dir), ldd or run_ldd)
        if missing:
            return install_hint(missing)
    if not x_display_reachable(display):
        return (
            f"no X server answers on DISPLAY={display} — check that your desktop session is "
            "running (over ssh, connect with -X)"
        )
    return None


def uses_xcb(override: str, display: str, wayland: str) -> bool:
    """Whether Qt will use its xcb (X11) platform plugin."""
    if override:
        return override.split(":")[0].split(";")[0] == "xcb"
    return bool(display) and not wayland  # on Wayland Qt tries its wayland plugin first


def pyside_qt_dir() -> Path | None:
    """PySide6's bundled ``Qt`` folder, found without importing PySide6."""
    try:
        spec = importlib.util.find_spec("PySide6")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "Qt"
        if candidate.is_dir():
            return candidate
    return None


def qt_libraries(qt_dir: Path) -> list[Path]:
    """The files whose dependencies must resolve for the xcb platform to load."""
    found = [
        qt_dir / "plugins" / "platforms" / "libqxcb.so",
        qt_dir / "lib" / "libQt6Widgets.so.6",
    ]
    return [path for path in found if path.is_file()]


def run_ldd(paths: Sequence[Path]) -> str | None:
    """``ldd``'s output for ``paths``, or None when ldd is missing or fails to run."""
    ldd = shutil.which("ldd")
    if ldd is None or not paths:
        return None
    try:
        done = subprocess.run(
            [ldd, *map(str, paths)],
            capture_output=True,
            text=True,
            timeout=LDD_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout + done.stderr


def missing_libraries(paths: Sequence[Path], ldd: Ldd) -> list[str]:
    """Shared libraries ``paths`` need that the dynamic linker cannot find, in order."""
    if not paths:
        return []
    output = ldd(paths)
    if not output:
        return []
    names = _NOT_FOUND.findall(output) + _MUSL_NOT_FOUND.findall(output)
    return list(dict.fromkeys(Path(name).name for name in names))


def install_hint(missing: Sequence[str]) -> str:
    """One line naming the missing libraries and the packages that provide them."""
    known = [name for name in missing if name in PACKAGES]
    unknown = [name for name in missing if name not in PACKAGES]
    debian, fedora, arch = (
        " ".join(dict.fromkeys(PACKAGES[name][i] for name in known)) for i in range(3)
    )
    line = f"Qt's xcb platform needs {', '.join(missing)} — install "
    if known:
        line += "it" if len(missing) == 1 else "them"
        line += f": sudo apt-get install {debian} (Fedora: {fedora}; Arch: {arch})"
    if unknown:
        line += "; and " if known else ""
        line += f"the package that provides {', '.join(unknown)} (apt-file search {unknown[0]})"
    return line


def x_display_reachable(display: str, timeout: float = CONNECT_TIMEOUT) -> bool:
    """Whether something accepts connections where ``DISPLAY`` points (True when unsure)."""
    match = re.fullmatch(r"(?P<host>[^:/]*?)(?:/unix)?:(?P<number>\d+)(?:\.\d+)?", display)
    if match is None:
        return True  # a form we do not know (e.g. a launchd socket path): let Qt decide
    host, number = match.group("host"), int(match.group("number"))
    if host in ("", "unix"):
        path = f"/tmp/.X11-unix/X{number}"
        return _connects(socket.AF_UNIX, "\0" + path, timeout) or _connects(
            socket.AF_UNIX, path, timeout
        )
    return _connects(socket.AF_INET, (host, 6000 + number), timeout) or _connects(
        socket.AF_INET6, (host, 6000 + number), timeout
    )


def _connects(family: int, address: str | tuple[str, int], timeout: float) -> bool:
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(address)
    except OSError:
        return False
    return True
