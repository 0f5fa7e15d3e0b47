"""The first-run words shared by the desktop welcome and the terminal chat's first message:
what the built-in model can and can't do, said plainly, and the bigger model on offer
(``ModelService.offer``) — one click away, never required."""

from __future__ import annotations

from engine.modeltypes import ModelOffer

BUILTIN_CAN = (
    "The built-in model is small: it runs on any computer, offline. With it TIC sorts what "
    "arrives by your rules, and here it answers what it recognises: what you missed, your "
    "calendar on any day, what someone wrote, reminders, rule changes."
)
BUILTIN_CANNOT = "It can't chat, answer open questions or draft replies."
OFFER_ADDS = "writes replies in its own words and answers open questions and drafts"
NOT_NEEDED = "Optional: TIC works without it."


def offer_text(offer: ModelOffer) -> str:
    """The offer in two sentences: which model, its size and download time, what it adds."""
    return (
        f"For a real assistant, the model recommended for this computer, {offer.describe()}, "
        f"{OFFER_ADDS}. {NOT_NEEDED}"
    )


def offer_button(offer: ModelOffer) -> str:
    """The one click."""
    if offer.downloaded:
        return f"Use {offer.title}"
    return f"Download and use {offer.title}"


def terminal_welcome(offer: ModelOffer | None) -> list[str]:
    """The terminal chat's first message on a tiny model: what it can and can't do, and the
    one command that gets the offered model."""
    lines = [BUILTIN_CAN, BUILTIN_CANNOT]
    if offer is not None:
        get = "" if offer.downloaded else f"tic-desktop model pull {offer.name} && "
        lines += [offer_text(offer), f"To get it: {get}tic-desktop model use {offer.name}"]
    return lines
