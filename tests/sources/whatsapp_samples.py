"""Sample WhatsApp chat exports, one per format, built in code (the invisible characters real
exports carry, U+200E and U+202F, are spelled out so they cannot get lost in an editor)."""

from __future__ import annotations

import zipfile
from pathlib import Path

LRM = "\u200e"  # iOS marks system and media lines with it
NNBSP = "\u202f"  # iOS (and newer Android) put it between the time and AM/PM
EDITED = "<This message was edited>"
ENCRYPTED = (
    "Messages and calls are end-to-end encrypted. No one outside of this chat, not even "
    "WhatsApp, can read or listen to them. Tap to learn more."
)


def lines(*rows: str) -> str:
    return "\n".join(rows) + "\n"


# Android, 24-hour clock, day/month/2-digit year; one multi-line message, media, a deletion.
ANDROID_24H_DMY = (
    "WhatsApp Chat with Marco Rossi.txt",
    lines(
        f"12/03/24, 09:15 - {ENCRYPTED}",
        "12/03/24, 09:16 - Marco Rossi: Ciao! Are we still on for Friday?",
        "12/03/24, 09:20 - Anna: Yes, 19:30 at the usual place",
        "13/03/24, 18:02 - Marco Rossi: Great.",
        "See you there",
        "and bring the book",
        "13/03/24, 18:03 - Marco Rossi: <Media omitted>",
        "13/03/24, 18:04 - Marco Rossi: This message was deleted",
        "25/03/24, 07:45 - Marco Rossi: Running late, 10 min",
    ),
)

# Android, 12-hour clock, month/day/2-digit year, a sender known only by phone number.
ANDROID_12H_MDY = (
    "WhatsApp Chat with +1 555 010 2030.txt",
    lines(
        f"3/12/24, 9:05 AM - {ENCRYPTED}",
        "3/12/24, 9:05 AM - +1 (555) 010-2030: Hi, this is the plumber. I can come tomorrow at 10.",
        "3/12/24, 12:30 PM - Anna: OK",
        "3/13/24, 12:05 AM - +1 (555) 010-2030: Actually, make it 11",
        "3/28/24, 1:15 PM - +1 (555) 010-2030: Invoice attached",
    ),
)

# iOS, 24-hour clock in brackets, 4-digit years, U+200E marks, an edited message.
IOS_24H = (
    "WhatsApp Chat - Giulia.txt",
    lines(
        f"{LRM}[12/03/2024, 14:05:22] Giulia: {LRM}{ENCRYPTED}",
        "[12/03/2024, 14:06:01] Giulia: Did you see the email from the school?",
        "[12/03/2024, 14:07:45] Anna Bianchi: Not yet",
        f"{LRM}[13/03/2024, 08:00:10] Giulia: {LRM}image omitted",
        f"[13/03/2024, 08:01:00] Giulia: The meeting moved to Thursday {LRM}{EDITED}",
    ),
)

# iOS, 12-hour clock with U+202F before AM/PM; every date fits both orders (3/9 and 3/10).
IOS_12H = (
    "WhatsApp Chat - Dad.txt",
    lines(
        f"[3/9/24, 8:15:03{NNBSP}PM] Dad: {LRM}{ENCRYPTED}",
        f"[3/9/24, 8:15:03{NNBSP}PM] Dad: Call me when you land",
        f"[3/9/24, 11:59:59{NNBSP}PM] Anna: Landed",
        f"[3/10/24, 12:00:30{NNBSP}AM] Dad: 👍",
        f"{LRM}[3/10/24, 7:02:11{NNBSP}AM] Dad: {LRM}Missed voice call",
        f"[3/10/24, 10:00:00{NNBSP}AM] Dad: Lunch?",
    ),
)

# Group chat (Android) with @-mentions by name and by phone number; dates fit both orders,
# only day-first keeps them in chronological order.
ANDROID_GROUP = (
    "WhatsApp Chat with Book club.txt",
    lines(
        '01/02/2024, 18:00 - Marco created group "Book club"',
        "01/02/2024, 18:00 - Marco added Anna, Luca and Sara",
        f"01/02/2024, 18:01 - {ENCRYPTED}",
        "01/02/2024, 18:05 - Marco: Welcome everyone! First book: Dune",
        "02/02/2024, 09:10 - Luca: @Anna can you bring your copy?",
        "02/02/2024, 09:12 - Sara: I'll read it on the train",
        "02/02/2024, 09:15 - Anna: Sure",
        "01/03/2024, 20:00 - Marco: @393331234567 reminder: meeting tomorrow",
        "01/03/2024, 20:01 - Luca: @Annalisa not you, the other Anna",
        '01/03/2024, 20:02 - Sara changed the subject from "Book club" to "Book club: Dune"',
    ),
)

# iOS group export full of system lines: they come with the group's name as their sender.
IOS_SYSTEM_HEAVY = (
    "WhatsApp Chat - Family.txt",
    lines(
        f"[01/02/2024, 10:00:00] Family: {LRM}{ENCRYPTED}",
        f"{LRM}[01/02/2024, 10:00:00] Family: {LRM}Mum created group “Family”",
        f"{LRM}[01/02/2024, 10:00:01] Family: {LRM}Mum added you",
        f"{LRM}[01/02/2024, 10:01:00] Family: {LRM}Mum changed the group description",
        f"{LRM}[02/02/2024, 11:00:00] Family: {LRM}Dad joined using this group's invite link",
        f"{LRM}[02/02/2024, 11:05:00] Dad: {LRM}This message was deleted.",
        f"{LRM}[02/02/2024, 11:06:00] Family: {LRM}Your security code with Dad changed.",
        "[02/02/2024, 11:07:00] Mum: Dinner at 8 on Sunday",
        f"{LRM}[03/02/2024, 09:00:00] Family: {LRM}Mum changed the subject to “Family ❤️”",
        f"{LRM}[03/02/2024, 09:30:00] Dad: {LRM}Missed voice call",
        f"{LRM}[13/02/2024, 09:31:00] Family: {LRM}Dad left",
    ),
)

