"""Synthetic inboxes for the bench: a realistic mix (people writing directly, newsletters and
promotions, group chatter, calendar changes), reproducible from a seed."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

PEOPLE = ["Tomas Herrera", "Nadia Kim", "Grace Okoye", "Joana Pires", "Ravi Shah", "Lena Vogel"]
SHOPS = [("H&M", "news@email.hm.com"), ("Acme Deals", "offers@acme-deals.com")]


def mixed_events(
    count: int, *, seed: int = 1, start: datetime, notify_share: float = 0.05, prefix: str = "mix"
) -> list[dict[str, Any]]:
    """``count`` events, about ``notify_share`` of them worth a notification under the
    built-in judgement (direct mail and messages), the rest dropped by it (promotions,
    group chatter, calendar changes far ahead)."""
    rng = random.Random(seed)
    events: list[dict[str, Any]] = []
    for i in range(count):
        when = start + timedelta(seconds=i)
        base: dict[str, Any] = {"id": f"{prefix}:{seed}:{i}", "time": when.isoformat(), "refs": {}}
        roll = rng.random()
        if roll < notify_share:
            who = rng.choice(PEOPLE)
            events.append(
                base
                | {
                    "source": "email",
                    "event_type": "email.received",
                    "sender": {"name": who, "address": f"{who.split()[0].lower()}@example.org"},
                    "subject": f"Question about invoice {i}",
                    "text": "Could you have a look before Friday?",
                }
            )
        elif roll < 0.55:
            name, address = rng.choice(SHOPS)
            events.append(
                base
                | {
                    "source": "email",
                    "event_type": "email.received",
                    "sender": {"name": name, "address": address},
                    "subject": f"Members get {rng.randint(10, 60)}% off this weekend",
                    "text": "Shop the sale now. Unsubscribe at any time.",
                    "labels": ["CATEGORY_PROMOTIONS"],
                    "headers": {
                        "List-Unsubscribe": "<mailto:u@list.example>",
                        "Precedence": "bulk",
                    },
                }
            )
        elif roll < 0.9:
            who = rng.choice(PEOPLE)
            events.append(
                base
                | {
                    "source": "whatsapp",
                    "event_type": "whatsapp.message",
                    "sender": {"name": who, "address": f"+3460000{i % 10000:04d}"},
                    "text": rng.choice(["haha", "see you there", "who brings the cake?", "ok"]),
                    "chat": {"id": "family@g.us", "name": "Family", "is_group": True},
                }
            )
        else:
            begin = start + timedelta(days=40 + rng.randint(0, 30))
            events.append(
                base
                | {
                    "source": "calendar",
                    "event_type": "calendar.updated",
                    "subject": f"Quarterly planning {i}",
                    "calendar": {
                        "start": begin.isoformat(),
                        "end": (begin + timedelta(hours=1)).isoformat(),
                        "status": "confirmed",
                    },
                }
            )
    return events
