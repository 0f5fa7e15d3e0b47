"""Pictures of the chat under Xvfb: the first-run welcome on the built-in model, with the
bigger model on offer, a digest answered in English and in Spanish, and rules changed by
talking in Spanish (made by
tests/desktop/chat_shot.py; ``TIC_UPDATE_SCREENSHOT=1`` refreshes the README's
docs/digest.png)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.cli_helpers import ROOT

README_SHOT = ROOT / "docs" / "digest.png"
SHOTS = ("welcome.png", "digest.png", "rules-es.png")


@pytest.mark.skipif(
    not all(shutil.which(t) for t in ("Xvfb", "dbus-daemon")),
    reason="needs Xvfb and dbus-daemon (.ci/run installs them)",
)
def test_pictures_of_the_welcome_a_digest_and_a_rule_change_under_xvfb(tmp_path):
    from tests.desktop.session import isolated_session
    from tests.desktop.test_real_desktop import distinct_colours

    out = tmp_path / "shots"
    with isolated_session() as session:
        env = dict(session.env, QT_QPA_PLATFORM="xcb", PYTHONPATH=str(ROOT), TZ="UTC")
        done = subprocess.run(
            [sys.executable, "-m", "tests.desktop.chat_shot", str(tmp_path / "h"), str(out)],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    for name in SHOTS:
        assert distinct_colours(out / name) > 20, name
    if os.environ.get("TIC_UPDATE_SCREENSHOT"):  # refresh the README's pictures on purpose
        shutil.copyfile(out / "digest.png", README_SHOT)
        shutil.copyfile(out / "rules-es.png", ROOT / "docs" / "rules-es.png")
    if os.environ.get("TIC_SHOTS_DIR"):  # to look at them
        for name in SHOTS:
            shutil.copyfile(out / name, os.path.join(os.environ["TIC_SHOTS_DIR"], name))
