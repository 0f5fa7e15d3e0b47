#!/usr/bin/env python3
"""Stdlib-only validator for devset-18 (cases.jsonl, labels.jsonl, rules-*.md).

Usage: python3 validate.py   (run from anywhere; paths are relative to this file)
Prints statistics and finally "OK", or lists every problem and exits 1.
"""

import json
import os
import re
import sys
from collections import Counter
from datetime import datetime

HERE = os.path.dirname(os.path.abspath(__file__))
errors = []


def err(where, msg):
    errors.append(f"{where}: {msg}")


def parse_ts(where, name, value):
    if not isinstance(value, str):
        err(where, f"{name} must be a string, got {type(value).__name__}")
        return None
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        err(where, f"{name} is not ISO-8601: {value!r}")
        return None
    if dt.tzinfo is None or dt.utcoffset() is None:
        err(where, f"{name} has no UTC offset: {value!r}")
        return None
    return dt


SOURCES = {"email", "whatsapp", "calendar"}
TYPES = {
    "email": {"email.received"},
    "whatsapp": {"whatsapp.message"},
    "calendar": {"calendar.created", "calendar.updated", "calendar.cancelled", "calendar.reminder"},
}
ID_RE = {
    "email": re.compile(r"^gmail:[0-9a-f]{16}$"),
    "whatsapp": re.compile(r"^whatsapp:3EB0[0-9A-F]{16}$"),
    "calendar": re.compile(r"^gcal:[A-Za-z0-9_]+:\d{8}T\d{6}Z$"),
}
EVENT_FIELDS = [
    "id",
    "source",
    "event_type",
    "time",
    "sender",
    "subject",
    "text",
    "chat",
    "mentions_me",
    "labels",
    "headers",
    "calendar",
    "refs",
]
CAL_FIELDS = [
    "start",
    "end",
    "created",
    "updated",
    "recurring",
    "recurrence",
    "status",
    "organizer",
    "attendees",
    "location",
]
LANGS = {"en", "es", "de", "fr", "pt", "it"}
DECIDED = {"always", "never", "custom", "heuristic"}


def check_person(where, name, p, allow_null):
    if p is None:
        if not allow_null:
            err(where, f"{name} must not be null")
        return
    if not isinstance(p, dict):
        err(where, f"{name} must be an object or null")
        return
    for k in ("name", "address"):
        if k not in p:
            err(where, f"{name}.{k} missing")
        elif not isinstance(p[k], str) or not p[k]:
            err(where, f"{name}.{k} must be a non-empty string")


