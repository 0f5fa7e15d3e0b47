"""The command line's behaviour on bad input: clear one-line errors, nothing half-done."""

from __future__ import annotations

import json
import logging

import pytest

from tests.cli_helpers import run_tic, write_jsonl
from tests.factories import event_dict
from tic_cli import cli


def test_help_documents_every_command(tmp_path):
    out = run_tic("--help", home=tmp_path)
    assert out.returncode == 0
    for command in ("ingest", "tick", "chat", "history", "triage", "rules"):
        assert command in out.stdout


def test_ingest_adds_events_once(tmp_path):
    events = write_jsonl(tmp_path / "e.jsonl", [event_dict(), event_dict()])
    first = run_tic("ingest", str(events), home=tmp_path / "home")
    again = run_tic("ingest", str(events), home=tmp_path / "home")
    assert first.returncode == again.returncode == 0
    assert first.stdout.startswith("2 new event(s) added, 0 already known")
    assert again.stdout.startswith("0 new event(s) added, 2 already known")


def test_ingest_reports_the_bad_line_and_imports_nothing(tmp_path):
    bad = event_dict()
    del bad["source"]
    events = tmp_path / "e.jsonl"
    events.write_text(json.dumps(event_dict()) + "\n\n" + json.dumps(bad) + "\n")
    out = run_tic("ingest", str(events), home=tmp_path / "home")
    assert out.returncode == 2
    assert f"{events}:3: invalid event (source: Field required)" in out.stderr
    assert "Traceback" not in out.stderr
    history = run_tic("ingest", str(write_jsonl(tmp_path / "ok.jsonl", [])), home=tmp_path / "home")
    assert history.stdout.startswith("0 new event(s) added")
    from engine.store.db import close_database, open_database
    from engine.store.models import EventRecord

    open_database(tmp_path / "home" / "tic.db")
    try:
        assert EventRecord.select().count() == 0
    finally:
        close_database()


def test_triage_with_unreadable_input_exits_2_naming_file_and_line(tmp_path):
    rules = tmp_path / "rules.md"
    rules.write_text("## Always notify\n- Emails from Anna\n")
    events = tmp_path / "e.jsonl"
    events.write_text(json.dumps(event_dict()) + "\n{not json\n")
    out = run_tic("triage", "--rules", str(rules), "--events", str(events), home=tmp_path)
    assert out.returncode == 2
    assert f"{events}:2: invalid JSON" in out.stderr
    missing = run_tic(
        "triage", "--rules", str(tmp_path / "nope.md"), "--events", str(events), home=tmp_path
    )
    assert missing.returncode == 2
    assert "nope.md" in missing.stderr and "Traceback" not in missing.stderr


def test_a_missing_or_bogus_model_is_one_clear_line(tmp_path):
    rules = tmp_path / "rules.md"
    rules.write_text("")
    events = write_jsonl(tmp_path / "e.jsonl", [event_dict()])
    missing = run_tic(
        "--model",
        str(tmp_path / "none.gguf"),
        "triage",
        "--rules",
        str(rules),
        "--events",
        str(events),
        home=tmp_path,
    )
    assert missing.returncode == 1
    assert (
        missing.stderr.strip()
        == f"tic-desktop: error: model file not found: {tmp_path / 'none.gguf'}"
    )
    bogus = tmp_path / "bogus.gguf"
    bogus.write_bytes(b"this is not a model")
    out = run_tic("--model", str(bogus), "tick", home=tmp_path / "home")
    assert out.returncode == 1
    assert out.stderr.strip() == f"tic-desktop: error: not a GGUF model file: {bogus}"
    log = (tmp_path / "home" / "logs" / "tic.log").read_text()
    assert f"ERROR tic: tic tick failed: not a GGUF model file: {bogus}" in log


def test_history_on_a_fresh_workspace_is_empty(tmp_path):
    out = run_tic("history", "--json", home=tmp_path / "home")
    assert out.returncode == 0
    assert out.stdout == ""


def test_history_on_a_fresh_workspace_says_there_is_nothing_yet(tmp_path):
    out = run_tic("history", home=tmp_path / "home")
    assert out.returncode == 0
    assert out.stdout == "No messages yet. TIC's notifications and your chats appear here.\n"
    assert run_tic("history", "--limit", "0", home=tmp_path / "home").returncode == 2


def test_commands_log_to_the_workspace_log_and_keep_the_terminal_quiet(tmp_path):
    home = tmp_path / "home"
    events = write_jsonl(tmp_path / "e.jsonl", [event_dict()])
    out = run_tic("ingest", str(events), home=home)
    assert out.returncode == 0 and out.stderr == ""
    log = (home / "logs" / "tic.log").read_text()
    assert f"INFO tic: tic ingest (workspace {home})" in log
    verbose = run_tic("-v", "history", home=home)
    assert f"INFO tic: tic history (workspace {home})" in verbose.stderr
    assert f"INFO tic: tic history (workspace {home})" in (home / "logs" / "tic.log").read_text()


