"""Every email event through TIC's own deciding without a model
(``TriageDecider.decide_in_code``: the compiled rule lines, then the built-in heuristics, as
``tic`` previews and the runner does on a tiny model), with an empty rules file and with one
holding an Always line about someone else; scored against the fixtures' labels."""

from __future__ import annotations

import re
from datetime import timedelta

from engine.triage.decider import TriageDecider
from tests.sources.real_fixtures.mailtext import MailItem
from tests.sources.real_fixtures.report import Origin, Section, origin_of, short

RULES = {
    "empty": "",
    "always": "# Notification preferences\n\n## Always notify\n- Emails from Mario\n",
}
SPAM_REASON = re.compile(r"spam|phish|scam", re.IGNORECASE)


def group_of(item: MailItem, origin: Origin) -> str:
    """spamassassin-spam, other-spam (labelled by its project's path), spamassassin-ham, other."""
    spamassassin = origin.repository == "apache/spamassassin" or "spamassassin/" in item.rel
    if origin.labelled_spam:
        return "spamassassin-spam" if spamassassin else "other-spam"
    return "spamassassin-ham" if spamassassin else "other"


def run_spam(items: list[MailItem], origins: dict[str, Origin], section: Section) -> None:
    decided = [i for i in items if i.event is not None]
    groups = {i.rel: group_of(i, origin_of(origins, i.rel.split("#")[0])) for i in decided}
    for name in ("spamassassin-spam", "other-spam", "spamassassin-ham", "other"):
        section.add(f"{name}:events", f"{name} events", sum(g == name for g in groups.values()))
    others = sorted(rel for rel, g in groups.items() if g == "other-spam")
    if others:
        section.notes.append("other-spam (labelled by their path): " + ", ".join(others))
    pool = []
    for item in decided:
        assert item.event is not None
        pool.append((item.event, item.event.time + timedelta(minutes=1)))  # judged on arrival
    for rules_name, text in RULES.items():
        try:
            verdicts = TriageDecider.decide_in_code(pool, text)
        except Exception as exc:
            section.failed(f"(rules: {rules_name})", exc)
            continue
        for name in ("spamassassin-spam", "other-spam"):
            chosen = [
                (i, v) for i, v in zip(decided, verdicts, strict=True) if groups[i.rel] == name
            ]
            notified = [(i, v) for i, v in chosen if v.notify]
            silenced = [(i, v) for i, v in chosen if not v.notify]
            said = sum(1 for _, v in silenced if SPAM_REASON.search(v.reason))
            prefix = f"{rules_name}:{name}"
            section.add(
                f"{prefix}:notified", f"[{rules_name} rules] {name} notified", len(notified)
            )
            section.add(
                f"{prefix}:silenced", f"[{rules_name} rules] {name} silenced", len(silenced)
            )
            section.add(
                f"{prefix}:said_spam",
                f"[{rules_name} rules]   silenced with a spam/phishing/scam reason",
                said,
            )
            for item, verdict in notified:
                section.problem(
                    f"[{item.via}] {item.rel}",
                    f"{name} notified ({rules_name} rules)",
                    short(verdict.reason, 90),
                )
        for name in ("spamassassin-ham", "other"):
            count = sum(
                1
                for i, v in zip(decided, verdicts, strict=True)
                if groups[i.rel] == name and v.notify
            )
            section.add(
                f"{rules_name}:{name}:notified", f"[{rules_name} rules] {name} notified", count
            )
