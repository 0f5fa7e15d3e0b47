#!/usr/bin/env python3
"""Validate cases.jsonl against the canonical event format (stdlib only).

Usage: python3 validate.py [DIR]   (DIR defaults to this file's directory)
"""

import collections
import json
import os
import re
import sys
from datetime import datetime

DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
OFFSET = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?(\.\d+)?([+-]\d\d:\d\d|Z)$")
FIELDS = [
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
TYPES = {
    "email": {"email.received"},
    "whatsapp": {"whatsapp.message"},
    "calendar": {"calendar.created", "calendar.updated", "calendar.cancelled", "calendar.reminder"},
}
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
errors = []


def ts(value, where):
    if not isinstance(value, str) or not OFFSET.match(value):
        errors.append(f"{where}: time without an explicit offset: {value!r}")
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


ids = set()
count = collections.Counter()
notify = collections.Counter()
with open(os.path.join(DIR, "cases.jsonl"), encoding="utf-8") as fh:
    for n, line in enumerate(fh, 1):
        where = f"line {n}"
        try:
            case = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"{where}: not JSON: {exc}")
            continue
        if sorted(case) != ["event", "notify", "now", "rules"]:
            errors.append(f"{where}: keys {sorted(case)}")
            continue
        if not os.path.exists(os.path.join(DIR, f"rules-{case['rules']}.md")):
            errors.append(f"{where}: no rules-{case['rules']}.md")
        if not isinstance(case["notify"], bool):
            errors.append(f"{where}: notify is not a bool")
        now = ts(case["now"], where + " now")
        ev = case["event"]
        missing = [f for f in FIELDS if f not in ev]
        if missing:
            errors.append(f"{where}: event lacks {missing}")
            continue
        where = f"line {n} ({ev['id']})"
        if ev["id"] in ids:
            errors.append(f"{where}: duplicate id")
        ids.add(ev["id"])
        if ev["event_type"] not in TYPES.get(ev["source"], ()):
            errors.append(f"{where}: {ev['source']} / {ev['event_type']}")
        t = ts(ev["time"], where + " time")
        if t and now and t > now:
            errors.append(f"{where}: event time after now")
        s = ev["sender"]
        if s is not None and not (isinstance(s, dict) and set(s) == {"name", "address"}):
            errors.append(f"{where}: sender {s!r}")
        if not isinstance(ev["text"], str) or not isinstance(ev["mentions_me"], bool):
            errors.append(f"{where}: text/mentions_me types")
        if (
            not isinstance(ev["labels"], list)
            or not isinstance(ev["headers"], dict)
            or not isinstance(ev["refs"], dict)
        ):
            errors.append(f"{where}: labels/headers/refs types")
        if ev["source"] == "whatsapp":
            c = ev["chat"]
            if not (isinstance(c, dict) and {"id", "name", "is_group"} <= set(c)):
                errors.append(f"{where}: whatsapp event without chat")
            elif ev["mentions_me"] and not c["is_group"]:
                errors.append(f"{where}: mention outside a group")
            if ev["subject"] is not None:
                errors.append(f"{where}: whatsapp subject should be null")
        elif ev["chat"] is not None or ev["mentions_me"]:
            errors.append(f"{where}: chat/mentions_me on a non-whatsapp event")
        if ev["source"] == "calendar":
            c = ev["calendar"]
            if not isinstance(c, dict) or any(f not in c for f in CAL_FIELDS):
                errors.append(f"{where}: calendar object incomplete")
            else:
                for f in ("start", "end", "created", "updated") + (
                    ("previous_start",) if "previous_start" in c else ()
                ):
                    ts(c[f], f"{where} calendar.{f}")
                if ts(c["end"], where) <= ts(c["start"], where):
                    errors.append(f"{where}: end before start")
                if ts(c["created"], where) > ts(c["updated"], where):
                    errors.append(f"{where}: created after updated")
                if (ev["event_type"] == "calendar.cancelled") != (c["status"] == "cancelled"):
                    errors.append(f"{where}: status vs event_type")
                if "previous_start" in c and ev["event_type"] != "calendar.updated":
                    errors.append(f"{where}: previous_start on a non-update")
        elif ev["calendar"] is not None:
            errors.append(f"{where}: calendar object on a non-calendar event")
        if ev["source"] == "email" and (not ev["sender"] or "@" not in ev["sender"]["address"]):
            errors.append(f"{where}: email sender without an address")
        count[case["rules"]] += 1
        notify[case["rules"]] += case["notify"]

for f in sorted(os.listdir(DIR)):
    if f.startswith("rules-") and f.endswith(".md") and f[6:-3] not in count:
        errors.append(f"{f}: no cases use it")
for rid in sorted(count):
    print(f"{rid:14} {count[rid]:4} cases, {notify[rid]:3} notify")
total, yes = sum(count.values()), sum(notify.values())
print(f"total {total} cases, {yes} notify ({100 * yes / total:.1f} %), {len(count)} rules files")
if errors:
    print("\n".join(errors))
    sys.exit(1)
print("OK")
