"""What the small model cannot do is said in the question's language, with what works in
that language; every example it offers is one the chat really reads (issue 21)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.chat.answers import WORKS, cannot_answer
from engine.chat.calendar_answer import calendar_question
from engine.chat.digest import digest_request
from engine.chat.intents import lookup_request, reminder_request
from engine.chat.replies import words as reply_words
from engine.chat.requests import read_request
from engine.triage.language import LANGUAGES

NOW = datetime(2026, 12, 2, 10, 0, tzinfo=UTC)
READERS = {
    "rules": lambda said: bool(read_request(said).read),
    "calendar": lambda said: calendar_question(said, NOW) is not None,
    "reminder": lambda said: reminder_request(said) is not None,
    "lookup": lambda said: lookup_request(said) is not None,
    "digest": lambda said: digest_request(said, NOW) is not None,
}


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_example_offered_is_read_by_what_it_is_offered_for(code: str) -> None:
    said_in = reply_words(code)
    offered = [(name, said_in.pair(f"works_{name}")) for name in WORKS]
    assert [name for name, (_, example) in offered if example][:1] == ["rules"]
    for name, (label, example) in offered:
        assert bool(label) == bool(example), (code, name)
        if example:
            assert READERS[name](example), (code, example)


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_refusal_lists_what_works_in_that_language(code: str) -> None:
    said_in = reply_words(code)
    answer = cannot_answer(language=code)
    assert answer.startswith(said_in.text("cannot_answer", model="", page="", works="")[:12])
    assert said_in.pair("works_rules")[1] in answer
    if code != "en":
        assert "I can't answer" not in answer


async def test_a_question_the_small_model_cannot_answer_gets_its_answer_in_spanish(
    tiny_engine,
) -> None:
    reply = await tiny_engine.send("¿Me escribes un poema sobre el otoño, por favor?")
    assert reply.text.startswith("No puedo responder a eso con fiabilidad")
    assert "«Deja de avisarme de LinkedIn»" in reply.text
