"""The digest's answer in the question's language, composed from the ``digest`` tool's
result (``engine.chat.digest.Digest``) with the ``[replies]`` templates:

    Since 08:10: 14 messages, 2 worth your attention:
    - Iris Vale (email, 07:01): “Lease renewal” — asks “Can you sign it by Friday?”
    - Noor (WhatsApp, 07:09): “The parcel is at the door”

    12 more: 5 newsletters, 3 receipts, 2 from GitHub and 2 from Odile Brandt.

Names, subjects and quotes are the events' own (markdown escaped); counts are counted."""

from __future__ import annotations

import json
from datetime import datetime

from engine.chat.calendar_answer import span_words
from engine.chat.compose import escape, short
from engine.chat.days import Period
from engine.chat.digest import Digest, DigestRequest, Group, Told
from engine.chat.replies import WEEK, Words, upper_first, words

GROUPS_SHOWN = 6  # groups of the rest named; the others are counted together
SUBJECT_CHARS = 80
TEXT_CHARS = 90


def _period_heading(w: Words, period: Period | None, digest: Digest, now: datetime) -> str:
    if period is None:
        if digest.looked in ("digest", "message"):
            return w.since(datetime.fromisoformat(digest.since), now)
        return w.text("last_day")
    if period.name == "since" and period.day is not None:
        recent = 0 < (now.date() - period.day).days <= WEEK
        shown = w.weekday(period.day) if recent else w.full_date(period.day)
        return w.text("since_day", date=shown)
    if period.name == "yesterday" and period.part is None:
        return w.heading("yesterday")
    return upper_first(span_words(w, period, heading=True))


def _quote(w: Words, text: str, limit: int) -> str:
    return w.quote(escape(short(text, limit)))


def _what(w: Words, told: Told, now: datetime) -> str:
    parts = []
    if told.subject:
        parts.append(_quote(w, told.subject, SUBJECT_CHARS))
    if told.source == "calendar" and told.start:
        parts.append(w.moment(datetime.fromisoformat(told.start), now))
    elif told.asks:
        parts.append(w.text("asks", quote=_quote(w, told.asks, TEXT_CHARS + 40)))
    elif told.text and told.text != told.subject:
        parts.append(_quote(w, told.text, TEXT_CHARS))
    return " — ".join(parts)


def _line(w: Words, told: Told, now: datetime) -> str:
    fields = {
        "who": escape(told.who) or "…",
        "source": w.source(told.source),
        "when": w.moment(datetime.fromisoformat(told.time), now),
        "what": _what(w, told, now),
    }
    if told.chat:
        line = w.text("line_in_chat", chat=escape(told.chat), **fields)
    else:
        line = w.text("line", **fields)
    return line.rstrip(": ").rstrip()


def _group(w: Words, group: Group) -> str:
    if group.kind is not None and group.kind in w.kinds():
        return w.kind(group.kind, group.count)
    if group.chat is not None:
        return w.text("in_chat", count=group.count, chat=escape(group.chat))
    return w.text("from", count=group.count, who=escape(group.who or "…"))


def _groups(w: Words, digest: Digest) -> str:
    shown = [_group(w, g) for g in digest.rest[:GROUPS_SHOWN]]
    hidden = sum(g.count for g in digest.rest[GROUPS_SHOWN:])
    if hidden:
        shown.append(w.counted("others", hidden))
    if digest.unchecked:
        shown.append(w.counted("unchecked", digest.unchecked))
    return w.join(shown)


def digest_answer(request: DigestRequest, digest: Digest, now: datetime) -> str:
    """The digest, worded in the request's language."""
    w = words(request.language)
    period = _period_heading(w, request.period, digest, now)
    if digest.total == 0:
        return w.text("nothing_new", period=period)
    messages = w.number("messages", digest.total)
    if digest.told_total == 0:
        return w.text("heading_none", period=period, messages=messages, groups=_groups(w, digest))
    worth = w.pair("worth")[0 if digest.told_total == 1 else 1]
    head = w.text("heading", period=period, messages=messages, count=digest.told_total, worth=worth)
    lines = [head, *(f"- {_line(w, t, now)}" for t in digest.told)]
    if digest.told_total > len(digest.told):
        lines.append(w.text("listed_more", count=digest.told_total - len(digest.told)))
    rest = digest.rest_total + digest.unchecked
    if rest:
        lines += ["", w.counted("more", rest, groups=_groups(w, digest))]
    return "\n".join(lines)


def digest_reply(request: DigestRequest, status: str, result: str, now: datetime) -> str:
    """The answer from the ``digest`` tool's outcome (a failure said as it is)."""
    if status != "done":
        return f"I couldn't gather what arrived: {result}"
    try:
        digest = Digest.from_json(json.loads(result))
    except (ValueError, KeyError, TypeError):
        return f"I couldn't read what the digest look-up returned: {short(result, 200)}"
    return digest_answer(request, digest, now)
