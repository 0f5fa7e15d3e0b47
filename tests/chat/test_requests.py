"""Rule changes said in the user's own words, read by the rules reader itself: what it reads
in full is added as said and confirmed with its reading; what it reads only in part is not
added, and the answer says what it could not read (issue 21, item 1)."""

from __future__ import annotations

import pytest

from engine.chat.requests import read_request
from engine.engine import Engine
from engine.llm.scripted import ScriptedModel
from engine.triage.rules.parse import ALWAYS, NEVER, parse_rules


@pytest.fixture
async def tiny_engine(workspace, settings):
    engine = Engine(workspace, settings, ScriptedModel(capability="tiny"))
    await engine.start(schedule=False)
    yield engine
    await engine.stop()


@pytest.mark.parametrize(
    ("said", "section", "reading"),
    [
        ("LinkedIn can wait", NEVER, "Never notify: from LinkedIn"),
        ("Avísame siempre que me escriba Pedro", ALWAYS, "Always notify: from Pedro"),
        ("Préviens-moi toujours quand Julie m'écrit", ALWAYS, "Always notify: from Julie"),
        ("I don't care about promotions", NEVER, "Never notify: marketing and promotions"),
    ],
)
def test_a_decided_sentence_is_an_instruction(said: str, section: str, reading: str) -> None:
    request = read_request(said)
    assert request.unread == ()
    assert [(s, r) for s, _, r in request.read] == [(section, reading)]


def test_context_sentences_change_nothing_and_are_not_instructions() -> None:
    request = read_request(
        "please dont notify me about messages from Gary Voss anymore. we've parted ways on "
        "the project and he keeps messaging"
    )
    assert [(s, r) for s, _, r in request.read] == [(NEVER, "Never notify: from Gary Voss")]


@pytest.mark.parametrize("said", ["thanks!", "What do you notify me about?", "tell me a joke"])
def test_no_decision_no_request(said: str) -> None:
    request = read_request(said)
    assert not request.read and not request.unread


async def test_a_request_read_in_full_is_added_as_said(tiny_engine, workspace) -> None:
    workspace.rules_file.write_text("## Never notify\n- Newsletters\n")
    reply = await tiny_engine.send("LinkedIn can wait")
    assert reply.text == (
        "Done \u2014 I added to Never notify: \u201cLinkedIn can wait\u201d. I read it as "
        "\u201cNever notify: from LinkedIn\u201d."
    )
    never = parse_rules(workspace.rules_file.read_text()).section(NEVER)
    assert [r.text for r in never] == ["Newsletters", "LinkedIn can wait"]


async def test_a_request_read_in_part_is_not_added_and_says_why(tiny_engine, workspace) -> None:
    before = "## Never notify\n- Newsletters\n"
    workspace.rules_file.write_text(before)
    reply = await tiny_engine.send("The neighbours group is all rants. Mute it please, I'll check")
    assert reply.text.startswith("I didn't change your rules: in \u201c")
    assert "I can't read" in reply.text
    assert workspace.rules_file.read_text() == before


async def test_a_message_that_is_no_rule_still_gets_the_honest_answer(tiny_engine) -> None:
    reply = await tiny_engine.send("tell me a joke")
    assert reply.text.startswith("I can't answer that reliably")