def check_event(where, ev, now):
    if not isinstance(ev, dict):
        err(where, "event must be an object")
        return None
    for f in EVENT_FIELDS:
        if f not in ev:
            err(where, f"event.{f} missing")
    extra = set(ev) - set(EVENT_FIELDS)
    if extra:
        err(where, f"unexpected event fields {sorted(extra)}")
    src = ev.get("source")
    if src not in SOURCES:
        err(where, f"bad source {src!r}")
        return None
    if ev.get("event_type") not in TYPES[src]:
        err(where, f"event_type {ev.get('event_type')!r} not valid for source {src}")
    eid = ev.get("id")
    if not isinstance(eid, str) or not ID_RE[src].match(eid):
        err(where, f"id {eid!r} does not match the {src} id format")
    t = parse_ts(where, "event.time", ev.get("time"))
    if t and now and t > now:
        err(where, f"event.time {ev['time']} is after now {now.isoformat()}")
    check_person(where, "sender", ev.get("sender"), allow_null=True)
    if ev.get("subject") is not None and not isinstance(ev.get("subject"), str):
        err(where, "subject must be string or null")
    if not isinstance(ev.get("text"), str):
        err(where, "text must be a string")
    if not isinstance(ev.get("mentions_me"), bool):
        err(where, "mentions_me must be a bool")
    labels = ev.get("labels")
    if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
        err(where, "labels must be a list of strings")
    headers = ev.get("headers")
    if not isinstance(headers, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
    ):
        err(where, "headers must be an object of string values")
    refs = ev.get("refs")
    if not isinstance(refs, dict) or not refs:
        err(where, "refs must be a non-empty object")

    chat = ev.get("chat")
    if src == "whatsapp":
        if not isinstance(chat, dict):
            err(where, "chat must be an object for WhatsApp")
        else:
            for k, typ in (("id", str), ("name", str), ("is_group", bool)):
                if not isinstance(chat.get(k), typ):
                    err(where, f"chat.{k} must be {typ.__name__}")
            cid = chat.get("id", "")
            if isinstance(cid, str):
                if chat.get("is_group") is True and not re.match(r"^\d+@g\.us$", cid):
                    err(where, f"group chat id {cid!r} should end in @g.us")
                if chat.get("is_group") is False and not re.match(r"^\d+@s\.whatsapp\.net$", cid):
                    err(where, f"direct chat id {cid!r} should end in @s.whatsapp.net")
        if ev.get("sender") is None:
            err(where, "WhatsApp message needs a sender")
    elif chat is not None:
        err(where, "chat must be null outside WhatsApp")

    c = ev.get("calendar")
    if src == "calendar":
        if not isinstance(c, dict):
            err(where, "calendar must be an object for calendar events")
        else:
            for k in CAL_FIELDS:
                if k not in c:
                    err(where, f"calendar.{k} missing")
            ts = {
                k: parse_ts(where, f"calendar.{k}", c.get(k))
                for k in ("start", "end", "created", "updated")
            }
            if ts["start"] and ts["end"] and ts["end"] < ts["start"]:
                err(where, "calendar.end before start")
            if ts["created"] and ts["updated"] and ts["updated"] < ts["created"]:
                err(where, "calendar.updated before created")
            if ts["updated"] and now and ts["updated"] > now:
                err(where, "calendar.updated after now")
            if not isinstance(c.get("recurring"), bool):
                err(where, "calendar.recurring must be bool")
            rec = c.get("recurrence")
            if not isinstance(rec, list) or not all(
                isinstance(x, str) and x.startswith("RRULE:") for x in rec
            ):
                err(where, "calendar.recurrence must be a list of RRULE strings")
            elif bool(rec) != bool(c.get("recurring")):
                err(where, "calendar.recurring disagrees with recurrence")
            if not isinstance(c.get("status"), str):
                err(where, "calendar.status must be a string")
            elif (ev.get("event_type") == "calendar.cancelled") != (c.get("status") == "cancelled"):
                err(where, "calendar.status must be 'cancelled' exactly for calendar.cancelled")
            check_person(where, "calendar.organizer", c.get("organizer"), allow_null=False)
            att = c.get("attendees")
            if not isinstance(att, list) or not all(
                isinstance(a, dict) and isinstance(a.get("address"), str) for a in att
            ):
                err(where, "calendar.attendees must be a list of {address}")
            if c.get("location") is not None and not isinstance(c.get("location"), str):
                err(where, "calendar.location must be string or null")
            if "previous_start" in c:
                parse_ts(where, "calendar.previous_start", c["previous_start"])
            if isinstance(eid, str) and ts["updated"]:
                compact = (
                    ts["updated"]
                    .astimezone(__import__("datetime").timezone.utc)
                    .strftime("%Y%m%dT%H%M%SZ")
                )
                if not eid.endswith(":" + compact):
                    err(
                        where,
                        f"gcal id suffix should be calendar.updated in compact UTC ({compact})",
                    )
    elif c is not None:
        err(where, "calendar must be null outside calendar events")
    return src


def load_jsonl(name):
    path = os.path.join(HERE, name)
    rows = []
    if not os.path.exists(path):
        err(name, "file missing")
        return rows
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                err(f"{name}:{n}", "blank line")
                continue
            try:
                rows.append((n, json.loads(line)))
            except json.JSONDecodeError as e:
                err(f"{name}:{n}", f"invalid JSON: {e}")
    return rows


