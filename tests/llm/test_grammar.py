"""Schemas as llama.cpp grammars: a reply covering a batch of notifications is bounded past
what llama.cpp's grammar parser takes, so that bound is left to the check on reading."""

from __future__ import annotations

import pytest

from engine.agent.actions import REPLY_MAX_CHARS, parse_action, reply_chars, reply_schema
from engine.llm.llama import GRAMMAR_MAX_STRING, LlamaCppModel, grammar_schema
from engine.llm.select import default_model_path


def test_only_bounds_past_the_grammars_limit_are_left_out() -> None:
    short, long = reply_schema(REPLY_MAX_CHARS), reply_schema(reply_chars(20))

    assert grammar_schema(short) == short
    assert "maxLength" not in grammar_schema(long)["properties"]["text"]
    assert grammar_schema({"anyOf": [long, short]}) == {"anyOf": [grammar_schema(long), short]}
    assert long["properties"]["text"]["maxLength"] == 6000 > GRAMMAR_MAX_STRING
    with pytest.raises(ValueError, match="does not fit"):  # still checked on reading
        parse_action('{"action": "reply", "text": "' + "x" * 6001 + '"}', long)


@pytest.mark.real_model
async def test_the_embedded_model_writes_under_a_batchs_reply_schema() -> None:
    model = LlamaCppModel(default_model_path(), context_size=512, threads=2)
    try:
        out = await model.complete(
            [{"role": "user", "content": "Say hello."}],
            schema=reply_schema(reply_chars(20)),
            max_tokens=12,
        )
    finally:
        await model.close()
    assert out.text.startswith('{"action"') or out.text.startswith('{ "action"'), out.text
