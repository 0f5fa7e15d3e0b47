"""``tic-desktop history`` for a person: each message on its line, and under a notification
reply what arrived, what TIC decided and why, as TIC composed it. The machinery stays out:
the synthetic turn that reads the notifications (its canned reasoning and raw tool result,
which the lines under the reply say in words), tool calls as JSON, a model's reasoning.
``--json`` keeps the rows whole for programs."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from engine.engine import tool_labels


def history_lines(rows: list[dict[str, Any]]) -> Iterator[str]:
    """The lines for the history's ``rows`` (``Engine.history``), oldest first."""
    for row in rows:
        if row["is_synthetic"] and not row["content"].strip():
            continue  # reading the notifications: the reply's lines below say what arrived
        yield from _message(row)


def _message(row: Mapping[str, Any]) -> Iterator[str]:
    when = row["created_at"][:16].replace("T", " ")
    tags = "".join(
        f" ({tag})"
        for tag, shown in (
            ("composed from the facts", row.get("composed")),
            ("delivered without the model", row.get("fallback")),
        )
        if shown
    )
    calls = [(c["name"], c.get("arguments") or {}, c["status"]) for c in row["tool_calls"]]
    labels = tool_labels(calls)
    content = str(row["content"]).strip()
    if not content and not row.get("why"):
        # a step that only used tools: what it changed is the entry ("Rule added to …")
        if labels:
            yield f"[{when}] {row['role']}{tags}: {'; '.join(labels)}"
        return
    yield f"[{when}] {row['role']}{tags}: {content}"
    for label in labels:
        yield f"    \u00b7 {label}"
    if row.get("replaced"):
        yield f"    replaced the model's reply: {'; '.join(row['replaced'])}"
    for why in row.get("why", []):
        yield f"    {_arrived(why)}"
        if why.get("notes"):  # cut on arrival; the originals are kept in the store
            yield f"    on arrival: {'; '.join(why['notes'])}"


def _arrived(why: Mapping[str, Any]) -> str:
    """What arrived and why TIC told you: "Marco wrote on WhatsApp: “…”. Notified: matches
    the Always rule “…”" (the rule named again only where the reason does not quote it)."""
    summary = str(why.get("summary") or "A message.").strip()
    reason = str(why.get("reason") or "").strip()
    rule = str(why.get("rule") or "").strip()
    said = f"{summary} Notified: {reason}" if reason else f"{summary} Notified."
    return f"{said} (rule: {rule})" if rule and rule not in reason else said