def main():
    cases = load_jsonl("cases.jsonl")
    labels = load_jsonl("labels.jsonl")
    rules_files = {
        fn[len("rules-") : -3]
        for fn in os.listdir(HERE)
        if fn.startswith("rules-") and fn.endswith(".md")
    }
    seen = {}
    case_by_id = {}
    used_rules = Counter()
    src_count = Counter()
    notify = 0
    for n, c in cases:
        where = f"cases.jsonl:{n}"
        if not isinstance(c, dict):
            err(where, "line is not an object")
            continue
        if set(c) != {"rules", "now", "event", "notify"}:
            err(where, f"keys must be rules, now, event, notify (got {sorted(c)})")
        rid = c.get("rules")
        if not isinstance(rid, str) or rid not in rules_files:
            err(where, f"rules id {rid!r} has no rules-{rid}.md")
        else:
            used_rules[rid] += 1
        if not isinstance(c.get("notify"), bool):
            err(where, "notify must be a bool")
        elif c["notify"]:
            notify += 1
        now = parse_ts(where, "now", c.get("now"))
        src = check_event(where, c.get("event"), now)
        if src:
            src_count[src] += 1
        eid = (c.get("event") or {}).get("id") if isinstance(c.get("event"), dict) else None
        if eid is not None:
            if eid in seen:
                err(where, f"duplicate id {eid} (first at line {seen[eid]})")
            seen[eid] = n
            case_by_id[eid] = c
    for rid in sorted(rules_files - set(used_rules)):
        err(f"rules-{rid}.md", "rules file not used by any case")
    for rid in rules_files:
        with open(os.path.join(HERE, f"rules-{rid}.md"), encoding="utf-8") as f:
            if not f.read().strip():
                err(f"rules-{rid}.md", "empty rules file")

    label_ids = set()
    for n, label in labels:
        where = f"labels.jsonl:{n}"
        if not isinstance(label, dict):
            err(where, "line is not an object")
            continue
        for k in ("id", "rules", "notify", "lang", "why", "decided_by"):
            if k not in label:
                err(where, f"{k} missing")
        lid = label.get("id")
        if lid in label_ids:
            err(where, f"duplicate label id {lid}")
        label_ids.add(lid)
        c = case_by_id.get(lid)
        if c is None:
            err(where, f"label id {lid} has no case")
            continue
        if label.get("rules") != c.get("rules"):
            err(where, "rules differs from the case")
        if label.get("notify") is not c.get("notify"):
            err(where, "notify differs from the case")
        if label.get("lang") not in LANGS:
            err(where, f"lang {label.get('lang')!r} not in {sorted(LANGS)}")
        if label.get("decided_by") not in DECIDED:
            err(where, f"decided_by {label.get('decided_by')!r} not in {sorted(DECIDED)}")
        if not isinstance(label.get("why"), str) or not label["why"].strip():
            err(where, "why must be a non-empty string")
    for eid in set(case_by_id) - label_ids:
        err("labels.jsonl", f"case {eid} has no label")

    total = len(cases)
    if total:
        print(
            f"cases: {total}  rules files: {len(rules_files)}  "
            f"notify: {notify} ({notify / total:.1%})"
        )
        print(
            "sources: "
            + ", ".join(f"{k} {v} ({v / total:.1%})" for k, v in sorted(src_count.items()))
        )
        print("per rules file: " + ", ".join(f"{k}={v}" for k, v in sorted(used_rules.items())))
        langs = Counter(label.get("lang") for _, label in labels if isinstance(label, dict))
        print("message languages: " + ", ".join(f"{k}={v}" for k, v in sorted(langs.items())))
        dec = Counter(label.get("decided_by") for _, label in labels if isinstance(label, dict))
        print("decided_by: " + ", ".join(f"{k}={v}" for k, v in sorted(dec.items())))
    if errors:
        for e in errors:
            print("ERROR", e)
        print(f"{len(errors)} problem(s)")
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
