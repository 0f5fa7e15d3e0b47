"""Lines code could not read are shown, not guessed: a capable model may judge them, a tiny
one (the embedded default) is not asked; an answer that cannot be read is asked for once
more, then taken as "no rule applies" — never a failed tick."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from engine.llm.base import Capability, Completion
from engine.llm.scripted import ScriptedModel
from engine.triage.decider import TriageDecider
from engine.workspace import Workspace
from tests.factories import LEFT_TO_EACH_MESSAGE, make_event

NOW = datetime.fromisoformat("2026-11-10T08:00:00+00:00")
GARBAGE = "## Always notify\n- when the moon is blue and bananas\n## Never notify\n- Newsletters\n"
PROMO = {
    "sender": {"name": "Shopfair", "address": "deals@mail.shopfair.example"},
    "subject": "Flash sale: 40% off everything",
    "text": "Shop now, ends tonight.",
}


async def decide_one(model: ScriptedModel, workspace: Workspace, rules: str = GARBAGE):
    (decision,) = await TriageDecider(model, workspace).decide(
        [make_event(**PROMO)], NOW, rules_text=rules
    )
    return decision


async def test_a_tiny_model_is_not_asked_about_lines_code_could_not_read(workspace):
    model = ScriptedModel(capability="tiny")
    decision = await decide_one(model, workspace)
    assert model.calls == []
    assert decision.notify is False and decision.rule is None  # the heuristics: marketing
    assert decision.reason.startswith("marketing and promotions")


async def test_a_capable_model_judges_them(workspace):
    model = ScriptedModel(
        [
            LEFT_TO_EACH_MESSAGE,
            {"rule": "when the moon is blue and bananas", "reason": "it says so"},
        ]
    )
    decision = await decide_one(model, workspace)
    assert len(model.calls) == 2  # the line read once (left to each message), the message
    assert decision.notify is True and decision.rule == "when the moon is blue and bananas"
    assert "the model judged" in decision.reason


@pytest.mark.parametrize("capability", ["tiny", "capable"])
async def test_no_model_call_for_events_the_understood_lines_decide(workspace, capability):
    model = ScriptedModel([LEFT_TO_EACH_MESSAGE], capability=capability)
    newsletter = make_event(
        sender={"name": "Weekly", "address": "news@weekly.example"},
        subject="The weekly digest",
        headers={"List-Unsubscribe": "<mailto:u@weekly.example>"},
    )
    decider = TriageDecider(model, workspace)
    (decision,) = await decider.decide([newsletter], NOW, rules_text=GARBAGE)
    # a capable model reads the line it flags once, ever; no call is made per message
    assert len(model.calls) == (1 if capability == "capable" else 0)
    assert decision.rule == "Newsletters"
    await decider.decide([newsletter], NOW, rules_text=GARBAGE)
    assert len(model.calls) == (1 if capability == "capable" else 0)


class BrokenGrammarModel(ScriptedModel):
    """Returns its texts as they are, as a model whose grammar let a bad character through
    does (the scripted model checks every answer against the schema)."""

    async def complete(self, messages, *, schema=None, **kwargs):  # type: ignore[no-untyped-def]
        self.calls.append({"messages": list(messages), "schema": schema})
        text = self.script.pop(0)
        return Completion(text=text if isinstance(text, str) else json.dumps(text))


async def test_an_unreadable_answer_is_asked_again_then_no_rule_applies(workspace):
    model = BrokenGrammarModel(
        [LEFT_TO_EACH_MESSAGE, '{"rule": "when\u0001', '{"rule": "when the moon\n']
    )
    decision = await decide_one(model, workspace)
    assert len(model.calls) == 3
    assert decision.rule is None and decision.notify is False  # heuristics, no failed tick


async def test_a_second_answer_that_reads_is_used(workspace):
    model = BrokenGrammarModel(
        ["{oops", {"rule": "when the moon is blue and bananas", "reason": "x"}]
    )
    decision = await decide_one(model, workspace)
    assert len(model.calls) == 2 and decision.rule == "when the moon is blue and bananas"


def test_models_say_what_they_may_be_trusted_with(tmp_path) -> None:
    from engine.llm.holder import ModelHolder
    from engine.llm.openai_compat import OpenAICompatModel
    from engine.llm.unavailable import UnavailableModel

    scripted: Capability = ScriptedModel().capability
    assert scripted == "capable"
    assert ScriptedModel(capability="tiny").capability == "tiny"
    assert OpenAICompatModel("http://localhost:9/v1").capability == "capable"
    assert UnavailableModel("no model").capability == "tiny"
    holder = ModelHolder(ScriptedModel(capability="tiny"))
    assert holder.capability == "tiny"
    holder.swap(ScriptedModel())
    assert holder.capability == "capable"
