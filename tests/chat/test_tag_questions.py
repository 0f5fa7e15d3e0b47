"""A request that ends on a tag and a question mark ("…, tá?", "… pode ser?", "…, ok?") is
said, not asked; a question that asks stays a question. A request to tell again about
something a Never line mutes asks to take that line out."""

from __future__ import annotations

import pytest

from engine.chat.removal import asks_removal, read_removal
from engine.chat.requests import read_request


@pytest.mark.parametrize(
    ("said", "reading"),
    [
        ("A partir de agora me avisa de todo e-mail da Lívia Prado, tá?", "Lívia Prado"),
        ("Always tell me about emails from Okafor Tiles, ok?", "Okafor Tiles"),
        ("quero saber das entregas da Loja Arara. pode ser?", "Loja Arara"),
    ],
)
def test_a_tag_question_is_a_request(said: str, reading: str) -> None:
    request = read_request(said)
    assert request.read and reading in request.read[0][2]


def test_a_question_that_asks_is_no_request() -> None:
    assert not read_request("Did Okafor Tiles write today?").any


@pytest.mark.parametrize(
    "said",
    [
        "pode voltar a me avisar do futsal, voltei a jogar",
        "Puoi ricominciare ad avvisarmi del gruppo del futsal",
        "ya puedes volver a avisarme del futsal",
    ],
)
def test_telling_again_asks_to_take_the_never_line_out(said: str) -> None:
    rules = "## Never notify\n- Grupo 'Futsal de Terça'\n- Newsletters\n"
    assert asks_removal(said)
    removal = read_removal(said, rules)
    assert removal is not None and removal.rule is not None
    assert removal.rule.text == "Grupo 'Futsal de Terça'"
