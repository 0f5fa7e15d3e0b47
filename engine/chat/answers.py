"""Chat answers composed in code: from what a tool returned (a rule added, a reminder set, a
look-up's results), a write proposed for the user's yes, and the fixed words for what a small
model cannot do. Every sentence is built from the facts (a tool's result, the user's own
words) or is fixed text, so no model-written sentence is shown as fact.

Pure functions: no store, no model, no clock (``now`` is given, in the user's zone)."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from typing import Any

from engine.chat.replies import words as reply_words
from engine.triage.rules.edit import SECTION_TITLES
from engine.triage.rules.parse import ALWAYS, NEVER

# The examples the first-run welcome offers and "help" lists: each is recognised in code
# (tests/chat/test_answers.py checks it), so it works on any model.
EXAMPLE_PROMPTS = (
    "Stop telling me about LinkedIn",
    "What's on my calendar tomorrow?",
    "Remind me at 17:00 to call Mario",
    "What did I miss?",
)
WHAT_WORKS = (
    ("change your notification rules", EXAMPLE_PROMPTS[0]),
    ("look at your calendar on any day", EXAMPLE_PROMPTS[1]),
    ("set a reminder", EXAMPLE_PROMPTS[2]),
    ("find what someone wrote", "What did Mario write?"),
    ("catch up on what arrived", EXAMPLE_PROMPTS[3]),
)
WAY_OUT = "Settings → Model"
ASK = " Shall I? (yes/no)"
DECLINED = "Okay — I left everything as it was."
NOTHING_PENDING = "There's nothing waiting for a yes or no."
THANKS = "You're welcome."

QUOTE_CHARS = 120  # of an event's text quoted in a look-up's answer
SOURCE_WORDS = {
    "email": "Email",
    "whatsapp": "WhatsApp",
    "calendar": "Calendar",
    "cron": "Reminder",
}
# First words of a rule that read as ordinary words mid-sentence ("about emails from Mario").
COMMON_WORDS = frozenset(
    [
        "emails",
        "email",
        "mails",
        "mail",
        "messages",
        "message",
        "texts",
        "calls",
        "group",
        "groups",
        "meetings",
        "meeting",
        "events",
        "newsletters",
        "newsletter",
        "notifications",
        "updates",
        "news",
        "invitations",
        "invites",
        "promotions",
        "marketing",
        "reminders",
        "anything",
        "everything",
        "all",
    ]
)
COUNT_WORDS = {1: "once", 2: "twice", 3: "three times", 4: "four times", 5: "five times"}


# --- small pieces -----------------------------------------------------------------------


def _one_line(value: object, limit: int = 200) -> str:
    text = " ".join(str(value or "").split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _section_title(section: object) -> str:
    titles = {str(key): title for key, title in SECTION_TITLES.items()}
    return titles.get(str(section), str(section))


def _sentence(text: str) -> str:
    """A clause ending with one full stop."""
    text = text.strip()
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def _about(rule: str) -> str:
    """A rule as the object of a sentence: "Emails from Mario" → "emails from Mario"."""
    first = rule.split(" ", 1)[0]
    return rule[:1].lower() + rule[1:] if first.lower() in COMMON_WORDS else rule


def _yours(text: str) -> str:
    """The user's words said back to them: "call my mother" → "call your mother"."""
    swaps = {"my": "your", "me": "you", "i": "you", "mine": "yours", "myself": "yourself"}
    return re.sub(
        r"\b(my|me|i|mine|myself)\b",
        lambda m: swaps[m.group(1).lower()],
        text,
        flags=re.I,
    )


def local_moment(value: object, now: datetime) -> datetime | None:
    """An ISO time from a tool's result in the zone of ``now`` (a time without an offset is
    read in it); None when there is none or it is no time."""
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=now.tzinfo)
    return moment.astimezone(now.tzinfo)


