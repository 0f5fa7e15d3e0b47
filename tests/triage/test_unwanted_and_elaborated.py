"""Telling not wanted, said before the telling ("No hace falta que me avises cuando …",
"Não precisa me avisar quando …", "I don't need a notification every time …"), reads as
Never; what a sentence after a rule only elaborates (the channels a Never already holds on,
"the rest can wait" after an "only if") is no rule of its own; a former role ("my
ex-husband", "Ex-Schwiegermutter") says who someone was, it names no sender. People and
groups here are made up for these tests."""

from __future__ import annotations

import pytest

from engine.chat.requests import read_request
from engine.triage.rules.compile import compile_rules_text
from engine.triage.rules.decision import read_decision
from engine.triage.rules.explain import explain_rule


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        ("No hace falta que me avises cuando cambian la hora de una cita.", "cambian la hora"),
        ("Não precisa me avisar quando remarcarem consulta.", "remarcarem"),
        ("I don't need a notification every time someone reschedules a call.", "someone"),
        ("Je ne veux plus rien voir passer de Firmin Laval.", "Firmin Laval"),
    ],
)
def test_a_telling_not_wanted_is_never(line: str, kept: str) -> None:
    body, decision = read_decision(line)
    assert decision is not None and decision.section == "never"
    assert body.startswith(kept) or body.endswith(kept), body


@pytest.mark.parametrize(
    "said",
    [
        "Von meiner Ex-Chefin, Greta Lohse, möchte ich gar nichts mehr bekommen. Weder Mails "
        "noch WhatsApp.",
        "Mon ex-associé, Firmin Laval, je ne veux plus rien voir passer de lui. Ni mail ni rien.",
        "no me notifiques nada de mi excuñado, Tadeo Brum. ni correos ni whatsapp. gracias",
    ],
)
def test_the_channels_a_never_holds_on_are_no_rule_of_their_own(said: str) -> None:
    request = read_request(said)
    assert len(request.read) == 1, request
    section, _, reading = request.read[0]
    assert section == "never"
    assert "mail" not in reading.lower(), reading  # every channel, as the Never says
    assert not request.unread


@pytest.mark.parametrize(
    "said",
    [
        "Von Herrn Pribil will ich nur was hören, wenn's um den Mietvertrag geht. Alles andere "
        "kann warten.",
        "De Ciro Palma solo avísame si es sobre la escritura. lo demás puede esperar, es mi primo",
        "Del grupo Obra Ronda 9 solo quiero enterarme si me mencionan. Lo demás es ruido.",
    ],
)
def test_the_rest_said_after_an_only_if_is_its_otherwise(said: str) -> None:
    request = read_request(said)
    assert [r[0] for r in request.read] == ["custom"], request
    assert not request.unread


@pytest.mark.parametrize(
    "line",
    [
        "Von meiner Ex-Schwiegermutter, Renate Vollmer",
        "Mon ex-associé, Firmin Laval",
        "nada de mi excuñado, Tadeo Brum",
        "my ex-husband, Laurent Quist",
    ],
)
def test_a_former_role_names_no_sender(line: str) -> None:
    (rule,) = compile_rules_text(f"## Never notify\n- {line}\n")
    reading = explain_rule(rule).reading
    assert rule.understood
    assert " or " not in reading and "ex" not in reading.lower().replace("never", ""), reading


def test_a_role_defined_elsewhere_is_not_written_inside_a_compound() -> None:
    """ "my ex, Fergus Hale" defines "ex"; "Ex-Schwiegermutter" elsewhere is no "ex"."""
    rules = compile_rules_text(
        "## Never notify\n- my ex, Fergus Hale\n- Von meiner Ex-Schwiegermutter, Renate Vollmer\n"
    )
    assert "Fergus" not in explain_rule(rules[1]).reading


@pytest.mark.parametrize(
    ("line", "reading"),
    [
        ("Ne me préviens pour rien la nuit", "never notify: anything"),
        ("la nuit, ne me préviens de rien sauf Margaux", "only if from Margaux"),
        ("Ne m'avertis de rien venant de Loxam Pro", "Never notify: anything from Loxam Pro"),
        ("Ne me préviens que pour les factures", "only if receipts"),
    ],
)
def test_french_says_no_with_ne_before_the_telling(line: str, reading: str) -> None:
    """ "Ne me préviens pour rien": the "ne" before the word for telling says never (the
    "rien" after it); "ne … que" says only."""
    (rule,) = compile_rules_text(f"## Custom rules\n- {line}\n")
    assert rule.understood, rule.unread
    assert reading.lower() in explain_rule(rule).reading.lower()


@pytest.mark.parametrize(
    ("line", "section"),
    [
        ("Meld me niets van Kaasboer Tuyl", "never"),
        ("Sag mir nichts von Kaasboer Tuyl", "never"),
        ("Tell me nothing but invoices", "always"),
        ("Avísame de nada más que las facturas", "always"),
        ("Meld me niets anders dan facturen", "always"),
        ("Préviens-moi de rien d'autre que les factures", "always"),
    ],
)
def test_nothing_right_after_the_telling_says_never_unless_it_says_only(
    line: str, section: str
) -> None:
    assert read_decision(line)[1] is not None
    assert read_decision(line)[1].section == section  # type: ignore[union-attr]
