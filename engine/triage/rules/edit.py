"""Editing ``data/notifications.md``: add a bullet under the right section, creating the
file or the section when missing, never duplicating a rule, keeping the user's own text. The
file is written through :class:`~engine.workspace.rulesfile.RulesFile` (atomic, through a
link, the permissions kept); a file saved by another program meanwhile is read again and the
rule added to what it holds now."""

from __future__ import annotations

from engine.triage.rules.parse import ALWAYS, CUSTOM, NEVER, Section, classify_heading, parse_rules
from engine.workspace.rulesfile import RulesFile

SECTION_TITLES: dict[Section, str] = {
    ALWAYS: "Always notify",
    NEVER: "Never notify",
    CUSTOM: "Custom rules",
}
TEMPLATE = "# Notification preferences\n\n## Always notify\n\n## Never notify\n\n## Custom rules\n"


def add_rule(rules: RulesFile, section: str, rule: str) -> bool:
    """Add ``- rule`` at the end of ``section`` ("always", "never" or "custom"); False when
    an identical rule is there. Raises ValueError for an empty rule or an unknown section,
    a TicError when the file cannot be read, OSError when it cannot be written."""
    rule = " ".join(rule.split()).lstrip("-*• ").strip()
    if not rule:
        raise ValueError("the rule is empty")
    chosen = _section(section)
    return rules.update(lambda text: with_rule(text, chosen, rule)) is not None


def with_rule(text: str, chosen: Section, rule: str) -> str | None:
    """``text`` with ``- rule`` added at the end of its section (None: it is there)."""
    if not text.strip():
        text = TEMPLATE
    existing = parse_rules(text)
    if any(r.section == chosen and r.text.lower() == rule.lower() for r in existing.rules):
        return None
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
    return "\n".join(lines) + "\n"


def remove_rule(rules: RulesFile, section: str, rule: str) -> bool:
    """Take the line ``- rule`` out of ``section``; False when no such line is there.
    Raises ValueError for an unknown section, a TicError when the file cannot be read,
    OSError when it cannot be written."""
    chosen = _section(section)
    wanted = " ".join(rule.split()).lstrip("-*• ").strip()
    return rules.update(lambda text: without_rule(text, chosen, wanted)) is not None


def without_rule(text: str, chosen: Section, rule: str) -> str | None:
    """``text`` without the line whose rule is ``rule`` in section ``chosen`` (None: there
    is none); every other line is kept as the user wrote it."""
    found = next(
        (r for r in parse_rules(text).rules if r.section == chosen and r.text == rule), None
    )
    lines = text.splitlines()
    if found is None or _bare(lines[found.line_number - 1]) != _bare(rule):
        return None  # not there, or one sentence of a paragraph: not this writer's to cut
    del lines[found.line_number - 1]
    return "\n".join(lines) + "\n"


def _bare(line: str) -> str:
    return " ".join(line.split()).lstrip("-*•+ ").strip()


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
