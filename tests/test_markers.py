"""The markers a developer deselects: registered, the list of measured slow tests names
tests that exist (a renamed one would quietly run in the fast run again), and a directory
is skipped at collection only when ``-m`` would deselect all of it anyway."""

from __future__ import annotations

import re
import tomllib

import pytest

from tests.markers import MEASURED_SLOW, ROOT, deselects_every


def test_the_markers_are_registered() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    markers = config["tool"]["pytest"]["ini_options"]["markers"]
    names = {line.split(":", 1)[0] for line in markers}
    assert {"desktop", "real_model", "server", "slow"} <= names


def test_each_measured_slow_test_exists() -> None:
    missing = []
    for test in sorted(MEASURED_SLOW):
        path, name = test.split("::")
        source = (ROOT / path).read_text(encoding="utf-8")
        function = re.escape(name.split("[", 1)[0])
        if not re.search(rf"^(async )?def {function}\(", source, flags=re.MULTILINE):
            missing.append(test)
    assert missing == []


@pytest.mark.parametrize(
    ("markexpr", "left_out"),
    [
        ("not slow and not desktop and not real_model", True),
        ("not (desktop or slow)", True),
        ("server and not desktop", True),
        ("not slow", False),  # a desktop test that is not slow runs
        ("desktop", False),
        ("slow or not desktop", False),
        ("", False),
    ],
)
def test_a_directory_is_left_uncollected_only_when_every_test_in_it_is_deselected(
    markexpr: str, left_out: bool
) -> None:
    assert deselects_every("desktop", markexpr) is left_out
