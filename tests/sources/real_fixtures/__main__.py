"""``python -m tests.sources.real_fixtures FOLDER [--json] [--only ...]``: see the package
docstring for what is measured."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from tests.sources.real_fixtures.gcal import run_calendar
from tests.sources.real_fixtures.mail import email_files, run_gmail, run_imap
from tests.sources.real_fixtures.mailtext import MailItem, check_texts
from tests.sources.real_fixtures.report import (
    Report,
    Section,
    captured_log,
    code_version,
    read_origins,
)
from tests.sources.real_fixtures.spam import run_spam
from tests.sources.real_fixtures.whatsapp import run_whatsapp

PARTS = ("imap", "gmail", "whatsapp", "gcal")


async def measure(root: Path, parts: Sequence[str], code: str = "") -> Report:
    report = Report(str(root), code)
    origins = read_origins(root)
    mail: list[MailItem] = []
    with tempfile.TemporaryDirectory(prefix="tic-real-fixtures-") as tmp, captured_log() as log:
        work = Path(tmp)
        if "imap" in parts:
            section = Section("imap", "IMAP", "Dovecot APPEND → ImapSource → sync_once → store")
            report.sections.append(section)
            try:
                mail += await run_imap(root, list(email_files(root)), work, section)
            except Exception as exc:
                section.failed("(IMAP run)", exc)
            log.report_to(section)
        if "gmail" in parts:
            how = "fake Gmail history messageAdded → GmailSource → sync_once → store"
            section = Section("gmail", "Gmail", how)
            report.sections.append(section)
            files = sorted((root / "gmail").rglob("*.json")) if (root / "gmail").is_dir() else []
            try:
                mail += await run_gmail(root, files, work, section)
            except Exception as exc:
                section.failed("(Gmail run)", exc)
            log.report_to(section)
        if mail:
            how = "the stored IMAP and Gmail events vs the files' own MIME parts"
            section = Section("email_text", "Email text", how)
            report.sections.append(section)
            check_texts(mail, section)
            how = "TriageDecider.decide_in_code: compiled rules, then heuristics; no model"
            section = Section("spam", "Spam (TIC's triage)", how)
            report.sections.append(section)
            run_spam(mail, origins, section)
        if "whatsapp" in parts:
            how = "one export per folder → WhatsAppExportSource → sync_once → store"
            section = Section("whatsapp", "WhatsApp exports", how)
            report.sections.append(section)
            try:
                await run_whatsapp(root, work, log, section)
            except Exception as exc:
                section.failed("(WhatsApp run)", exc)
        if "gcal" in parts:
            how = "fake Calendar changes → CalendarSource (incremental) → sync_once → store"
            section = Section("gcal", "Google Calendar", how)
            report.sections.append(section)
            try:
                await run_calendar(root, work, section)
            except Exception as exc:
                section.failed("(Calendar run)", exc)
            log.report_to(section)
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.sources.real_fixtures",
        description="Measure how real data written by other projects goes through TIC.",
    )
    parser.add_argument("folder", type=Path, help="the real-fixtures folder (with SOURCES.md)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--only", help=f"comma-separated parts to run ({','.join(PARTS)}; default all)"
    )
    args = parser.parse_args(argv)
    parts = [p.strip() for p in args.only.split(",")] if args.only else list(PARTS)
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        parser.error(f"unknown part(s): {', '.join(unknown)}")
    if not args.folder.is_dir():
        parser.error(f"{args.folder} is not a folder")
    code = code_version(Path(__file__).resolve().parents[3])
    report = asyncio.run(measure(args.folder.resolve(), parts, code))
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        print(report.render())
    return 0


if __name__ == "__main__":
    sys.exit(main())
