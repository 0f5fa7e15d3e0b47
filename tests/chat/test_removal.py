"""Taking a line out of the rules by saying so, in the user's words and language: the line
is found in the rules file by the request's own words, put to the user, and removed only
after their yes (issue 21, item 1: remove a rule)."""

from __future__ import annotations

import pytest

from engine.chat.removal import narrowed, read_removal, request_language

RULES = (
    "# Notification preferences\n\n"
    "## Always notify\n- Pedro Alvarez\n- Flight changes\n\n"
    '## Never notify\n- Newsletters\n- The "Five-a-side Tuesdays" WhatsApp group\n'
    "- LinkedIn\n\n"
    "## Custom rules\n- No work emails until I'm back from paternity leave\n"
)


@pytest.mark.parametrize(
    ("said", "section", "line"),
    [
        (
            "Pedro's project wrapped up, so he doesn't need to be on the always list anymore.",
            "always",
            "Pedro Alvarez",
        ),
        (
            "I'm captain of the five-a-side team now, take that group off the mute list",
            "never",
            'The "Five-a-side Tuesdays" WhatsApp group',
        ),
        ("Back to work. You can delete the paternity leave rule.", "custom", None),
        ("Sto cercando lavoro, puoi togliere LinkedIn dalla lista dei 'mai'.", "never", "LinkedIn"),
        ("Du kannst LinkedIn von der Nie-Liste streichen.", "never", "LinkedIn"),
    ],
)
def test_the_line_meant_is_found_by_the_request_s_own_words(
    said: str, section: str, line: str | None
) -> None:
    removal = read_removal(said, RULES)
    assert removal is not None and removal.rule is not None
    assert removal.rule.section == section
    expected = line or "No work emails until I'm back from paternity leave"
    assert removal.rule.text == expected


@pytest.mark.parametrize(
    "said",
    [
        "Remove the meeting from my calendar",  # names no line of the file
        "Tell me whenever Pedro writes",  # asks for no removal
    ],
)
def test_no_line_named_or_no_removal_asked_is_no_removal(said: str) -> None:
    assert read_removal(said, RULES) is None


def test_two_lines_alike_are_listed_and_none_is_chosen() -> None:
    rules = "## Never notify\n- Emails from Ana Ruiz\n- WhatsApp from Ana Ruiz\n"
    removal = read_removal("Take Ana Ruiz off the list", rules)
    assert removal is not None and removal.rule is None
    assert {r.text for r in removal.alike} == {"Emails from Ana Ruiz", "WhatsApp from Ana Ruiz"}


@pytest.mark.parametrize(
    ("said", "code"),
    [
        ("La obra ya terminó. Quita a Javier de siempre avisar, que ya no hace falta.", "es"),
        ("Pode tirar o silêncio do grupo da pelada de quinta.", "pt"),
        ("Tu peux réactiver ses notifications ?", "fr"),
        ("Take him off the always list", "en"),
    ],
)
def test_the_answer_is_in_the_request_s_language(said: str, code: str) -> None:
    assert request_language(said) == code


async def test_a_removal_waits_for_yes_then_takes_out_that_line_only(
    tiny_engine, workspace
) -> None:
    workspace.rules_file.write_text(RULES, encoding="utf-8")
    asked = await tiny_engine.send("Pedro doesn't need to be on the always list anymore")
    assert asked.text == (
        "I'll remove from Always notify: \u201cPedro Alvarez\u201d. Say yes to remove it."
    )
    assert asked.awaits_yes
    assert workspace.rules_file.read_text(encoding="utf-8") == RULES  # nothing yet
    done = await tiny_engine.send("yes")
    assert not done.awaits_yes
    assert done.text == "Done \u2014 I removed from Always notify: \u201cPedro Alvarez\u201d."
    assert workspace.rules_file.read_text(encoding="utf-8") == RULES.replace(
        "- Pedro Alvarez\n", ""
    )


async def test_a_no_keeps_the_line(tiny_engine, workspace) -> None:
    workspace.rules_file.write_text(RULES, encoding="utf-8")
    await tiny_engine.send("You can delete the paternity leave rule")
    await tiny_engine.send("no")
    assert workspace.rules_file.read_text(encoding="utf-8") == RULES


async def test_a_removal_asked_in_spanish_is_answered_in_spanish(tiny_engine, workspace) -> None:
    rules = '## Nunca avisar\n- Instagram\n- Grupo "Excompis 2009"\n'
    workspace.rules_file.write_text(rules, encoding="utf-8")
    asked = await tiny_engine.send("Ya puedes quitarle el silencio al grupo Excompis 2009")
    assert asked.text == (
        'Quitaré de No avisar nunca: \u00abGrupo "Excompis 2009"\u00bb. Di que sí para quitarla.'
    )
    done = await tiny_engine.send("sí")
    assert done.text.startswith("Hecho: he quitado de No avisar nunca")
    assert workspace.rules_file.read_text(encoding="utf-8") == "## Nunca avisar\n- Instagram\n"


async def test_telling_again_about_a_muted_group_takes_its_line_out(tiny_engine, workspace) -> None:
    """ "pode voltar a me avisar do futsal" reads in full as an Always line; it says to tell
    again, so the Never line that mutes the group is put to the user instead of a second
    line that contradicts it."""
    rules = "## Nunca avisar\n- Instagram\n- Grupo 'Futsal de Terça'\n"
    workspace.rules_file.write_text(rules, encoding="utf-8")
    asked = await tiny_engine.send("pode voltar a me avisar do futsal, voltei a jogar")
    assert asked.awaits_yes and "Futsal de Terça" in asked.text
    await tiny_engine.send("sim")
    assert workspace.rules_file.read_text(encoding="utf-8") == "## Nunca avisar\n- Instagram\n"


