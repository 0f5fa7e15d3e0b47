"""Editing ``data/notifications.md``: add a bullet under the right section, creating the
file or the section when missing, never duplicating a rule, keeping the user's own text."""

from __future__ import annotations

from pathlib import Path

from engine.fsutil import atomic_write
from engine.triage.rules.parse import ALWAYS, CUSTOM, NEVER, Section, classify_heading, parse_rules

SECTION_TITLES: dict[Section, str] = {
    ALWAYS: "Always notify",
    NEVER: "Never notify",
    CUSTOM: "Custom rules",
}
TEMPLATE = "# Notification preferences\n\n## Always notify\n\n## Never notify\n\n## Custom rules\n"


def add_rule(path: Path, section: str, rule: str) -> bool:
    """Add ``- rule`` at the end of ``section`` ("always", "never" or "custom"); False when
    an identical rule is there."""
    rule = " ".join(rule.split()).lstrip("-*• ").strip()
    if not rule:
        raise ValueError("the rule is empty")
    chosen = _section(section)
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if not text.strip():
        text = TEMPLATE
    existing = parse_rules(text)
    if any(r.section == chosen and r.text.lower() == rule.lower() for r in existing.rules):
        return False
    lines = text.splitlines()
    start = _section_start(lines, chosen)
    if start is None:
        if lines and lines[-1].strip():
            lines.append("")
        lines += [f"## {SECTION_TITLES[chosen]}", f"- {rule}"]
    else:
        end = start + 1
        while end < len(lines) and not lines[end].lstrip().startswith("#"):
            end += 1
        insert_at = end
        while insert_at > start + 1 and not lines[insert_at - 1].strip():
            insert_at -= 1
        lines.insert(insert_at, f"- {rule}")
        if insert_at + 1 < len(lines) and lines[insert_at + 1].lstrip().startswith("#"):
            lines.insert(insert_at + 1, "")
    atomic_write(path, "\n".join(lines) + "\n")
    return True


def _section(name: str) -> Section:
    for section in SECTION_TITLES:
        if section == name:
            return section
    raise ValueError(f"section must be one of {', '.join(SECTION_TITLES)}")


def _section_start(lines: list[str], section: Section) -> int | None:
    for i, line in enumerate(lines):
        title = line.strip().lstrip("#").strip()
        if line.strip().startswith("#") and title and classify_heading(title) == section:
            return i
    return None
