"""Display names are claims, addresses are identities: a name in a rule matches a message
only together with an address that fits what is known for that name.

Anyone can send an email as "Tomas Herrera" or "My Bank", or pick "Marco" as a WhatsApp
push name. What is known about a display name, in this order: what the user told TIC (the
address, domain or number a rule line gives next to it: "Emails from Tomas Herrera
(tomas@vogt-roux.example)"), and failing that, the store's history: the domain (for email)
or number (WhatsApp) the name has written from most often (at least twice, and more than
from anywhere else), never merely first: a spoofer who writes before the real person does
not make the real person "the impostor", and while two are level neither is. A message
whose display name is known but whose address is from elsewhere is matched against the
rules without its display name, so no rule naming that person applies to it; and it is not
notified: a message that borrows the name of someone the rules single out is the classic
impersonation. The decision's reason says why, and how
to say it is really them (add the address or the number to the line).

Names are compared by their words, folded, so case, accents, spacing, an added title or
"(Accountant)" or "via DocuSign", or "Herrera, Tomas" change nothing."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from engine.events import Event
from engine.triage.classifier import words
from engine.triage.classifier.text import registrable
from engine.triage.rules.compile import CompiledRule
from engine.triage.rules.match import Match, digits
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


def _given_with(name: str, match: Match) -> tuple[set[str], set[str]]:
    """The domains and numbers a line gives with ``name``: all of them when it names no one
    else; in a list of several people ("the café's suppliers, Serra Azul and Boa Vista; Júlia
    (julia@…)"), only an address that bears the name's own words, so that no one else on
    the list is taken for an impersonator of it."""
    domains = {d.lower() for d in match.domains}
    numbers = {a for a in match.addresses if a.startswith("+")}
    emails = [a for a in match.addresses if "@" in a]
    if len(match.names) > 1:
        said = _name_words(name)
        emails = [a for a in emails if said & set(words(a.replace(".", " ").replace("@", " ")))]
        domains = {d for d in domains if said & set(words(d.replace(".", " ")))}
        numbers = set()
    domains |= {d for d in map(domain_of, emails) if d}
    return domains, numbers


def _established(counts: Mapping[str, int]) -> set[str]:
    """The address a name has written from most, once its history says so: at least two
    events, and more than any other. A tie, or one event against one, says nothing: the
    first to arrive is not the owner of the name."""
    ranked = sorted(counts.items(), key=lambda kv: kv[1], reverse=True)
    if not ranked or ranked[0][1] < 2 or (len(ranked) > 1 and ranked[1][1] == ranked[0][1]):
        return set()
    return {ranked[0][0]}


@dataclass
class KnownSenders:
    """Display names with the domains and numbers they are known to write from."""

    by_name: dict[str, dict[str, int]] = field(default_factory=dict)
    """Email display names as stored → events from each domain."""
    by_words: list[tuple[frozenset[str], set[str]]] = field(default_factory=list)  # rules
    numbers: list[tuple[frozenset[str], set[str]]] = field(default_factory=list)
    """Names the rules give with a phone number, and its digits ("+491715550392")."""
    number_history: dict[str, dict[str, int]] = field(default_factory=dict)
    """WhatsApp display names as stored → events from each number (digits)."""

    @classmethod
    def from_rules(
        cls,
        compiled: Iterable[CompiledRule],
        history: Mapping[tuple[str, str], Mapping[str, int]] | None = None,
    ) -> KnownSenders:
        """What the rule lines tie together (a name given with an address or a domain), and
        the store's history of each display name (``inbox.sender_history``: events by
        address, per source and name)."""
        known = cls()
        for (source, name), addresses in (history or {}).items():
            for address, n in addresses.items():
                if source == "email":
                    domain = domain_of(address)
                    if domain:  # "mail.vogt.example" is history of "vogt.example"
                        counts = known.by_name.setdefault(name, {})
                        counts[registrable(domain)] = counts.get(registrable(domain), 0) + n
                elif source == "whatsapp" and digits(address):
                    counts = known.number_history.setdefault(name, {})
                    counts[digits(address)] = counts.get(digits(address), 0) + n
        for rule in compiled:
            for match in (rule.scope, rule.condition):
                for name in match.names:
                    want = _name_words(name)
                    domains, numbers = _given_with(name, match)
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
        """The domains a display name is known to write from: the rules' if they give any,
        else the one its history establishes (every way of writing the full name counts)."""
        have = set(words(name))
        stated = {d for want, domains in self.by_words if want <= have for d in domains}
        if stated:
            return stated
        return _established(self._history(self.by_name, name, have))

    def numbers_for(self, name: str) -> set[str]:
        """The numbers (digits with a "+") a WhatsApp name is known to write from: the
        rules' if they give any, else the one its history establishes."""
        have = set(words(name))
        stated = {n for want, numbers in self.numbers if want <= have for n in numbers}
        if stated:
            return stated
        return {"+" + n for n in _established(self._history(self.number_history, name, have))}

    @staticmethod
    def _history(
        table: Mapping[str, Mapping[str, int]], name: str, have: set[str]
    ) -> dict[str, int]:
        counts: dict[str, int] = {}
        for known, by_address in table.items():
            want = _name_words(known)
            if known == name or (len(want) >= 2 and want <= have):
                for address, n in by_address.items():
                    counts[address] = counts.get(address, 0) + n
        return counts

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
        told = any(want <= set(words(sender.name)) for want, _ in self.numbers)
        said = "is given in the rules with" if told else "has written from"
        return (
            f"the name \u201c{sender.name}\u201d {said} {where}, and this message comes "
            "from another number"
        )


def without_name(event: Event) -> Event:
    """The event as the rules see a message whose display name is not to be trusted. A
    direct chat is named after the other person, so its name goes too; a group's stays."""
    anonymous = event.model_copy(deep=True)
    if anonymous.sender is not None:
        anonymous.sender.name = None
    if anonymous.chat is not None and not anonymous.chat.is_group:
        anonymous.chat.name = None
    return anonymous