async def test_a_linked_rules_file_stays_a_link_after_a_removal(
    tiny_engine, workspace, tmp_path
) -> None:
    target = tmp_path / "dotfiles" / "notifications.md"
    target.parent.mkdir()
    target.write_text(RULES, encoding="utf-8")
    workspace.rules_file.unlink(missing_ok=True)
    workspace.rules_file.symlink_to(target)
    await tiny_engine.send("Take LinkedIn off the never list")
    await tiny_engine.send("yes")
    assert workspace.rules_file.is_symlink()
    assert "- LinkedIn\n" not in target.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("said", "rules", "line"),
    [
        (
            "Lukas and I made up, you can let him through again",
            "## Never notify\n- messages from Lukas Brenner\n- newsletters\n",
            "messages from Lukas Brenner",
        ),
        (
            "bought the coat 🎉 you can stop telling me about Zalando",
            "## Always notify\n- correos de Zalando\n- mi madre\n",
            "correos de Zalando",
        ),
        (
            "Ya no me avises de Zalando, ya compré el abrigo",
            "## Avisar siempre\n- correos de Zalando\n- mi madre\n",
            "correos de Zalando",
        ),
        (
            "Podes voltar a avisar-me do grupo 'Vizinhos do 3º', agora sou síndica",
            "## Nunca avisar\n- grupo 'Vizinhos do 3º'\n- publicidade\n",
            "grupo 'Vizinhos do 3º'",
        ),
    ],
)
def test_a_request_that_says_the_opposite_of_a_line_takes_it_back(
    said: str, rules: str, line: str
) -> None:
    removal = read_removal(said, rules)
    assert removal is not None and removal.rule is not None
    assert removal.rule.text == line


@pytest.mark.parametrize(
    ("said", "rules"),
    [
        ("Never notify me about Zalando promotions", "## Always notify\n- correos de Zalando\n"),
        ("Always tell me about invoices from Jonas", "## Never notify\n- newsletters\n- Maria\n"),
        ("Mute Jonas", "## Always notify\n- Jonas Weber\n- Jonas Klein\n"),
    ],
)
def test_a_narrower_or_unrelated_request_takes_nothing_back(said: str, rules: str) -> None:
    removal = read_removal(said, rules)
    assert removal is None or removal.rule is None


def test_a_request_set_against_a_line_narrows_it_and_takes_nothing_back() -> None:
    rules = "## Always notify\n- tout ce qui vient de l'école de danse Pirouette\n"
    said = "Je garde les mails de l'école de danse Pirouette, mais leur gazette, jamais"
    assert read_removal(said, rules) is None


NARROWED = "## Always notify\n- The 'Hiking Saturdays' WhatsApp group\n- Everything from Grandma\n"


@pytest.mark.parametrize(
    "said",
    [
        "For the hiking group, only tell me if someone mentions me",
        "Lo del grupo de hiking: solo avísame si me mencionan",
    ],
)
def test_an_only_if_about_an_always_line_narrows_that_line(said: str) -> None:
    found = narrowed(said, NARROWED)
    assert found is not None
    assert found.rule.text == "The 'Hiking Saturdays' WhatsApp group"
    assert found.line.startswith("The 'Hiking Saturdays' WhatsApp group: ")


@pytest.mark.parametrize(
    "said",
    [
        "Only tell me if someone mentions me",  # names no line
        "For the choir group, only tell me if someone mentions me",  # a line the file lacks
    ],
)
def test_an_only_if_that_names_no_always_line_narrows_none(said: str) -> None:
    assert narrowed(said, NARROWED) is None


async def test_a_narrowed_line_is_added_and_the_wide_one_goes_after_yes(
    tiny_engine, workspace
) -> None:
    workspace.rules_file.write_text(NARROWED, encoding="utf-8")
    asked = await tiny_engine.send("For the hiking group, only tell me if someone mentions me")
    assert asked.awaits_yes
    assert "would still let all of it through" in asked.text
    written = workspace.rules_file.read_text(encoding="utf-8")
    assert "- The 'Hiking Saturdays' WhatsApp group: only tell me if someone mentions me" in written
    assert "- The 'Hiking Saturdays' WhatsApp group\n" in written  # not yet removed
    await tiny_engine.send("yes")
    written = workspace.rules_file.read_text(encoding="utf-8")
    assert "- The 'Hiking Saturdays' WhatsApp group\n" not in written
    assert "- Everything from Grandma\n" in written


WEEKENDS = (
    "## Never notify\n- Am Wochenende nichts von der Arbeit (Mails von @nordlicht.example)\n"
    "- Werbung\n- Weekends: nothing from work (emails from @kettle.example)\n"
)


@pytest.mark.parametrize(
    ("said", "line"),
    [
        ("can you drop the weekend rule? I'm on call", "Weekends: nothing from work"),
        ("I'm covering for my boss so scrap the weekend no-work rule", "Weekends: nothing from"),
        ("Die Wochenendregel kannst du löschen, brauch ich nicht mehr.", "Am Wochenende"),
        ("Die Wochenend-Regel kannst du löschen.", "Am Wochenende"),
    ],
)
def test_a_rule_named_by_what_it_is_about_is_taken_out(said: str, line: str) -> None:
    """A word for a rule, alone or ending a compound, with a verb that takes it away; the
    line is found by the head of the compound ("Wochenend-" for "Am Wochenende")."""
    found = read_removal(said, WEEKENDS)
    assert found is not None and found.rule is not None
    assert found.rule.text.startswith(line)


def test_dropping_what_is_no_rule_removes_nothing() -> None:
    assert read_removal("Drop the newsletters from Zalando", WEEKENDS) is None
