"""Display names are claims, addresses are identities: a name in a rule matches an email only
together with an address that fits what is known for that name.

Anyone can send an email as "Tomas Herrera" or "My Bank". What is known about a display
name: the address or domain a rule line gives next to it ("Emails from Tomas Herrera
(tomas@vogt-roux.example)"), and the domain it was first seen writing from (in the store). An
email whose display name is known but whose address is from another domain is matched
against the rules without its display name, so no rule naming that person applies to it;
and it is not notified: a message that borrows the name of someone the rules single out is
the classic impersonation (a "new bank details" mail from the accountant's look-alike
domain). The same holds on WhatsApp for a name the rules give with a phone number: a push
name is chosen by whoever sends. The decision's reason says why, and how to say it is
really them (add the address or the number to the line).

Names are compared by their words, folded, so case, accents, spacing, an added title or
"(Accountant)" or "via DocuSign", or "Herrera, Tomas" change nothing."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from engine.events import Event
from engine.triage.classifier import words
from engine.triage.classifier.text import registrable
from engine.triage.rules.compile import CompiledRule
from engine.triage.rules.match import digits
from engine.triage.rules.vocab import STOP


def domain_of(address: str | None) -> str | None:
    if not address or "@" not in address:
        return None
    domain = address.rsplit("@", 1)[1].strip().strip(">").lower()
    return domain or None


def _fits(domain: str, known: str) -> bool:
    """The address's domain is the known one, a subdomain of it, or of the same registered
    domain ("mail.vogt.example" for "vogt.example"); never a bare suffix ("es")."""
    if domain == known or domain.endswith("." + known):
        return True
    return "." in domain and registrable(domain) == registrable(known)


def _name_words(name: str) -> frozenset[str]:
    return frozenset(words(name)) - STOP


@dataclass
class KnownSenders:
    """Display names with the domains they are known to write from."""

    by_name: dict[str, set[str]] = field(default_factory=dict)  # exact display name
    by_words: list[tuple[frozenset[str], set[str]]] = field(default_factory=list)  # rules
    numbers: list[tuple[frozenset[str], set[str]]] = field(default_factory=list)
    """Names the rules give with a phone number, and its digits ("+491715550392")."""

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
                numbers = {a for a in match.addresses if a.startswith("+")}
                for name in match.names:
                    want = _name_words(name)
                    if want and domains:
                        known.by_words.append((want, domains))
                    if want and numbers:
                        known.numbers.append((want, numbers))
        return known

    def stated(self, event: Event) -> bool:
        """The rules themselves give the address or number of the name this event bears."""
        name = event.sender.name if event.sender else None
        if not name:
            return False
        have = set(words(name))
        return any(want <= have for want, _ in (*self.by_words, *self.numbers))

    def domains_for(self, name: str) -> set[str]:
        found = set(self.by_name.get(name, set()))
        have = set(words(name))
        for known, domains in self.by_name.items():
            want = _name_words(known)
            if len(want) >= 2 and want <= have:  # a full name, however it is written
                found |= domains
        for want, domains in self.by_words:
            if want <= have:
                found |= domains
        return found

    def numbers_for(self, name: str) -> set[str]:
        have = set(words(name))
        return {n for want, numbers in self.numbers if want <= have for n in numbers}

    def impostor(self, event: Event) -> str | None:
        """Why the event's display name cannot be trusted for the rules (its address is
        from another domain than the name is known to write from), else None."""
        sender = event.sender
        if sender is None or not sender.name:
            return None
        if event.source == "whatsapp":
            return self._number_impostor(event)
        if event.source != "email":
            return None
        domain = domain_of(sender.address)
        known = self.domains_for(sender.name)
        if domain is None or not known or any(_fits(domain, k) for k in known):
            return None
        where = ", ".join(sorted(known))
        return (
            f"the sender name \u201c{sender.name}\u201d is known to write from {where}, not "
            f"from {domain}"
        )

    def _number_impostor(self, event: Event) -> str | None:
        sender = event.sender
        assert sender is not None and sender.name
        known = self.numbers_for(sender.name)
        if not known:
            return None
        own = {digits(sender.address or "")}
        if event.chat is not None and not event.chat.is_group:
            own.add(digits((event.chat.id or "").split("@")[0]))
        if any(n[1:] in own for n in known):
            return None
        where = ", ".join(sorted(known))
        return (
            f"the name \u201c{sender.name}\u201d is given in the rules with {where}, and this "
            "message comes from another number"
        )


def without_name(event: Event) -> Event:
    """The event as the rules see an email whose display name is not to be trusted."""
    anonymous = event.model_copy(deep=True)
    if anonymous.sender is not None:
        anonymous.sender.name = None
    return anonymous
