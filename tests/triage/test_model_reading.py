"""A capable model reads each line code flags once, into the same conditions code reads
lines into; every event is then decided in code. Scripted models stand in for a capable
one (no capable GGUF can be had here); the embedded model checks the schema and prompt."""

from __future__ import annotations

from datetime import datetime

import pytest

from engine.llm.scripted import ScriptedModel
from engine.triage.decider import TriageDecider
from engine.triage.rules.compile import compile_rules_text
from engine.triage.rules.model_reading import (
    READING_SCHEMA,
    ReadingCache,
    apply_reading,
    prompt,
)
from tests.factories import LEFT_TO_EACH_MESSAGE, make_event

NOW = datetime.fromisoformat("2026-11-10T12:00:00+00:00")
RULES = "## Never notify\n- Correos de la tintorería\n"
EMPTY = LEFT_TO_EACH_MESSAGE["about"]


def reading(**about) -> dict:
    return {
        "about": {**EMPTY, **about},
        "only_if": None,
        "words_not_covered": [],
        "needs_each_message": False,
    }


CLEANER = make_event(
    sender={"name": "Tintorería Sol", "address": "avisos@tintoreria-sol.example"},
    subject="Su ropa está lista",
    text="Puede pasar a recogerla cuando quiera. ¿Viene hoy?",
)
FRIEND = make_event(subject="Can you call me today?", text="Please call me back today.")


async def test_a_flagged_line_is_read_once_by_a_capable_model_and_applied_in_code(workspace):
    model = ScriptedModel([reading(sources=["email"], sender_domains=["tintoreria-sol.example"])])
    decider = TriageDecider(model, workspace)
    workspace.rules_file.write_text(RULES)
    first = await decider.decide([CLEANER, FRIEND], NOW)
    assert [(d.notify, d.rule) for d in first] == [
        (False, "Correos de la tintorería"),
        (True, None),
    ]
    assert len(model.calls) == 1  # one reading for the line, no call per message
    assert model.calls[0]["schema"] == READING_SCHEMA
    assert "Correos de la tintorería" in model.calls[0]["messages"][-1]["content"]
    again = TriageDecider(model, workspace)  # a restart: the reading is kept on disk
    assert [d.notify for d in await again.decide([CLEANER], NOW)] == [False]
    assert len(model.calls) == 1


async def test_the_reading_is_shown_on_the_rules_page(engine, model, workspace):
    model.add(reading(sources=["email"], sender_names=["Tintorería Sol"]))
    await engine.decider.decide([CLEANER], NOW, rules_text=RULES)
    (line,) = engine.rules_report(RULES)
    assert line.understood and line.read_by == "model"
    assert line.sentence == "read by the model as: Never notify: emails from Tintorería Sol"


async def test_a_reading_with_words_left_over_leaves_the_line_to_each_message(workspace):
    partial = {**reading(sources=["email"]), "words_not_covered": ["tintorería"]}
    model = ScriptedModel([partial, {"rule": "Correos de la tintorería", "reason": "the cleaner"}])
    decider = TriageDecider(model, workspace)
    (decision,) = await decider.decide([CLEANER], NOW, rules_text=RULES)
    assert (decision.notify, decision.rule) == (False, "Correos de la tintorería")
    assert "the model judged" in decision.reason
    assert len(model.calls) == 2  # the reading, then the per-message question


async def test_a_tiny_model_is_never_asked_to_read_a_line(workspace):
    model = ScriptedModel(capability="tiny")
    decider = TriageDecider(model, workspace)
    (decision,) = await decider.decide([CLEANER], NOW, rules_text=RULES)
    assert decision.rule is None
    assert model.calls == []


def test_a_reading_that_says_nothing_is_not_used() -> None:
    (rule,) = compile_rules_text(RULES)
    assert apply_reading(rule, reading()) is None
    assert apply_reading(rule, {**reading(kinds=["receipt"]), "needs_each_message": True}) is None
    read = apply_reading(rule, reading(kinds=["receipt"]))
    assert read is not None and read.action == "drop" and read.read_by == "model"


@pytest.mark.allow_log_warnings  # the unreadable file is logged
def test_an_unreadable_cache_is_read_again(tmp_path) -> None:
    (tmp_path / "rule-readings.json").write_text("[1, 2")
    (rule,) = compile_rules_text(RULES)
    cache = ReadingCache(tmp_path)
    assert cache.get("m", rule) is None
    cache.put("m", rule, reading(kinds=["receipt"]))
    assert ReadingCache(tmp_path).get("m", rule) == reading(kinds=["receipt"])


@pytest.mark.real_model
async def test_the_schema_and_prompt_give_valid_readings_on_the_embedded_model() -> None:
    import json

    import jsonschema

    from engine.llm.llama import LlamaCppModel
    from engine.llm.select import default_model_path

    validator = jsonschema.Draft202012Validator(READING_SCHEMA)
    model = LlamaCppModel(default_model_path())
    try:
        for text in (RULES, "## Always notify\n- Anything my kids' school sends is important\n"):
            (rule,) = compile_rules_text(text)
            out = await model.complete(prompt(rule), schema=READING_SCHEMA, max_tokens=400)
            answer = json.loads(out.text, strict=False)  # as the engine reads it
            invalid = [e.message for e in validator.iter_errors(answer)]
            assert invalid == [], (text, invalid)
            apply_reading(rule, answer)  # whatever it says, it is read without an error
    finally:
        await model.close()