def _day_start(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def _clock(moment: datetime) -> str:
    return f"{moment:%H:%M}"


def _day(moment: datetime, now: datetime) -> str:
    """ "today", "tomorrow", "yesterday", "Tuesday" within the week ahead, else "Tue 3 Dec"."""
    days = (moment.date() - now.date()).days
    if days == 0:
        return "today"
    if days == 1:
        return "tomorrow"
    if days == -1:
        return "yesterday"
    if 1 < days < 7:
        return f"{moment:%A}"
    return f"{moment:%a} {moment.day} {moment:%b}"


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def _count(n: int) -> str:
    return COUNT_WORDS.get(n, f"{n} times")


def _bullets(lines: list[str]) -> str:
    return "\n".join(f"- {line}" for line in lines)


def _results(result: str) -> list[dict[str, Any]] | None:
    try:
        value = json.loads(result)
    except ValueError:
        return None
    if not isinstance(value, list):
        return None
    return [item for item in value if isinstance(item, dict)]


# --- what works, and what a small model cannot do ----------------------------------------


def _small_model(builtin: bool) -> str:
    return "the small built-in model" if builtin else "a small model"


def _what_works() -> str:
    return _bullets([f"{what}: “{example}”" for what, example in WHAT_WORKS])


def help_answer(*, builtin: bool = True) -> str:
    """ "hello", "help", "what can you do?" on a small model: what works, with examples."""
    return (
        "I'm TIC. I tell you about new mail, messages and calendar changes that matter to "
        "you, following your notification rules. Here you can ask me to:\n"
        f"{_what_works()}\n\n"
        f"I run on {_small_model(builtin)}, so I answer from your messages, calendar and rules "
        "only. For open questions, drafting or conversation, choose a bigger model in "
        f"{WAY_OUT}."
    )


WORKS = ("rules", "calendar", "reminder", "lookup", "digest")
"""What the chat does in code, in the order it is offered (``works_<name>`` replies)."""


def cannot_answer(*, builtin: bool = True, language: str = "en") -> str:
    """Anything else on a small model: said honestly, in the question's ``language``, with
    the way out and what works in that language (its examples are read by the chat)."""
    said_in = reply_words(language)
    works = [said_in.pair(f"works_{name}") for name in WORKS]
    listed = [
        f"{label}: {said_in.text('quote', text=example)}" for label, example in works if example
    ]
    return said_in.text(
        "cannot_answer",
        model=said_in.text("model_builtin" if builtin else "model_small"),
        page=WAY_OUT,
        works=_bullets(listed),
    )


def thanks(language: str = "en") -> str:
    return reply_words(language).text("thanks")


def nothing_pending(language: str = "en") -> str:
    return reply_words(language).text("nothing_pending")


# --- changes the user asked for ------------------------------------------------------------


def rule_answer(arguments: dict[str, Any], status: str, result: str) -> str:
    """add_notification_rule's outcome, quoting the rule as written to the user's rules."""
    rule = _one_line(arguments.get("rule")).lstrip("-*• ").strip()
    section = str(arguments.get("section", ""))
    title = _section_title(section)
    if status != "done":
        return _sentence(f"I couldn't add the rule “{rule}”: {result}")
    quoted = f"({title}: {rule})"
    if result.startswith("that rule is already"):
        return f"That rule is already in your rules {quoted}."
    read = READ_AS.search(result)
    reading = read.group(1) if read else ""
    if reading.startswith("\u26a0"):  # flagged: said as it is, never claimed as read
        why = reading[reading.find("(") + 1 : -1] if "(" in reading else "I can't read it"
        if read and read.group(4):
            return (
                f"I added your rule {quoted}, but it isn't applied: {why}. Did you mean: "
                f"{read.group(4)}? Say yes to read it that way."
            )
        return (
            f"I added your rule {quoted}, but it isn't applied: {why}. Say it another way "
            f"(for example with the sender's name or address), or edit it in {RULES_PAGE}."
        )
    understood = f" I read it as “{reading}”." if reading else ""
    if read and read.group(2):
        return (
            f"I added your rule {quoted}.{understood} But {read.group(2)}, so it waits for "
            "your yes before it applies. Apply it?"
        )
    if section == NEVER:
        return f"Done — I won't notify you about {_about(rule)} any more {quoted}.{understood}"
    if section == ALWAYS:
        return f"Done — I'll always tell you about {_about(rule)} {quoted}.{understood}"
    return f"Done — I added your rule {quoted}.{understood}"


# How add_notification_rule reports TIC's reading of the line it added.
READ_AS = re.compile(
    r"\(read as \u201c(.+?)\u201d\)(?:; held: (.+?))?(?:; suggested (sender|topic): (.+))?$"
)
RULES_PAGE = "Settings \u2192 Rules"


def silenced_answer(total: int, days: int) -> str:
    """How much a mute's rule would have silenced lately (this notification included)."""
    what = "1 notification" if total == 1 else f"{total} notifications"
    return f"In the last {days} days it would have silenced {what}."


def unidentified_answer(summary: str) -> str:
    """A notification whose sender nothing identifies: no rule could be keyed on it."""
    return (
        f"I added no rule for \u201c{_one_line(summary)}\u201d: nothing in it tells its sender "
        "apart from anyone using the same name. Add a rule yourself if you want it gone."
    )


def read_rule_answer(
    arguments: dict[str, Any],
    status: str,
    result: str,
    *,
    language: str = "en",
    reading: str | None = None,
) -> str:
    """A rule the user said in their own words, added as said: the answer quotes it and
    says how it reads, in the request's ``language`` (``reading``: the line's reading in
    that language; ``rule_answer`` for the held and flagged outcomes)."""
    read = READ_AS.search(result) if status == "done" else None
    if read is None or read.group(1).startswith("\u26a0") or read.group(2):
        return rule_answer(arguments, status, result)
    rule = _one_line(arguments.get("rule")).lstrip("-*• ").strip()
    said_in = reply_words(language)
    section = str(said_in.table["sections"].get(str(arguments.get("section", "")), ""))
    return said_in.text(
        "rule_added",
        section=section or _section_title(str(arguments.get("section", ""))),
        rule=said_in.text("quote", text=rule),
        reading=said_in.text("quote", text=reading or read.group(1)),
    )


def unread_request_answer(unread: tuple[tuple[str, str], ...], language: str = "en") -> str:
    """A rule change the reader could not read in full: nothing was changed, and why, in
    the request's ``language``."""
    said_in = reply_words(language)
    parts = [
        said_in.text("unread_part", said=said_in.text("quote", text=_one_line(said)), why=why)
        for said, why in unread
    ]
    page = str(said_in.table.get("rules_page", RULES_PAGE))
    return said_in.text("rules_unchanged", parts="; ".join(parts), page=page)


def told_answer(told: tuple[str, ...], language: str = "en") -> str:
    """What a rule change said besides the rule, named as set aside, in ``language``."""
    said_in = reply_words(language)
    quoted = ", ".join(said_in.text("quote", text=_one_line(t.rstrip(" ,;:."))) for t in told)
    return str(said_in.text("told", said=quoted))


def refused_answer(rule: str, others: int, example: str, days: int) -> str:
    """A mute rule not added because it would silence more than the muted thing."""
    what = "1 other notification" if others == 1 else f"{others} other notifications"
    return (
        f"I added no rule \u201c{_one_line(rule)}\u201d: in the last {days} days it would also "
        f"have silenced {what} (such as \u201c{_one_line(example)}\u201d). Add a rule "
        "yourself if you want all of them gone."
    )


REPEATS = {"daily": "every day", "weekdays": "every weekday", "monthly": "every month"}


def _job_when(job: dict[str, Any], now: datetime, *, today: str = "") -> str:
    """When a job runs, from its next run and repeat: "at 17:00", "tomorrow at 09:00",
    "every Monday at 09:00" (``today`` names the current day, if wanted)."""
    moment = local_moment(job.get("next_run"), now)
    if moment is None:
        return "(not scheduled)"
    clock = _clock(moment)
    repeat = job.get("repeat") or "none"
    if repeat == "weekly":
        return f"every {moment:%A} at {clock}"
    if repeat == "hourly":
        return f"every hour (next at {clock})"
    if repeat == "monthly":
        return f"every month on the {moment.day}{_ordinal(moment.day)} at {clock}"
    if repeat in REPEATS:
        return f"{REPEATS[repeat]} at {clock}"
    day = _day(moment, now)
    if day == "today":
        return f"{today} at {clock}".strip()
    if day in ("tomorrow", "yesterday"):
        return f"{day} at {clock}"
    return f"on {day} at {clock}"


def _ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def _reminder_what(text: str, said: str = "") -> str:
    """What to be reminded of, as the end of "I'll remind you at 17:00 …": "to call Mario"
    when the text starts with a plain word (as the user typed it, in ``said``), else quoted."""
    words = text.split()
    first = words[0] if words else ""
    lowered = first[:1].lower() + first[1:]
    if said:
        plain = re.search(rf"(?<![\w'’]){re.escape(lowered)}(?![\w'’])", said) is not None
    else:
        plain = len(words) > 1 and first.isalpha() and first[1:].islower()
    if not plain:
        return f": “{text}”"
    phrase = _yours(lowered + text[len(first) :])
    if lowered in ("to", "about", "that", "of"):
        return f" {phrase}"
    return f" to {phrase}"


def reminder_answer(
    arguments: dict[str, Any], status: str, result: str, now: datetime, said: str = ""
) -> str:
    """schedule_job's outcome: "I'll remind you at 17:00 to call Mario." (``said``: the
    user's request, if they asked in words)."""
    if status != "done":
        return _sentence(f"I couldn't schedule that: {result}")
    try:
        job = json.loads(result)
    except ValueError:
        return _sentence(f"Done — {result}")
    if not isinstance(job, dict) or "text" not in job:
        return _sentence(f"Done — {result}")
    when = _job_when(job, now)
    text = _one_line(job["text"])
    if job.get("kind") == "task":
        return f"Done — {when} I'll do this and tell you the result: “{text}”."
    return _sentence(f"I'll remind you {when}{_reminder_what(text, said)}")


def cancel_answer(arguments: dict[str, Any], status: str, result: str) -> str:
    if status != "done":
        return _sentence(f"I couldn't cancel it: {result}")
    return f"Done — scheduled job {arguments.get('job_id')} is cancelled."


def file_answer(arguments: dict[str, Any], status: str, result: str) -> str:
    if status != "done":
        return _sentence(f"I couldn't change the file: {result}")
    return _sentence(f"Done — {result}")


def tool_answer(
    name: str, arguments: dict[str, Any], status: str, result: str, now: datetime
) -> str:
    """The answer to a change made at the user's word, from the tool's result."""
    if name == "add_notification_rule":
        return rule_answer(arguments, status, result)
    if name == "accept_rule_reading":
        if status != "done":
            return _sentence(f"I couldn't keep that reading: {result}")
        return f"Done — “{_one_line(arguments.get('rule'))}” is read that way from the next check."
    if name == "confirm_notification_rule":
        if status != "done":
            return _sentence(f"I couldn't apply it: {result}")
        return f"Done — “{_one_line(arguments.get('rule'))}” applies from the next check."
    if name == "schedule_job":
        return reminder_answer(arguments, status, result, now)
    if name == "cancel_job":
        return cancel_answer(arguments, status, result)
    if name in ("write_file", "edit_file"):
        return file_answer(arguments, status, result)
    if status != "done":
        return _sentence(f"That didn't work: {result}")
    return _sentence(f"Done — {name}: {_one_line(result)}")


# --- writes a capable model proposes ---------------------------------------------------------


def _proposal_text(name: str, arguments: dict[str, Any]) -> str:
    if name == "add_notification_rule":
        title = _section_title(arguments.get("section"))
        return f"I'd like to add the rule “{_one_line(arguments.get('rule'))}” under {title}."
    if name == "schedule_job":
        kind = "a task" if arguments.get("kind") == "task" else "a reminder"
        repeat = arguments.get("repeat") or "none"
        again = "" if repeat == "none" else f", repeating {repeat}"
        text, at = _one_line(arguments.get("text")), _one_line(arguments.get("at"))
        return f"I'd like to set {kind} “{text}” for {at}{again}."
    if name == "cancel_job":
        return f"I'd like to cancel scheduled job {arguments.get('job_id')}."
    if name == "edit_file":
        old, new = (
            _one_line(arguments.get("old_text"), 80),
            _one_line(arguments.get("new_text"), 80),
        )
        path = _one_line(arguments.get("path"))
        return f"I'd like to change {path}: replace “{old}” with “{new}”."
    if name == "write_file":
        content = str(arguments.get("content") or "")
        path = _one_line(arguments.get("path"))
        return f"I'd like to write {path} ({len(content)} characters): “{_one_line(content, 80)}”."
    shown = _one_line(json.dumps(arguments, ensure_ascii=False), 160)
    return f"I'd like to use {name} with {shown}."


def came_from(outside: tuple[str, ...]) -> str:
    """Where the words of a change put to the user came from, when outside content holds
    them: "This came from an email by Anna Berg." (see ``engine.agent.taint``)."""
    if not outside:
        return ""
    named = list(outside[:2])
    if len(outside) > 2:
        named.append(f"{len(outside) - 2} more")
    listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
    return f"This came from {listed}."


def proposal(name: str, arguments: dict[str, Any], outside: tuple[str, ...] = ()) -> str:
    """A change a capable model chose without being asked: put to the user first, saying
    where its words came from when outside content holds them (only "yes" runs it)."""
    text = _proposal_text(name, arguments) + ASK
    return f"{came_from(outside)} {text}" if outside else text


# --- look-ups --------------------------------------------------------------------------------


def _title(event: dict[str, Any]) -> str:
    title = _one_line(event.get("subject"), 80) or "an event without a title"
    location = _one_line(event.get("location"), 60)
    return f"{title} ({location})" if location else title


def _calendar_window(period: str, now: datetime) -> tuple[datetime, datetime, str, str]:
    """The period's start and end, the answer's heading and how "nothing …" names it."""
    today = _day_start(now)
    far = now + timedelta(days=366)
    if period == "today":
        return now, today + timedelta(days=1), "Today", "today"
    if period == "tomorrow":
        return today + timedelta(days=1), today + timedelta(days=2), "Tomorrow", "tomorrow"
    if period == "this week":
        end = today + timedelta(days=7 - now.weekday())
        return now, end, "This week", "for the rest of this week"
    if period == "next week":
        start = today + timedelta(days=7 - now.weekday())
        return start, start + timedelta(days=7), "Next week", "next week"
    if period == "next":
        return now, far, "Next", "in the next two weeks"
    return now, far, "Coming up", "in the next two days"


def calendar_answer(period: str, events: list[dict[str, Any]], now: datetime) -> str:
    """upcoming_calendar's events within the period asked about: "Tomorrow: 15:00 Budget
    review." or "Nothing on your calendar tomorrow."."""
    start, end, heading, none = _calendar_window(period, now)
    inside = []
    for event in events:
        moment = local_moment(event.get("start"), now)
        if moment is not None and start <= moment < end:
            inside.append((moment, event))
    inside.sort(key=lambda pair: pair[0])
    if period == "next":
        inside = inside[:1]
    if not inside:
        return f"Nothing on your calendar {none}."
    one_day = period in ("today", "tomorrow")
    lines = []
    for moment, event in inside:
        day = "" if one_day else f"{_upper_first(_day(moment, now))} "
        lines.append(f"{day}{_clock(moment)} {_title(event)}")
    if len(lines) == 1:
        return _sentence(f"{heading}: {lines[0]}")
    return f"{heading}:\n{_bullets(lines)}"


def _event_line(event: dict[str, Any], now: datetime, *, with_sender: bool) -> str:
    moment = local_moment(event.get("time"), now)
    when = ""
    if moment is not None:
        day = _day(moment, now)
        when = _clock(moment) if day == "today" else f"{_upper_first(day)} {_clock(moment)}"
    source = SOURCE_WORDS.get(str(event.get("source")), str(event.get("source") or ""))
    sender = _one_line(event.get("from"), 60)
    chat = _one_line(event.get("chat"), 60)
    head = " ".join(p for p in (when, source) if p)
    if with_sender and sender:
        head += f" from {sender}"
    if chat and chat != sender:
        head += f" in {chat}"
    parts = []
    subject = _one_line(event.get("subject"), 80)
    if subject:
        parts.append(f"“{subject}”")
    text = _one_line(event.get("text"), QUOTE_CHARS)
    if text and text != subject:
        parts.append(text)
    return f"{head}: {' — '.join(parts)}" if parts else head


def search_answer(
    about: str, events: list[dict[str, Any]], now: datetime, *, limit: int = 5
) -> str:
    """search_events' results: "Mario Rossi wrote twice today:" and one line each."""
    if not events:
        return f"I found nothing from or about {about}." if about else "Nothing has arrived yet."
    if not about:
        lines = [_event_line(e, now, with_sender=True) for e in events]
        return f"The latest:\n{_bullets(lines)}"
    senders = {_one_line(e.get("from"), 60) for e in events}
    from_them = all(about.casefold() in s.casefold() for s in senders)
    if not from_them:
        lines = [_event_line(e, now, with_sender=True) for e in events]
        return f"What I found about {about}:\n{_bullets(lines)}"
    who = senders.pop() if len(senders) == 1 else about
    times = [local_moment(e.get("time"), now) for e in events]
    today = all(t is not None and t.date() == now.date() for t in times)
    if len(events) >= limit:
        head = f"{who}'s latest messages:"
    else:
        head = f"{who} wrote {_count(len(events))}{' today' if today else ''}:"
    lines = [_event_line(e, now, with_sender=False) for e in events]
    return f"{head}\n{_bullets(lines)}"


def jobs_answer(jobs: list[dict[str, Any]], now: datetime) -> str:
    if not jobs:
        return "You have no reminders or scheduled tasks."
    lines = []
    for job in jobs:
        kind = " (task)" if job.get("kind") == "task" else ""
        when = _job_when(job, now, today="today")
        lines.append(f"{when}: {_one_line(job.get('text'))}{kind}")
    head = "Your reminder:" if len(lines) == 1 else "Your reminders:"
    return f"{head}\n{_bullets(lines)}"


def lookup_answer(tool: str, about: str, status: str, result: str, now: datetime) -> str:
    """The answer to a look-up from its tool's result (a failure said as it is)."""
    if status != "done":
        return _sentence(f"I couldn't look that up: {result}")
    found = _results(result)
    if found is None:
        return _sentence(f"I couldn't read what the look-up returned: {_one_line(result)}")
    if tool == "upcoming_calendar":
        return calendar_answer(about, found, now)
    if tool == "list_jobs":
        return jobs_answer(found, now)
    return search_answer(about, found, now)
