"""Google and live WhatsApp are pip extras: without one, asking for its accounts gives one
line naming the extra (never an ImportError), and the rest of the accounts keep working."""

from __future__ import annotations

import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

import engine.accounts.secrets as secrets
from engine import extras
from engine.accounts.registry import AccountConfig, build_source, forget_secrets, missing_extra
from engine.sources.base import SourceError
from engine.sources.google import secret_name
from engine.workspace import Workspace
from tests import keyring_memory

memory_keyring = keyring_memory.memory_keyring

GOOGLE_HINT = "Google accounts need: pip install -e '.[google]'"
WHATSAPP_HINT = "WhatsApp live needs: pip install -e '.[whatsapp]'"
PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def uninstall(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Make ``modules`` look absent: finding them gives None, importing them fails."""
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)


def test_installed_extras_are_not_reported() -> None:
    for kind in ("gmail", "gcal", "imap", "whatsapp-export", "whatsapp-live"):
        assert missing_extra(kind) is None


@pytest.mark.parametrize(
    ("kind", "module", "hint"),
    [
        ("gmail", "googleapiclient", GOOGLE_HINT),
        ("gcal", "google_auth_oauthlib", GOOGLE_HINT),
        ("gmail", "google.auth", GOOGLE_HINT),
        ("whatsapp-live", "neonize", WHATSAPP_HINT),
        ("whatsapp-live", "segno", WHATSAPP_HINT),
    ],
)
def test_a_missing_extra_is_one_line_naming_it(
    monkeypatch: pytest.MonkeyPatch, workspace: Workspace, kind: str, module: str, hint: str
) -> None:
    uninstall(monkeypatch, module)
    assert missing_extra(kind) == hint
    with pytest.raises(SourceError) as info:
        build_source(AccountConfig(kind=kind, account="anna@gmail.com"), workspace)
    assert str(info.value) == hint


def test_imap_and_exports_need_no_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    uninstall(monkeypatch, "googleapiclient", "neonize", "segno")
    assert missing_extra("imap") is None
    assert missing_extra("whatsapp-export") is None


def test_a_google_account_is_forgotten_without_the_extra(
    monkeypatch: pytest.MonkeyPatch, memory_keyring: object
) -> None:
    secrets.set_secret(secret_name("anna@gmail.com"), "{}")
    uninstall(monkeypatch, "googleapiclient", "engine.sources.google.auth")
    forget_secrets(AccountConfig(kind="gmail", account="anna@gmail.com"))
    assert secrets.get_secret(secret_name("anna@gmail.com")) is None


def _normalise(requirement: str) -> str:
    name = re.split(r"[\[<>=!~;\s]", requirement, maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", name).lower()


@pytest.mark.parametrize("extra", ["google", "whatsapp"])
def test_the_checked_modules_come_from_the_extra(extra: extras.Extra) -> None:
    declared = tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"][extra]
    wanted = {_normalise(r) for r in declared}
    _, modules = extras._NEEDS[extra]
    owners = packages_distributions()
    for module in modules:
        found = {_normalise(d) for d in owners.get(module.split(".")[0], [])}
        assert found & wanted, f"{module} is not installed by the [{extra}] extra"
    assert extras.install_hint(extra).endswith(f"pip install -e '.[{extra}]'")
