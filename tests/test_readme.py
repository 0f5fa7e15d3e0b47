"""The README's commands work as written, and so do those of the pages it links in ``docs/``.
Every command line in their ``sh`` code blocks is either run here (from the repository root,
with this checkout's code, headless) or listed below with the reason it cannot run in a
test; a new command that is neither fails. ``export NAME=VALUE`` lines apply to the commands
after them; a path under ``/tmp/`` becomes the test's own."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.cli_helpers import ROOT

README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))  # benchmarks and internals, linked from it
PAGES = [README, *DOCS]

# Commands that cannot run in a test, by how they start, with the reason.
NOT_RUN = {
    "sudo apt-get ": "installs system packages (.ci/run installs the same ones)",
    "sudo dnf ": "installs system packages on Fedora",
    "sudo pacman ": "installs system packages on Arch",
    "python3 -m venv .venv && ": "makes a venv, installs and starts the GUI (CI's plain job)",
    "pip install -e '.[test]' && python -m pytest": "is the test suite itself",
    "python -m bench": "measures for minutes (tests/test_bench.py runs one cheap figure)",
}
# Commands that run the model: only in the real_model test.
NEEDS_MODEL = {"tic-desktop tick"}


def readme_commands(text: str) -> list[str]:
    """The command lines of the ``sh`` code blocks, continuation lines joined, in order."""
    commands = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL):
        for line in re.sub(r"\\\n\s*", "", block).splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                commands.append(line)
    return commands


COMMANDS = [c for page in PAGES for c in readme_commands(page.read_text(encoding="utf-8"))]


def not_run_reason(command: str) -> str | None:
    return next((why for start, why in NOT_RUN.items() if command.startswith(start)), None)


def runnable(*, with_model: bool) -> list[str]:
    return [
        c for c in COMMANDS if not_run_reason(c) is None and (with_model or c not in NEEDS_MODEL)
    ]


def run_all(commands: list[str], tmp: Path, *, with_model: bool) -> dict[str, str]:
    """Run ``commands`` in order as a user would in one shell; each must exit 0. Their output."""
    env = dict(
        os.environ,
        TIC_HOME=str(tmp / "home"),
        TIC_ALLOW_MODEL_REQUESTS="1" if with_model else "0",
        PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
    )
    for key in ("DISPLAY", "WAYLAND_DISPLAY"):
        env.pop(key, None)  # headless, as they must be
    outputs = {}
    for command in commands:
        args = [
            str(tmp / a.removeprefix("/tmp/")) if a.startswith("/tmp/") else a
            for a in shlex.split(command, comments=True)
        ]
        if args[0] == "export":
            name, _, value = args[1].partition("=")
            value = str(tmp / value.removeprefix("/tmp/")) if value.startswith("/tmp/") else value
            env[name] = value
            continue
        assert args[0] == "tic-desktop", f"the test does not know how to run: {command}"
        out = subprocess.run(
            [sys.executable, "-m", "tic_desktop", *args[1:]],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=env,
            timeout=600,
            stdin=subprocess.DEVNULL,
        )
        assert out.returncode == 0, f"{command}\n{out.stderr}"
        assert "Traceback" not in out.stderr, command
        outputs[command] = out.stdout
    return outputs


def test_the_readme_has_commands_to_run_and_each_other_one_is_listed() -> None:
    assert "tic-desktop --help" in COMMANDS
    assert len(runnable(with_model=False)) >= 4
    for start in NOT_RUN:  # no stale entries
        assert any(c.startswith(start) for c in COMMANDS), start
    assert set(COMMANDS) >= NEEDS_MODEL


def test_the_readme_commands_run_headless_with_no_model(tmp_path: Path) -> None:
    outputs = run_all(runnable(with_model=False), tmp_path, with_model=False)
    assert outputs["tic-desktop --help"].startswith("usage: tic-desktop")
    (triage,) = [c for c in outputs if c.startswith("tic-desktop triage")]
    decisions = [json.loads(line) for line in outputs[triage].splitlines()]
    assert [d["notify"] for d in decisions] == [True, False, True, False]
    assert decisions[1]["rule"] == "Newsletters and promotional emails"  # quoted in the README
    (evaluation,) = [c for c in outputs if c.startswith("tic-desktop eval")]
    assert "accuracy: 100.0% (40/40)" in outputs[evaluation]
    assert (tmp_path / "tic-try" / "tic.db").exists()  # the export applied: a scratch workspace
    assert not (tmp_path / "home").exists()  # and nothing else was touched


@pytest.mark.real_model
def test_the_readme_commands_run_with_the_embedded_model(tmp_path: Path) -> None:
    outputs = run_all(runnable(with_model=True), tmp_path, with_model=True)
    assert "notified" in outputs["tic-desktop tick"]
    assert outputs["tic-desktop history"].strip()


def test_the_readme_installs_what_ci_installs() -> None:
    """The README's apt-get lines name every Debian package .ci/run installs."""
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    listed = re.search(r"^APT_PACKAGES=\((.*?)^\)", ci, flags=re.MULTILINE | re.DOTALL)
    assert listed is not None
    ci_packages = set(listed.group(1).split())
    readme_packages = set()
    for command in COMMANDS:
        for part in command.split("&&"):
            words = part.split()
            if words[:3] == ["sudo", "apt-get", "install"]:
                readme_packages |= {w for w in words[3:] if not w.startswith("-")}
    assert ci_packages <= readme_packages, ci_packages - readme_packages
    assert {"build-essential", "cmake", "python3-venv", "python3-dev"} <= readme_packages


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_the_readme_names_real_extras_and_files(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for extra in re.findall(r"pip install -e '\.\[(\w+)\]'", text):
        assert extra in project["optional-dependencies"], extra
    for command in ("tic-desktop", "tic-desktop-gui"):
        assert command in project["scripts"] or command in project["gui-scripts"]
    for path in re.findall(r"`((?:tests|examples|engine|desktop|\.ci)/[\w./-]+)`", text):
        assert (ROOT / path).exists(), path
    assert "../shared" not in text


def test_the_readme_leads_with_what_a_user_does_and_links_the_rest() -> None:
    """Set-up, accounts, rules and the chat come first; benchmarks and internals live in
    docs/, linked, and every page or picture linked from the README exists."""
    text = README.read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", re.sub(r"^```.*?^```", "", text, flags=re.M | re.S), re.M)
    assert headings[:5] == [
        "Set up",
        "Using TIC",
        "Connect your mail, WhatsApp and calendar",
        "Your rules",
        "Chat with TIC",
    ]
    assert not {"Performance", "Architecture"} & set(headings)
    for target in re.findall(r"\]\(((?:docs/)?[\w./-]+\.(?:md|png))(?:#[\w-]+)?\)", text):
        assert (ROOT / target).exists(), target
    gmail = text[text.index("### Gmail") :]
    assert gmail.index("app password") < gmail.index("OAuth client")  # IMAP leads
    assert "tic-desktop --install-desktop-entry" in text
