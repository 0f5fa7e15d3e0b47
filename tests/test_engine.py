"""The Engine façade: the use cases the desktop and the CLI call, end to end on a real store
with the scripted model."""

from __future__ import annotations

from typing import Any

import pytest

from engine.bus import ModelFailed, ModelLoading, ModelReady, WhatsAppQrCode
from engine.engine import AccountConfig, Engine, check_choice
from engine.errors import ModelError
from engine.llm.scripted import ScriptedModel
from engine.settings import Settings
from engine.types import CheckResult, IngestResult, Reply, SettingsApplied
from tests.factories import make_event, reply

SHOP = {
    "sender": {"name": "Shop", "address": "news@shop.example"},
    "subject": "Winter sale",
    "text": "Everything half price.",
}


def recorded(engine: Engine) -> list[Any]:
    seen: list[Any] = []
    engine.bus.subscribe(seen.append)
    return seen


async def test_check_now_ticks_and_waits_until_the_replies_are_delivered(engine, model, workspace):
    workspace.rules_file.write_text("## Always notify\n- Emails from Shop\n")
    assert engine.ingest([make_event(**SHOP)]) == IngestResult(added=1, known=0)
    model.add(reply("Shop has a sale."))

    result = await engine.check_now(timeout=5)

    assert result == CheckResult(events=1, notified=1, delivered=True)
    assert result.ok and result.to_json()["notified"] == 1
    last = engine.history(10)[-1]
    assert (last["role"], last["content"], last["kind"]) == (
        "assistant",
        "Shop has a sale.",
        "notification",
    )


async def test_a_known_event_is_counted_not_added_again(engine):
    event = make_event()
    assert engine.ingest([event]) == IngestResult(added=1, known=0)
    assert engine.ingest([event, make_event()]) == IngestResult(added=1, known=1)


async def test_send_and_mute_return_the_replies(engine, model, workspace):
    workspace.rules_file.write_text("## Always notify\n- Emails from Shop\n\n## Never notify\n")
    engine.ingest([make_event(**SHOP)])
    model.add(reply("Shop has a sale."))
    await engine.check_now(timeout=5)
    (note,) = [r for r in engine.history(10) if r["role"] == "assistant" and r["content"]]

    confirmation = await engine.mute(note["id"])
    assert confirmation.text == (
        "Done — I won't notify you about emails from news@shop.example any more "
        "(Never notify: Emails from news@shop.example). "
        "I read it as \u201cNever notify: emails from news@shop.example\u201d.\n"
        "In the last 30 days it would have silenced 1 notification."
    )
    assert "- Emails from news@shop.example" in workspace.rules_file.read_text()

    model.add(reply("Hello!"))
    answer = await engine.send("hi")
    assert answer == Reply(answer.message_id, "Hello!")
    assert engine.history(1)[0]["id"] == answer.message_id


async def test_apply_settings_saves_keeps_accounts_and_updates_the_running_parts(engine, model):
    account = AccountConfig(kind="whatsapp-export", account="/tmp/exports")
    engine._save_settings(Settings(accounts=[account]))
    edited = engine.settings.model_copy(
        update={
            "tick_interval_minutes": 30,
            "batch_size": 7,
            "max_event_attempts": 5,
            "max_tool_steps": 3,
            "accounts": [],  # the dialog's stale copy
        }
    )

    applied = await engine.apply_settings(edited)

    assert applied == SettingsApplied(model_changed=False, model_error=None)
    saved = Settings.load(engine.workspace.settings_file)
    assert saved == engine.settings
    assert saved.tick_interval_minutes == 30 and saved.accounts == [account]
    assert engine.tic._schedule.interval == 30 * 60
    assert (engine.tic.batch_size, engine.tic.max_attempts) == (7, 5)
    assert engine.loop.max_steps == 3
    assert not model.closed


