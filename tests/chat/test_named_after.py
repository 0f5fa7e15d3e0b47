"""A role said in an instruction and named in the next sentence ("Anything my landlord
sends, I want to know about. He's Mr Okafor, …") is read as the file reads a definition,
and the definition is written beside the rule, so the file reads the rule the same way."""

from __future__ import annotations

import pytest

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


@pytest.mark.parametrize(
    ("said", "name"),
    [
        (
            "Am Wochenende will ich nix von der Arbeit hören. Also nichts von @holzbau.example.",
            "holzbau.example",
        ),
        (
            "Los findes nada del curro, ¿vale? Nada de Talleres Ibarra (@talleresibarra.example)",
            "talleresibarra.example",
        ),
        (
            "Fim de semana nada do trabalho, ok? Nada da Gráfica Sol (@graficasol.example)",
            "graficasol.example",
        ),
    ],
)
def test_the_work_named_after_keeps_the_days_said_before(said: str, name: str) -> None:
    """The sentence after names who the work is; the days stay with it (never all week)."""
    request = read_request(said)
    assert len(request.read) == 1 and not request.unread
    section, _, reading = request.read[0]
    assert section == "never" and name in reading
    (rule,) = compile_rules_text(f"{request.read[0][1]}\n")
    assert rule.window is not None and rule.window.days == frozenset({5, 6})


def test_sat_sun_is_the_weekend() -> None:
    (rule,) = compile_rules_text("nothing from Pratt & Ives (pratt-ives.example) on Sat/Sun\n")
    assert rule.window is not None and rule.window.days == frozenset({5, 6})
    assert not {"Sat", "Sun"} & set(rule.scope.names)


def test_hours_told_before_an_only_are_written_with_it() -> None:
    request = read_request("9pm to 4:30am I'm asleep. Only Tobias and Kirra get through.")
    ((section, said, _),) = request.read
    assert section == "custom" and said.startswith("Between 21:00 and 04:30")


def test_work_named_with_more_to_say_is_not_folded_in() -> None:
    """What the sentence after says besides who ("außer von Jan") would be lost in the first:
    the two stay apart, and the first is flagged."""
    request = read_request(
        "Am Wochenende will ich nix von der Arbeit hören. Also nichts von @holzbau.example, "
        "außer von Jan."
    )
    assert request.unread