def test_triage_creates_no_workspace_but_logs_into_an_existing_one(tmp_path):
    rules = tmp_path / "rules.md"
    rules.write_text("## Always notify\n- Emails from Anna Berg\n")
    events = write_jsonl(tmp_path / "e.jsonl", [event_dict()])
    args = ("triage", "--rules", str(rules), "--events", str(events))
    fresh = run_tic(*args, home=tmp_path / "none")
    assert fresh.returncode == 0, fresh.stderr
    assert not (tmp_path / "none").exists()
    home = tmp_path / "home"
    assert run_tic("history", home=home).returncode == 0
    assert run_tic(*args, home=home).returncode == 0
    assert "INFO tic: tic triage" in (home / "logs" / "tic.log").read_text()


def _boom(*args: object, **kwargs: object) -> int:
    raise RuntimeError("boom")


@pytest.mark.allow_log_warnings
def test_an_unexpected_error_is_one_line_pointing_at_the_log(tmp_path, monkeypatch, capsys):
    handlers = list(logging.getLogger().handlers)
    monkeypatch.setattr(cli, "cmd_history", _boom)
    assert cli.main(["--home", str(tmp_path / "home"), "history"]) == 1
    log_path = tmp_path / "home" / "logs" / "tic.log"
    captured = capsys.readouterr()
    assert (
        captured.err
        == f"tic-desktop: unexpected error: RuntimeError: boom (details in {log_path})\n"
    )
    assert captured.out == ""
    text = log_path.read_text()
    assert "ERROR tic: unexpected error" in text and "Traceback" in text
    assert "RuntimeError: boom" in text
    assert logging.getLogger().handlers == handlers  # main() leaves logging as it found it


@pytest.mark.allow_log_warnings
def test_an_unexpected_error_without_a_workspace_log_says_how_to_see_it(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(cli, "cmd_triage", _boom)
    args = ["--home", str(tmp_path / "none"), "triage", "--rules", "r.md", "--events", "e.jsonl"]
    assert cli.main(args) == 1
    err = capsys.readouterr().err
    assert (
        err == "tic-desktop: unexpected error: RuntimeError: boom (run with -v for the details)\n"
    )
    assert cli.main(["-v", *args]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and err.endswith("boom (the traceback is above)\n")


RULES = """# Notification preferences
## Always notify
- Emails from Tomas Herrera (tomas@herrera.example)
## Never notify
- Newsletters and promotions
- when the moon is blue and bananas
"""


def test_rules_shows_each_line_and_how_it_was_understood(tmp_path):
    home = tmp_path / "home"
    (home / "data").mkdir(parents=True)
    (home / "data" / "notifications.md").write_text(RULES, encoding="utf-8")
    out = run_tic("rules", home=home)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "data/notifications.md: 3 rule(s), 1 not understood"
    assert "line 3: Emails from Tomas Herrera (tomas@herrera.example)" in lines
    assert "    Always notify: emails from Tomas Herrera or tomas@herrera.example" in lines
    assert "    Never notify: newsletters and digests, or marketing and promotions" in lines
    assert any(
        line.startswith("    ⚠ not understood — ignored on the built-in model") for line in lines
    )


def test_rules_json_gives_the_same_as_objects(tmp_path):
    rules = tmp_path / "mine.md"
    rules.write_text(RULES, encoding="utf-8")
    out = run_tic("rules", "--json", "--rules", str(rules), home=tmp_path / "home")
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["line"] for r in rows] == [3, 5, 6]
    assert rows[0]["section"] == "always" and rows[0]["understood"] is True
    assert rows[2]["understood"] is False and rows[2]["applied_by"] == "nobody"
    assert (
        rows[1]["explanation"]
        == "Never notify: newsletters and digests, or marketing and promotions"
    )


NOT_UTF8_RULES = (  # line 6 holds one Latin-1 byte
    b"# Notification preferences\n\n## Always notify\n"
    b"- Emails from Tomas Herrera (tomas@herrera.example)\n"
    b"## Never notify\n- caf\xe9 invitations\n- Newsletters and promotions\n"
)


def test_rules_flags_a_line_that_is_not_utf8_and_reads_the_rest(tmp_path):
    home = tmp_path / "home"
    (home / "data").mkdir(parents=True)
    (home / "data" / "notifications.md").write_bytes(NOT_UTF8_RULES)
    given = tmp_path / "mine.md"
    given.write_bytes(NOT_UTF8_RULES)

    for out in (run_tic("rules", home=home), run_tic("rules", "--rules", str(given), home=home)):
        assert out.returncode == 0, out.stderr
        lines = out.stdout.splitlines()
        assert lines[0].endswith(": 2 rule(s), all understood")
        at = lines.index("line 6: caf\\xe9 invitations")
        assert lines[at + 1] == (
            "    not valid UTF-8: skipped, the rest of the file applies (re-save the file as UTF-8)"
        )
        assert "line 7: Newsletters and promotions" in lines
        assert "line 4: Emails from Tomas Herrera (tomas@herrera.example)" in lines


def test_rules_with_no_file_or_an_unreadable_one(tmp_path):
    out = run_tic("rules", home=tmp_path / "home")
    assert out.returncode == 0
    assert "no rule lines; TIC's built-in judgement decides" in out.stdout
    missing = run_tic("rules", "--rules", str(tmp_path / "nope.md"), home=tmp_path / "home")
    assert missing.returncode == 2 and "nope.md" in missing.stderr
    assert "Traceback" not in missing.stderr
