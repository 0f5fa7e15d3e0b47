"""A role said in an instruction and named in the next sentence ("Anything my landlord
sends, I want to know about. He's Mr Okafor, …") is read as the file reads a definition,
and the definition is written beside the rule, so the file reads the rule the same way."""

from __future__ import annotations

from engine.chat.requests import read_request
from engine.triage.rules.compile import compile_rules_text


def test_a_role_named_after_is_a_definition() -> None:
    request = read_request(
        "Anything my landlord sends, I want to know about. "
        "He's Mr Adeyemi, emails from adeyemi-lets."
    )
    assert request.read and "Mr Adeyemi" in request.read[0][2]
    assert request.defines == ("my landlord = Mr Adeyemi, emails from adeyemi-lets",)


def test_a_sentence_that_names_no_one_defines_nothing() -> None:
    request = read_request("Anything my landlord sends, I want to know about. He's lovely.")
    assert not request.defines and not request.read


async def test_the_definition_is_written_beside_the_rule(tiny_engine, workspace) -> None:
    workspace.rules_file.write_text("## Always notify\n\n## Never notify\n", encoding="utf-8")
    await tiny_engine.send(
        "Anything my landlord sends, I want to know about. "
        "He's Mr Adeyemi, emails from adeyemi-lets."
    )
    text = workspace.rules_file.read_text(encoding="utf-8")
    assert "my landlord = Mr Adeyemi" in text
    (rule,) = compile_rules_text(text)
    assert rule.understood and "Mr Adeyemi" in rule.scope.names
