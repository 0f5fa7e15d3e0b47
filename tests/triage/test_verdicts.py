"""The model's answer about a rule code could not read is remembered per question: the same
question (the whole prompt, on the same model) is never asked twice; another event is."""

from __future__ import annotations

from datetime import datetime

from engine.llm.scripted import ScriptedModel
from engine.triage.decider import TriageDecider
from engine.workspace import Workspace
from tests.factories import judged_per_message, make_event

RULES = "## Custom rules\n- whatever my boss would care about\n"
NOW = datetime.fromisoformat("2026-11-10T08:00:00+00:00")


async def test_the_same_question_is_asked_once(workspace: Workspace) -> None:
    answer = {"rule": "whatever my boss would care about", "reason": "the boss wrote"}
    model = ScriptedModel(default=judged_per_message(answer), capability="capable")
    decider = TriageDecider(model, workspace)
    event, other = make_event(), make_event(subject="Something else entirely")
    first = await decider.decide([event], NOW, rules_text=RULES)
    again = await decider.decide([event], NOW, rules_text=RULES)
    assert first == again and first[0].rule == "whatever my boss would care about"
    assert len(model.calls) == 2  # the line's reading, once; the question, once
    await decider.decide([other], NOW, rules_text=RULES)
    assert len(model.calls) == 3


async def test_another_model_is_asked_again(workspace: Workspace) -> None:
    model = ScriptedModel(
        default=judged_per_message({"rule": None, "reason": "no"}), capability="capable"
    )
    decider = TriageDecider(model, workspace)
    event = make_event()
    await decider.decide([event], NOW, rules_text=RULES)
    model.name = "another-model"
    await decider.decide([event], NOW, rules_text=RULES)
    assert len(model.calls) == 4  # each model reads the line and is asked the question
