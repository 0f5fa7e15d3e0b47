"""Display names are claims, addresses are identities: a name in a rule matches an email only
together with an address that fits what is known for that name.

Anyone can send an email as "Tomas Herrera" or "My Bank". What is known about a display
name: the address or domain a rule line gives next to it ("Emails from Tomas Herrera
(tomas@vogt-roux.example)"), and the domain it was first seen writing from (in the store). An
email whose display name is known but whose address is from another domain is matched
against the rules without its display name, so no rule naming that person applies to it;
the heuristics still see it as it is, and the decision's reason says why."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from engine.events import Event
from engine.triage.classifier import words
from engine.triage.rules.compile import CompiledRule
from engine.triage.rules.vocab import STOP


def domain_of(address: str | None) -> str | None:
    if not address or "@" not in address:
        return None
    domain = address.rsplit("@", 1)[1].strip().strip(">").lower()
    return domain or None


def _fits(domain: str, known: str) -> bool:
    return domain == known or domain.endswith("." + known) or known.endswith("." + domain)


@dataclass
class KnownSenders:
    """Display names with the domains they are known to write from."""

    by_name: dict[str, set[str]] = field(default_factory=dict)  # exact display name
    by_words: list[tuple[frozenset[str], set[str]]] = field(default_factory=list)  # rules

    @classmethod
    def from_rules(
        cls, compiled: Iterable[CompiledRule], first_seen: Mapping[str, str] | None = None
    ) -> KnownSenders:
        """What the rule lines tie together (a name given with an address or a domain), and
        the domains display names were first seen with (``inbox.first_sender_domains``)."""
        known = cls({name: {domain} for name, domain in (first_seen or {}).items()})
        for rule in compiled:
            for match in (rule.scope, rule.condition):
                domains = {d.lower() for d in match.domains}
                domains |= {d for d in map(domain_of, match.addresses) if d}
                if not domains:
                    continue
                for name in match.names:
                    want = frozenset(words(name)) - STOP
                    if want:
                        known.by_words.append((want, domains))
        return known

    def domains_for(self, name: str) -> set[str]:
        found = set(self.by_name.get(name, set()))
        have = set(words(name))
        for want, domains in self.by_words:
            if want <= have:
                found |= domains
        return found

    def impostor(self, event: Event) -> str | None:
        """Why the event's display name cannot be trusted for the rules (its address is
        from another domain than the name is known to write from), else None."""
        sender = event.sender
        if event.source != "email" or sender is None or not sender.name:
            return None
        domain = domain_of(sender.address)
        known = self.domains_for(sender.name)
        if domain is None or not known or any(_fits(domain, k) for k in known):
            return None
        where = ", ".join(sorted(known))
        return (
            f"its sender name \u201c{sender.name}\u201d is known to write from {where}, not "
            f"{domain}: rules naming it were not applied"
        )


def without_name(event: Event) -> Event:
    """The event as the rules see an email whose display name is not to be trusted."""
    anonymous = event.model_copy(deep=True)
    if anonymous.sender is not None:
        anonymous.sender.name = None
    return anonymous