async def test_a_new_model_setting_swaps_the_model_everywhere_at_once(engine, model, tmp_path):
    bogus = tmp_path / "bogus.gguf"
    bogus.write_bytes(b"not a model")
    seen = recorded(engine)

    applied = await engine.apply_settings(
        engine.settings.model_copy(update={"model_path": str(bogus)})
    )

    assert applied == SettingsApplied(
        model_changed=True, model_error=f"not a GGUF model file: {bogus}"
    )
    assert engine.model_error == applied.model_error
    assert model.closed
    assert engine.loop.model is engine.decider.model  # one holder, read by both
    assert await engine.load_model() == applied.model_error
    assert seen == [ModelLoading("unavailable"), ModelFailed(applied.model_error)]

    fresh = ScriptedModel([reply("from the new model")])
    await engine.swap_model(fresh)
    assert engine.model_error is None and engine.model_name == "scripted"
    assert (await engine.send("hi")).text == "from the new model"
    assert len(fresh.calls) == 1


async def test_load_model_reports_progress_on_the_bus(engine):
    seen = recorded(engine)
    assert await engine.load_model() is None
    assert seen == [ModelLoading("scripted"), ModelReady("scripted")]


async def test_open_makes_the_model_or_a_stand_in(workspace, tmp_path):
    missing = tmp_path / "none.gguf"
    with pytest.raises(ModelError, match="model file not found"):
        Engine.open(workspace, str(missing))
    engine = Engine.open(workspace, str(missing), stand_in=True)
    try:
        assert engine.model_error == f"model file not found: {missing}"
        assert engine.model_name == "unavailable"
    finally:
        await engine.stop()


def test_check_model_accepts_a_gguf_or_a_server_url(tmp_path):
    assert check_choice("http://127.0.0.1:8080/v1") == "capable"
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF" + b"\0" * 16)
    assert check_choice(str(gguf)) == "tiny"
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    with pytest.raises(ModelError, match="not a GGUF"):
        check_choice(str(notes))


async def test_accounts_are_added_listed_and_removed(engine, tmp_path):
    folder = tmp_path / "exports"
    folder.mkdir()
    config = await engine.add_whatsapp_export(folder, "Anna Berg")
    assert config.options == {"user_name": "Anna Berg"}
    (state,) = engine.account_states()
    assert (state.config, state.label, state.state) == (
        config,
        "WhatsApp exports",
        "not synced yet",
    )
    assert engine.sources.active_keys() == [config.key]

    await engine.remove_account(config.key)
    assert engine.account_states() == [] and engine.sources.active_keys() == []
    assert Settings.load(engine.workspace.settings_file).accounts == []


async def test_live_whatsapp_pairing_codes_are_bus_messages(engine, monkeypatch):
    started: list[AccountConfig] = []
    monkeypatch.setattr(engine, "_start_source", started.append)
    seen = recorded(engine)

    config = await engine.connect_whatsapp_live()
    engine._qr("2@code")  # what the live source calls while pairing

    assert started == [config]
    assert config.options["session_db"] == str(engine.workspace.root / "whatsapp" / "session.db")
    assert seen == [WhatsAppQrCode("2@code")]


async def test_without_a_model_the_store_still_serves_ingest_and_history(workspace):
    engine = Engine.without_model(workspace)
    try:
        assert engine.ingest([make_event()]).added == 1
        assert engine.history() == []
        assert engine.model_error == "this command runs no model"
    finally:
        await engine.stop()


async def test_rules_report_explains_the_workspace_rules(engine, model, workspace):
    workspace.rules_file.write_text(
        "## Never notify\n- Newsletters\n## Always notify\n- when the moon is blue\n",
        encoding="utf-8",
    )
    never, odd = engine.rules_report()
    assert never.sentence == "Never notify: newsletters and digests"
    assert odd.understood is False and odd.applied_by == "model"  # the scripted model is capable
    await engine.swap_model(ScriptedModel(capability="tiny"))
    assert engine.rules_report()[1].applied_by == "nobody"
    (line,) = engine.rules_report("## Never notify\n- Receipts\n")
    assert line.text == "Receipts"