# Identical messages in the same minute must stay distinct.
REPEATS_V1 = lines(
    "12/03/24, 09:16 - Marco: ok",
    "12/03/24, 09:16 - Marco: ok",
    "12/03/24, 09:17 - Anna: ok?",
)
REPEATS_V2 = REPEATS_V1 + lines(
    "12/03/24, 09:17 - Marco: ok",
    "13/03/24, 10:00 - Marco: ok",
    "13/03/24, 10:01 - Marco: Second export: new message",
)

# iOS .zip export: _chat.txt plus media files.
IOS_ZIP_CHAT = lines(
    f"[12/03/2024, 10:00:00] Luca: {LRM}{ENCRYPTED}",
    f"[12/03/2024, 10:00:05] Luca: {LRM}<attached: 00000003-PHOTO-2024-03-12-10-00-00.jpg>",
    "[12/03/2024, 10:01:00] Luca: Look at this view!",
    f"[12/03/2024, 10:02:00] Luca: {LRM}<attached: 00000005-Contract draft.pdf>",
    f"[12/03/2024, 10:03:00] Luca: {LRM}<attached: 00000006-AUDIO-2024-03-12-10-03-00.opus>",
    f"{LRM}[13/03/2024, 10:04:00] Luca: {LRM}video omitted",
)

# Android .zip export "with media": media lines name the file, the caption follows.
ANDROID_ZIP_CHAT = lines(
    "14/03/2024, 10:00 - Sara: IMG-20240314-WA0001.jpg (file attached)",
    "The new kitchen!",
    "14/03/2024, 10:01 - Sara: PTT-20240314-WA0002.opus (file attached)",
    "14/03/2024, 10:02 - Sara: Budget.xlsx (file attached)",
    "14/03/2024, 10:03 - Anna: Looks great",
)

BINARY = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00" + bytes(range(256))
NOT_AN_EXPORT = "Shopping list\n- milk\n- eggs\n"


def write_text(folder: Path, sample: tuple[str, str]) -> Path:
    name, text = sample
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def write_ios_zip(folder: Path, name: str = "WhatsApp Chat - Luca.zip") -> Path:
    path = folder / name
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("_chat.txt", IOS_ZIP_CHAT)
        archive.writestr("00000003-PHOTO-2024-03-12-10-00-00.jpg", b"\xff\xd8\xff\xe0fake")
        archive.writestr("00000005-Contract draft.pdf", b"%PDF-1.4 fake")
    return path


def write_android_zip(folder: Path, name: str = "WhatsApp Chat with Sara.zip") -> Path:
    path = folder / name
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("WhatsApp Chat with Sara.txt", ANDROID_ZIP_CHAT)
        archive.writestr("IMG-20240314-WA0001.jpg", b"\xff\xd8\xff\xe0fake")
        archive.writestr("PTT-20240314-WA0002.opus", b"OggSfake")
    return path


def write_zip_without_chat(folder: Path, name: str = "WhatsApp Chat - Empty.zip") -> Path:
    path = folder / name
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("IMG-1.jpg", b"\xff\xd8")
    return path


# A group export to damage on purpose (tests/sources/test_whatsapp_failures.py): Android,
# day-first with days over 12 (no single damaged line can change the date order), text
# continuation lines that never start with a digit, accents and emoji (multi-byte UTF-8).
FUZZ_BASE = lines(
    f"14/03/2024, 09:00 - {ENCRYPTED}",
    '14/03/2024, 09:01 - Irene created group "Allotment"',
    "14/03/2024, 09:01 - Irene added Tomasz and Priya",
    "14/03/2024, 09:05 - Irene: Welcome to the allotment chat 🌱",
    "14/03/2024, 09:06 - Tomasz: Thanks! Who has the shed key?",
    "15/03/2024, 18:20 - Priya: I do, until Sunday",
    "Then it goes back under the pot",
    "15/03/2024, 18:22 - Irene: IMG-20240315-WA0001.jpg (file attached)",
    "The new raised beds",
    f"16/03/2024, 07:45 - Tomasz: {LRM}Beetplan.pdf (Datei angehängt)",
    "Beetplan für März",
    "16/03/2024, 07:46 - Tomasz: <Media omitted>",
    "17/03/2024, 12:00 - Priya: Café after the work party? ☕",
    "17/03/2024, 12:02 - Irene: Yes, at the usual place",
    "17/03/2024, 12:03 - Tomasz: This message was deleted",
    "18/03/2024, 08:30 - Irene: Water the seedlings, it will be hot",
    "19/03/2024, 21:10 - Priya: Done ✅",
    "20/03/2024, 06:55 - Tomasz: Slugs got the lettuce again",
    "We need copper tape",
    "and maybe beer traps",
    "21/03/2024, 17:40 - Irene: I'll bring tape on Saturday",
    "22/03/2024, 10:15 - Priya: Zoë can lend us her wheelbarrow",
    "23/03/2024, 09:00 - Tomasz: Here at 9",
    "23/03/2024, 09:01 - Irene: On my way",
    "24/03/2024, 19:30 - Priya: Great work everyone 💪",
    "25/03/2024, 08:00 - Tomasz: Rain all week, no watering needed",
)
FUZZ_HEADER = r"^\d\d/\d\d/\d{4}, \d\d:\d\d - "
