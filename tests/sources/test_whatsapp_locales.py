"""WhatsApp exports as phones in other languages and countries write them: invisible marks
anywhere, odd 12-hour clocks, Finnish dotted times, media and system lines in every language
file's words, chat-name prefixes, and how an ambiguous date order is decided and said."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from engine.sources.whatsapp.export import (
    ParsedChat,
    chat_name_from_filename,
    load_export,
    parse_chat,
)
from engine.triage.language import LANGUAGES, raw_table
from tests.sources.whatsapp_samples import LRM, NNBSP, lines

BOM = "\ufeff"


def _parse(text: str, user_locale: str = "") -> ParsedChat:
    return parse_chat(text, chat_name="Test", user_locale=user_locale)


def _rows(chat: ParsedChat) -> list[tuple[datetime, str, str]]:
    return [(m.time, m.sender, m.text) for m in chat.messages]


# --- direction marks and byte-order marks --------------------------------------------------


def test_text_starting_with_a_direction_mark_is_a_message() -> None:
    # Android puts U+200E before attachments and some typed text; iOS before its own lines.
    text = lines(
        f"14.02.19, 09:30 - Jonas: {LRM}Mietvertrag.pdf (Datei angehängt)",
        "Mietvertrag Entwurf",
        f"14.02.19, 09:31 - Jonas: {LRM}{LRM}Kannst du das lesen?",
        f"14.02.19, 09:32 - Mia: {LRM}IMG-20190214-WA0004.jpg (Datei angehängt)",
        f"14.02.19, 09:33 - {LRM}Jonas hat Mia hinzugefügt.",
    )
    chat = _parse(text)
    assert _rows(chat) == [
        (datetime(2019, 2, 14, 9, 30), "Jonas", "[document: Mietvertrag.pdf] Mietvertrag Entwurf"),
        (datetime(2019, 2, 14, 9, 31), "Jonas", "Kannst du das lesen?"),
        (datetime(2019, 2, 14, 9, 32), "Mia", "[image]"),
    ]  # "X hat Y hinzugefügt" is WhatsApp's own line
    assert chat.group_system_lines


def test_marks_and_byte_order_marks_anywhere_in_a_header() -> None:
    text = lines(
        f"[{BOM}14.02.19, 09:30:12] Jonas: vor dem Datum",
        f"{BOM}{BOM}[14.02.19, 09:31:00] Mia: vor der Klammer",
        f"{LRM}[15.0{LRM}2.19,{LRM} 10:00:00{LRM}] {LRM}Jonas{LRM}: mitten im{BOM} Text",
        f"[15.02.19, 10:01:00] Mia:{LRM} nach dem Doppelpunkt",
    )
    chat = _parse(text)
    assert chat.platform == "ios"
    assert _rows(chat) == [
        (datetime(2019, 2, 14, 9, 30, 12), "Jonas", "vor dem Datum"),
        (datetime(2019, 2, 14, 9, 31), "Mia", "vor der Klammer"),
        (datetime(2019, 2, 15, 10, 0), "Jonas", "mitten im Text"),
        (datetime(2019, 2, 15, 10, 1), "Mia", "nach dem Doppelpunkt"),
    ]
    assert chat.notes == [] and chat.errors == []


# --- clocks ----------------------------------------------------------------------------------


def test_hour_zero_am_and_afternoon_hours_pm_are_24_hour_hours() -> None:
    text = lines(
        f"[1/29/19, 11:59:03{NNBSP}PM] Ravi: late",
        f"[1/29/19, 23:59:30{NNBSP}PM] Ravi: very late",
        f"[1/30/19, 00:10:03{NNBSP}AM] Ravi: after midnight",
        f"[1/30/19, 12:20:00{NNBSP}AM] Ravi: twelve AM is midnight too",
        f"[1/30/19, 13:05:00{NNBSP}AM] Ravi: 13 AM is no time",
    )
    chat = _parse(text)
    assert _rows(chat) == [
        (datetime(2019, 1, 29, 23, 59, 3), "Ravi", "late"),
        (datetime(2019, 1, 29, 23, 59, 30), "Ravi", "very late"),
        (datetime(2019, 1, 30, 0, 10, 3), "Ravi", "after midnight"),
        (
            datetime(2019, 1, 30, 0, 20),
            "Ravi",
            "twelve AM is midnight too\n"
            f"[1/30/19, 13:05:00{NNBSP}AM] Ravi: 13 AM is no time".replace(NNBSP, " "),
        ),
    ]
    assert chat.notes == [
        "line 5: the date or time is impossible; kept as text of the message before"
    ]


def test_finnish_dotted_times_and_the_word_klo() -> None:
    text = lines(
        "13.6.2018 klo 21.25.15 - Aino: ensimmäinen",
        "14.06.18 08.05.00: Eero: toinen",
        "14.06.2018, 08.06 - Aino: ilman sekunteja",
    )
    chat = _parse(text)
    assert (chat.platform, chat.date_order) == ("android", "dmy")
    assert _rows(chat) == [
        (datetime(2018, 6, 13, 21, 25, 15), "Aino", "ensimmäinen"),
        (datetime(2018, 6, 14, 8, 5), "Eero", "toinen"),
        (datetime(2018, 6, 14, 8, 6), "Aino", "ilman sekunteja"),
    ]


# --- media, edits and deletions in every language ------------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("<Medien ausgeschlossen>", "[media]"),
        ("<Medien ausgelassen>", "[media]"),
        ("Bild weggelassen", "[image]"),
        ("<Anhang: 00000004-PHOTO-2024-03-14-10-00-00.jpg>", "[image]"),
        ("Angebot.pdf (Datei angehängt)\nAngebot Küche", "[document: Angebot.pdf] Angebot Küche"),
        (
            "Standort: https://maps.google.com/?q=1.5,2.5",
            "[location] https://maps.google.com/?q=1.5,2.5",
        ),
        ("Live-Standort wird geteilt.", "[location]"),
        ("<Archivo omitido>", "[media]"),
        ("<Multimedia omitido>", "[media]"),
        ("video omitido", "[video]"),
        ("IMG-20240314-WA0003.jpg (archivo adjunto)", "[image]"),
        ("<Médias omis>", "[media]"),
        ("PTT-20240314-WA0005.opus (fichier joint)", "[voice message]"),
        ("<Mídia oculta>", "[media]"),
        ("Orçamento.xlsx (arquivo anexado)", "[document: Orçamento.xlsx]"),
        ("<Media omessi>", "[media]"),
        ("Preventivo.pdf (file allegato)", "[document: Preventivo.pdf]"),
        ("<Media weggelaten>", "[media]"),
        ("Offerte.docx (bestand bijgevoegd)", "[document: Offerte.docx]"),
        ("<メディアなし>", "[media]"),
        (".jpg (ファイル添付)", "[image]"),
        ("Bis morgen <Diese Nachricht wurde bearbeitet>", "Bis morgen"),
        ("Hasta luego <Se editó este mensaje.>", "Hasta luego"),
        # a Mac writes "ä" as "a" + U+0308: matched, and the name given composed
        ("Angeha\u0308ngt.pdf (Datei angeha\u0308ngt)", "[document: Angeh\u00e4ngt.pdf]"),
    ],
)
def test_media_markers_and_edit_tags_in_other_languages(body: str, expected: str) -> None:
    first, *rest = body.split("\n")
    chat = _parse(lines(f"14/03/2024, 10:00 - Noor: {LRM}{first}", *rest))
    assert [m.text for m in chat.messages] == [expected]
    assert chat.messages[0].is_media == expected.startswith("[")


@pytest.mark.parametrize(
    "body",
    [
        "Diese Nachricht wurde gelöscht",
        "Du hast diese Nachricht gelöscht.",
        "Se eliminó este mensaje.",
        "Eliminaste este mensaje.",
        "Ce message a été supprimé",
        "Esta mensagem foi apagada",
        "Questo messaggio è stato eliminato",
        "Dit bericht is verwijderd",
        "Nachrichten und Anrufe sind Ende-zu-Ende-verschlüsselt. Niemand außerhalb dieses Chats "
        "kann sie lesen.",
        "Los mensajes y las llamadas están cifrados de extremo a extremo. Nadie fuera de este chat "
        "puede leerlos.",
        "Les messages et les appels sont chiffrés de bout en bout.",
    ],
)
def test_deleted_messages_and_notices_in_other_languages_are_skipped(body: str) -> None:
    chat = _parse(lines(f"14/03/2024, 10:00 - Noor: {body}", "15/03/2024, 10:00 - Noor: hola"))
    assert [m.text for m in chat.messages] == ["hola"]


def test_group_system_lines_in_other_languages() -> None:
    android = lines(
        '14.03.24, 10:00 - Jonas hat die Gruppe "Garten: Plan" erstellt.',
        "14.03.24, 10:01 - Jonas hat Mia hinzugefügt.",
        "14.03.24, 10:02 - Mia: Hallo!",
        "15.03.24, 10:03 - Du hast die Gruppe verlassen.",
    )
    chat = _parse(android)
    assert (_rows(chat), chat.group_system_lines) == (
        [(datetime(2024, 3, 14, 10, 2), "Mia", "Hallo!")],
        True,
    )
    ios = lines(
        f"[14/03/2024, 10:00:00] Viaje: {LRM}Lucía añadió a Pablo",
        f"[14/03/2024, 10:01:00] Viaje: {LRM}Pablo salió del grupo",
        f"[14/03/2024, 10:02:00] Lucía: {LRM}Llamada perdida",
        "[15/03/2024, 10:03:00] Lucía: Lucía añadió a Pablo a la lista",
    )
    chat = _parse(ios)
    assert _rows(chat) == [
        (datetime(2024, 3, 15, 10, 3), "Lucía", "Lucía añadió a Pablo a la lista")
    ]
    assert chat.group_system_lines


def test_what_only_marked_lines_mean_stays_a_message_when_a_person_types_it() -> None:
    text = lines(
        f"[14/03/2024, 10:00:00] Trip: {LRM}Nora added Leo",
        "[14/03/2024, 10:01:00] Leo: Nora added Leo",
        f"[14/03/2024, 10:02:00] Leo: {LRM}Missed voice call",
        "[15/03/2024, 10:03:00] Nora: Missed voice call, can you try again?",
    )
    assert _rows(_parse(text)) == [
        (datetime(2024, 3, 14, 10, 1), "Leo", "Nora added Leo"),
        (datetime(2024, 3, 15, 10, 3), "Nora", "Missed voice call, can you try again?"),
    ]


@pytest.mark.parametrize(
    ("file_name", "expected"),
    [
        ("WhatsApp Chat with Nora.txt", "Nora"),
        ("WhatsApp Chat mit Jonas Weber.txt", "Jonas Weber"),
        ("WhatsApp-Chat mit Jonas.txt", "Jonas"),
        ("Chat de WhatsApp con Lucía.txt", "Lucía"),
        ("Discussion WhatsApp avec Élodie.txt", "Élodie"),
        ("Conversa do WhatsApp com João.txt", "João"),
        ("Chat WhatsApp con Giorgio.txt", "Giorgio"),
        ("WhatsApp-chat met Femke.txt", "Femke"),
        ("WhatsApp_Chat_with_Nora.txt", "Nora"),
        ("WhatsApp Chat mit Jonas (2).txt", "Jonas"),
    ],
)
def test_chat_name_prefixes_of_every_language(file_name: str, expected: str) -> None:
    assert chat_name_from_filename(Path(file_name)) == expected


def test_every_language_file_has_the_same_whatsapp_table() -> None:
    tables = raw_table("whatsapp")
    assert set(tables) == set(LANGUAGES)
    keys = set(tables["es"])
    assert {"omitted", "attached", "deleted", "notices", "group_events", "chat_prefixes"} <= keys
    for code, table in tables.items():
        extra = {"month_first_regions", "other"} if code == "en" else set()
        assert set(table) == keys | extra, code
        assert set(table["omitted"]) == set(tables["en"]["omitted"]), code
        assert all(table[key] for key in ("chat_prefixes", "attached", "deleted", "notices")), code


# --- the date order --------------------------------------------------------------------------


def test_values_decide_without_a_note() -> None:
    chat = _parse(lines("[3/9/24, 8:15:03 PM] Ravi: one", "[3/25/24, 8:15:03 PM] Ravi: two"))
    assert (chat.date_order, chat.notes) == ("mdy", [])


def test_the_sequence_decides_and_says_so() -> None:
    text = lines(
        "01/02/24, 10:00 - Ravi: one",
        "02/02/24, 10:00 - Ravi: two",
        "01/03/24, 10:00 - Ravi: three",
    )
    chat = _parse(text)
    assert (chat.date_order, chat.notes) == (
        "dmy",
        [
            "dates read day-first (every date fits both orders; only day-first keeps them in "
            "sequence)"
        ],
    )


def test_uk_ios_export_with_every_day_under_13_is_read_day_first() -> None:
    # The same day all along: the sequence cannot tell; an English 12-hour clock is no hint.
    text = lines(
        f"[05/12/2024, 8:10:23{NNBSP}AM] Priya: Morning!",
        f"[05/12/2024, 8:12:47{NNBSP}AM] Tom: Morning 🌞",
        f"[05/12/2024, 6:30:19{NNBSP}PM] Priya: Dinner at 7",
    )
    chat = _parse(text, user_locale="en_US")
    assert chat.date_order == "dmy"
    assert chat.messages[0].time == datetime(2024, 12, 5, 8, 10, 23)
    assert chat.notes == [
        "dates read day-first (the file could not tell; from its zero-padded dates, which "
        "month-first (US) phones do not write)"
    ]


def test_dates_in_attachment_names_decide() -> None:
    text = lines(
        "3/9/24, 8:15 PM - Ravi: IMG-20240903-WA0001.jpg (file attached)",
        "3/9/24, 8:16 PM - Ravi: nice, right?",
    )
    chat = _parse(text, user_locale="en_US")
    assert chat.messages[0].time == datetime(2024, 9, 3, 20, 15)
    assert chat.notes == [
        "dates read day-first (the file could not tell; from the dates in attachment names)"
    ]


def test_the_chats_language_decides() -> None:
    text = lines(
        "5/3/24, 14:05 - Lucía: <Multimedia omitido>",
        "5/3/24, 14:06 - Lucía: ¿La viste?",
    )
    chat = _parse(text, user_locale="en_US")
    assert chat.messages[0].time == datetime(2024, 3, 5, 14, 5)
    assert chat.notes == [
        "dates read day-first (the file could not tell; from the chat's language: Spanish)"
    ]


def test_us_style_dates_and_clock_read_month_first() -> None:
    text = lines(
        f"[3/9/24, 8:15:03{NNBSP}PM] Ravi: Call me", f"[3/9/24, 9:00:00{NNBSP}PM] Ravi: ok"
    )
    chat = _parse(text, user_locale="en_GB")
    assert chat.messages[0].time == datetime(2024, 3, 9, 20, 15, 3)
    assert chat.notes == [
        "dates read month-first (the file could not tell; from its US-style dates and clock "
        "(3/9/24, 8:15 PM))"
    ]


AMBIGUOUS = lines("3/9/24, 14:05 - Ravi: one", "3/9/24, 14:06 - Ravi: two")


@pytest.mark.parametrize(
    ("user_locale", "order", "why"),
    [
        ("en_US.UTF-8", "mdy", "from this computer's locale: en_US"),
        ("en_GB", "dmy", "from this computer's locale: en_GB"),
        ("de", "dmy", "from this computer's locale: de"),
    ],
)
def test_the_users_locale_decides_last(user_locale: str, order: str, why: str) -> None:
    chat = _parse(AMBIGUOUS, user_locale=user_locale)
    word = {"dmy": "day-first", "mdy": "month-first"}[order]
    assert (chat.date_order, chat.notes) == (
        order,
        [f"dates read {word} (the file could not tell; {why})"],
    )


def test_nothing_tells_reads_day_first_and_says_so() -> None:
    chat = _parse(AMBIGUOUS, user_locale="")
    assert chat.date_order == "dmy"
    assert chat.notes == [
        "dates read day-first (the file could not tell, nor could this computer's locale; as "
        "most of the world)"
    ]


def test_the_locale_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_TIME", raising=False)
    monkeypatch.setenv("LANG", "en_PH.UTF-8")
    chat = parse_chat(AMBIGUOUS, chat_name="Test")
    assert chat.date_order == "mdy"
    assert chat.notes == [
        "dates read month-first (the file could not tell; from this computer's locale: en_PH)"
    ]


def test_a_day_that_is_its_months_number_needs_no_note() -> None:
    chat = _parse(lines("1/1/21, 12:00 - Ravi: Happy new year", "1/1/21, 12:01 - Noor: 🎉"))
    assert (chat.messages[0].time, chat.notes) == (datetime(2021, 1, 1, 12, 0), [])


def test_a_german_ios_export_with_a_bom_inside_the_bracket(tmp_path: Path) -> None:
    path = tmp_path / "WhatsApp Chat mit Gartenfreunde.txt"
    path.write_text(
        lines(
            f"[{BOM}09.01.18, 12:24:03] Nachrichten und Anrufe sind Ende-zu-Ende-verschlüsselt.",
            f"{BOM}{BOM}[09.01.18, 12:24:05] Du hast die Gruppe „Gartenfreunde“ erstellt.",
            f"{BOM}[09.01.18, 12:26:03] Ole: Test{BOM} test",
            f"{BOM}[09.01.18, 11:46:03 PM] Ida: {LRM}<Anhang: Gartenplan.pdf>",
            f"{BOM}[09.01.18, 11:47:03 PM] Ole: Bild weggelassen",
        ),
        encoding="utf-8",
    )
    chat = load_export(path)
    assert (chat.name, chat.platform, chat.group_system_lines) == ("Gartenfreunde", "ios", True)
    assert _rows(chat) == [
        (datetime(2018, 1, 9, 12, 26, 3), "Ole", "Test test"),
        (datetime(2018, 1, 9, 23, 46, 3), "Ida", "[document: Gartenplan.pdf]"),
        (datetime(2018, 1, 9, 23, 47, 3), "Ole", "[image]"),
    ]
    assert chat.notes == [
        "dates read day-first (the file could not tell; from the chat's language: German)"
    ]
