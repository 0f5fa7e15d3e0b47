"""Turning "Don't notify me about this" into a well-formed Never-notify rule.

The rule names what identifies this kind of event (the sender, the group, the calendar
event), so the next tick drops its like and nothing else."""

from __future__ import annotations

from engine.events import Event


def _quoted(text: str | None, limit: int = 80) -> str:
    text = " ".join((text or "").split())
    return f"\u201c{text[:limit]}\u201d"


def never_rule_for(event: Event) -> str:
    sender = event.sender
    name = (sender.name or "").strip() if sender else ""
    address = (sender.address or "").strip() if sender else ""
    if event.source == "email":
        bulk = bool(
            event.headers.get("List-Unsubscribe")
            or event.headers.get("Precedence", "").lower() in ("bulk", "list")
        )
        what = "Newsletters and promotions" if bulk else "Emails"
        if name and address:
            return f"{what} from {name} ({address})"
        return f"{what} from {name or address or 'this sender'}"
    if event.source == "whatsapp":
        if event.chat and event.chat.is_group and event.chat.name:
            return f"WhatsApp messages in the {_quoted(event.chat.name)} group"
        who = name or (event.chat.name if event.chat else "") or address
        return f"WhatsApp messages from {who or 'this contact'}"
    if event.source == "calendar":
        title = _quoted(event.subject)
        return {
            "calendar.reminder": f"Reminders for the calendar event {title}",
            "calendar.updated": f"Changes to the calendar event {title}",
            "calendar.cancelled": f"Cancellations of the calendar event {title}",
        }.get(event.event_type, f"New calendar invitations titled {title}")
    return f"{event.source} events like {_quoted(event.subject or event.text)}"
