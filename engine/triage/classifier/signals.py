"""What the envelope says about who sent a message: headers, provider labels, the address and
its domain, and the display name. Each signal comes with the words that show it (evidence)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from engine.events import Event
from engine.triage.classifier.lexicon import ASKS, PAYMENT_REQUEST, PHISHING_TEXT
from engine.triage.classifier.text import (
    domain_of,
    fold,
    fold_german,
    registrable,
    registrable_name,
    words,
)

AUTOMATED_LOCAL = re.compile(
    r"^(?:[a-z0-9._-]*no[-_.]?reply[a-z0-9._-]*|do[-_.]?not[-_.]?reply|donotreply|"
    r"ne[-_.]?pas[-_.]?repondre|nao[-_.]?respond[ae]|no[-_.]?respond(?:er|a)|"
    r"non[-_.]?rispondere|keine[-_.]?antwort|nicht[-_.]?antworten|"
    r"notifications?(?:[-_.][a-z0-9]+)?|[a-z0-9._-]*[-_.]notifications?|notify|notificaciones|"
    r"notificacoes|notifiche|benachrichtigung(?:en)?|alerts?|alertes|alerting|avisos?|"
    r"builds?|ci|bot|robot|[a-z0-9._-]*bot|system|daemon|mailer[-_]?daemon|postmaster|"
    r"automated|auto[-_.a-z]*|monitor(?:ing)?|status|digest[-_.a-z0-9]*|tracking[a-z0-9._-]*|"
    r"rastreamento|spedizione|[a-z0-9._-]*updates|mailer|bounces?|messages?[-_.]?noreply|"
    r"message|messaging[-_.a-z]*|transaction(?:s|al)?|[a-z0-9._-]*receipts?|invitations?|"
    r"calendar[-_.a-z]*|drive[-_.a-z]*|jira|gitlab|github|confirm[a-z-]*|confirmar[-_.a-z]*|"
    r"inmail[-_.a-z]*|businessprofile[-_.a-z]*|account[-_.]security[-_.a-z]*|em\.[a-z0-9.]+)$"
)

ROLE_LOCAL = re.compile(
    r"^(?:info|information|hello|hi|hey|team|contact|contacto|kontakt|office|admin|support|"
    r"help|service|services|servicio|service[-_.]client|kundenservice|customer[-_.a-z]*|"
    r"care|sales|ventas|vertrieb|ventes|vendas|vendite|billing|invoices?|accounts?|"
    r"accounting|compta|comptabilite|buchhaltung|rechnung(?:en)?|factura(?:s|cion)?|"
    r"facturaelectronica|facture|cobranca|cobros|financeiro|finance|finanzas|hr|rrhh|"
    r"people|jobs|careers|recruiting|recruitment|talent|press|media|marketing|news|"
    r"newsletters?|events?|orders?|pedidos|commandes|bestellung|reservations?|reservas|"
    r"booking|bookings|citas|security|privacy|legal|mail|webmaster|feedback|"
    r"comunicaci(?:on|ones)|comunicacao|comunicazione|communications?|secretaria|segreteria|"
    r"sekretariat|poststelle|registrations?|membership|members|announcements?|offers?|"
    r"ofertas|angebote|offres|promo(?:tions?)?|deals|shop|store|tienda|boutique|loja|"
    r"negozio|restaurants?|partners?|editor(?:ial)?|redaccion|redaktion|escrituras|"
    r"financiamento|habitacao|atualizacao|plan\.[a-z]+|tickets?|reviews?|"
    r"leads?|sponsors|campaigns?|email\.campaign|[a-z0-9]+[-_.]support)$"
)

BULK_SUBDOMAINS = {
    "mail",
    "email",
    "em",
    "e",
    "t",
    "info",
    "news",
    "newsletter",
    "newsletters",
    "mailer",
    "mailing",
    "notify",
    "notifications",
    "comunicaciones",
    "post",
    "mg",
    "send",
    "sg",
    "marketing",
    "campaign",
    "campaigns",
    "go",
    "click",
    "links",
    "m",
    "reply",
    "bounce",
    "lists",
    "mkt",
    "crm",
    "edm",
    "nl",
    "md",
    "ifly",
    "notice",
    "e-mail",
    "promo",
    "offers",
}

FREE_MAIL = {
    "gmail",
    "googlemail",
    "outlook",
    "hotmail",
    "live",
    "msn",
    "yahoo",
    "ymail",
    "icloud",
    "me",
    "mac",
    "proton",
    "protonmail",
    "pm",
    "gmx",
    "web",
    "aol",
    "fastmail",
    "posteo",
    "mailbox",
    "zoho",
    "yandex",
    "libero",
    "virgilio",
    "tiscali",
    "alice",
    "tin",
    "orange",
    "wanadoo",
    "free",
    "laposte",
    "sfr",
    "bluewin",
    "btinternet",
    "sky",
    "virginmedia",
    "eircom",
    "t-online",
    "freenet",
    "uol",
    "bol",
    "terra",
    "ig",
    "tutanota",
    "hey",
    "seznam",
    "wp",
    "o2",
    "kpnmail",
    "telenet",
    "skynet",
    "sapo",
}

ORG_WORDS = {
    # English
    "bot", "bots", "card", "cards", "showcase", "receipts", "receipt", "pipelines", "pipeline",
    "team", "support",
    "notifications", "notification", "alerts", "alert", "alerting", "news", "newsletter",
    "store", "shop", "service", "services", "app", "inc", "ltd", "llc", "gmbh", "sa", "ag",
    "spa", "srl", "sl", "ltda", "bv", "plc", "bank", "updates", "info", "digest", "mail",
    "mailer", "billing", "orders", "security", "account", "accounts", "system", "admin",
    "cloud", "status", "jobs", "careers", "community", "sales", "payments", "pay", "delivery",
    "express", "airlines", "airways", "air", "tours", "travel", "hotel", "hotels",
    "insurance", "energy", "group", "labs", "studio", "media", "online", "club", "office",
    "registrations", "events", "recruiting", "people", "profile", "business", "editorial",
    "university", "college", "school", "library", "council", "department", "ministry",
    "agency", "authority", "board", "committee", "foundation", "institute", "association",
    "society", "journal", "review", "research", "management", "partners", "partner",
    "consulting", "solutions", "software", "systems", "technologies", "international",
    "elections", "county", "city", "centre", "center", "portal", "platform", "weekly",
    "daily", "briefing", "publications", "general", "assembly", "bulletin",
    "collective", "sponsors", "kontoteam", "kundenservice", "habitação",
    # Spanish, Portuguese, Italian, French, German
    "servicio", "servicios", "equipo", "atencion", "cliente", "clientes", "banco", "seguros",
    "comunidad", "colegio", "universidad", "consulta", "clinica", "notaria", "ayuntamiento",
    "direccion", "electronica", "seguridad", "social", "agencia", "tributaria", "recursos",
    "humanos", "prefeitura", "servicos", "equipe", "atendimento", "habitacao", "credito",
    "imobiliario", "tabeliao", "notas", "servizi", "informatici", "portale",
    "personale", "area", "ricerca", "biblioteca", "ufficio", "segreteria", "universita",
    "magnifico", "rettore", "comune", "dentistico", "entreprises",
    "societe", "mairie", "banque", "assurance", "primeurs", "france", "pro",
    "kommission", "lokalbaukommission", "finanzamt", "abt", "amt", "stadtsparkasse",
    "sparkasse", "versicherung", "verwaltung", "buchhaltung", "paket", "deutschland",
    "immobilien", "architekten", "rhone", "urssaf", "ddpp", "dgfip",
}  # fmt: skip

PLATFORMS: dict[str, tuple[str, str]] = {}
"""Well-known services by their registered domain name: the kind of mail they send."""


def _platforms(kind: str, label: str, *names: str) -> None:
    for name in names:
        PLATFORMS[name] = (kind, label)


def registered_platforms() -> tuple[str, ...]:
    """The platforms the classifier knows by their domain's name (a documented list of
    public services: GitHub, Zendesk, …)."""
    return tuple(PLATFORMS)


_platforms(
    "social",
    "a social network",
    "linkedin",
    "facebook",
    "facebookmail",
    "instagram",
    "twitter",
    "x",
    "tiktok",
    "pinterest",
    "reddit",
    "redditmail",
    "behance",
    "dribbble",
    "meetup",
    "meetupmail",
    "xing",
    "snapchat",
    "threads",
    "mastodon",
    "tumblr",
    "quora",
    "nextdoor",
    "youtube",
    "bsky",
    "strava",
    "goodreads",
    "flickr",
    "vk",
)
_platforms(
    "dev",
    "code hosting or CI",
    "github",
    "gitlab",
    "bitbucket",
    "buildkite",
    "circleci",
    "travis-ci",
    "gitea",
    "codeberg",
    "sourcehut",
    "vercel",
    "netlify",
    "npmjs",
    "pypi",
    "renovateapp",
    "codecov",
    "sonarcloud",
    "appveyor",
    "crates",
)
_platforms(
    "tracker",
    "a project tracker",
    "atlassian",
    "linear",
    "asana",
    "trello",
    "clickup",
    "monday",
    "basecamp",
    "youtrack",
    "shortcut",
    "wrike",
    "smartsheet",
)
_platforms(
    "monitoring",
    "a monitoring service",
    "sentry",
    "getsentry",
    "datadoghq",
    "dtdg",
    "grafana",
    "newrelic",
    "pingdom",
    "uptimerobot",
    "statuspage",
    "honeycomb",
    "betteruptime",
    "betterstack",
    "cronitor",
    "healthchecks",
)
_platforms(
    "incident",
    "an on-call paging service",
    "pagerduty",
    "opsgenie",
    "victorops",
    "firehydrant",
)
_platforms(
    "shipping",
    "a parcel carrier",
    "dhl",
    "ups",
    "fedex",
    "usps",
    "royalmail",
    "dpd",
    "gls",
    "hermes",
    "myhermes",
    "evri",
    "yodel",
    "correos",
    "seur",
    "mrw",
    "nacex",
    "chronopost",
    "colissimo",
    "postnl",
    "bpost",
    "swisspost",
    "posteitaliane",
    "brt",
    "ctt",
    "tnt",
    "aramex",
    "purolator",
    "canadapost",
    "auspost",
    "inpost",
    "parcelforce",
    "jadlog",
    "loggi",
)
_platforms(
    "hiring",
    "a hiring platform",
    "indeed",
    "glassdoor",
    "stepstone",
    "greenhouse",
    "lever",
    "workable",
    "smartrecruiters",
    "hired",
    "wellfound",
    "infojobs",
    "welcometothejungle",
    "recruitee",
    "teamtailor",
    "ashbyhq",
)
_platforms(
    "review",
    "a review site",
    "tripadvisor",
    "trustpilot",
    "yelp",
    "doctify",
    "feefo",
)
_platforms(
    "booking",
    "a booking service",
    "thefork",
    "lafourchette",
    "zenchef",
    "opentable",
    "resy",
    "sevenrooms",
    "cliniko",
    "doctolib",
    "calendly",
    "booksy",
    "treatwell",
    "fresha",
)
_platforms("support", "a help desk", "zendesk", "freshdesk", "helpscout", "kustomer")
_platforms(
    "legal",
    "an e-signature service",
    "docusign",
    "hellosign",
    "echosign",
    "pandadoc",
    "signnow",
    "yousign",
)
_platforms(
    "newsletter",
    "a newsletter platform",
    "substack",
    "beehiiv",
    "list-manage",
    "mcsv",
    "mcdlv",
    "sendinblue",
    "brevo",
    "convertkit",
    "buttondown",
    "mailerlite",
    "discoursemail",
)

DOMAIN_WORDS: dict[str, tuple[str, str]] = {
    "talent": ("hiring", "a recruiting firm's domain"),
    "recruit": ("hiring", "a recruiting firm's domain"),
    "recruiting": ("hiring", "a recruiting firm's domain"),
    "staffing": ("hiring", "a recruiting firm's domain"),
    "headhunt": ("hiring", "a recruiting firm's domain"),
    "careers": ("hiring", "a recruiting firm's domain"),
    "jobs": ("hiring", "a recruiting firm's domain"),
}

GOVERNMENT_DOMAIN = re.compile(
    r"(?:\.gov(?:\.[a-z]{2})?|\.gob\.[a-z]{2}|\.gouv\.fr|\.gv\.at|\.admin\.ch|\.bund\.de|"
    r"\.gov\.br|\.sp\.gov\.br|\.gc\.ca|\.europa\.eu)$|(?:^|\.)(?:agenciatributaria|seg-social|"
    r"redsara|dehu|urssaf|impots|finanzamt|agenziaentrate|inps|hmrc|irs|receita)\."
)


@dataclass(frozen=True)
class Sender:
    """Who sent an e-mail, as far as the envelope tells."""

    name: str
    address: str
    local: str
    domain: str
    registered: str

    @classmethod
    def of(cls, e: Event) -> Sender:
        name = (e.sender.name or "").strip() if e.sender else ""
        address = (e.sender.address or "").strip() if e.sender else ""
        domain = domain_of(address)
        local = fold(address).rpartition("@")[0] if "@" in address else ""
        return cls(name, address, local, domain, registrable_name(domain))


def bulk_headers(e: Event) -> list[str]:
    why = [f"header {h}" for h in ("List-Unsubscribe", "List-Id") if e.headers.get(h)]
    precedence = fold(e.headers.get("Precedence"))
    if precedence in ("bulk", "list", "junk"):
        why.append(f"header Precedence: {precedence}")
    return why


def auto_submitted(e: Event) -> str | None:
    value = fold(e.headers.get("Auto-Submitted"))
    return f"header Auto-Submitted: {value}" if value and value != "no" else None


def automated_address(s: Sender) -> str | None:
    if s.local and AUTOMATED_LOCAL.match(s.local):
        return f"automated address {s.address}"
    return None


def role_address(s: Sender) -> str | None:
    if s.local and ROLE_LOCAL.match(s.local):
        return f"role address {s.local}@"
    return None


def bulk_domain(s: Sender) -> str | None:
    """A bulk-mail sending subdomain: news@mail.example.com, x@em.brand.com."""
    labels = s.domain.split(".")
    reg = registrable(s.domain)
    sub = s.domain[: -len(reg)].strip(".").split(".") if s.domain != reg else []
    if any(label in BULK_SUBDOMAINS for label in sub):
        return f"bulk-mail domain {s.domain}"
    if labels and labels[0].startswith(("email-", "mail-", "news-")):
        return f"bulk-mail domain {s.domain}"
    return None


def via_service(name: str) -> str | None:
    """A message a service sends for someone: "Ana (via Google Drive)", "Bo (Jira)",
    "Niko via Rust Internals", "Alice from AliExpress", "X, Editorial Office"."""
    if re.search(r"\bvia\b|\(.+\)|\bfrom [A-Z]|\bat [A-Z]|,", name):
        return f"sent through a service ({name})"
    return None


def person_part(name: str) -> str:
    """The person in "Ana Ruiz (via Google Drive)" / "Niko M via Rust Internals"."""
    cut = re.split(r"\s+via\s+|\s*\(|\s+from\s+(?=[A-Z])|\s+at\s+(?=[A-Z])|,", name)[0]
    return cut.strip()


def looks_like_person_name(name: str | None) -> bool:
    """ "Nadia Kim", "Sven", "Dr. Anna Weiss" yes; "DocuSign", "CircleCI", "H&M" no."""
    if not name or "_" in name:
        return False  # "Flight_simulator_deals": a handle, not a name
    tokens = [t for t in re.split(r"[\s]+", name.strip()) if t]
    if not tokens or len(tokens) > 5:
        return False
    if {fold(t.strip(".,'’()")) for t in tokens} & ORG_WORDS:
        return False
    for token in tokens:
        core = token.strip(".,'’()")
        if not core or not core[0].isalpha() or not core[0].isupper():
            return False
        if any(c.isdigit() for c in core) or "&" in core:
            return False
        inner = core[1:].replace("-", "")
        camel = any(c.isupper() for c in inner) and not core.isupper() and "-" not in core
        if camel and not re.match(r"^(Mc|Mac|O'|D'|De|Di|Le|La)[A-Z]", core):
            return False  # CamelCase brand (DocuSign, CircleCI)
        if core.isupper() and len(core) > 2:
            return False  # an acronym
    return True


def name_in_address(name: str, local: str) -> bool:
    """Whether the address's local part is made of the name: "s.kraemer" for "Sabine
    Krämer", "lortega" for "Luis Ortega", "martagil.fisio" for "Marta Gil"."""
    tokens = [t for t in words(name) if t not in ("dr", "dra", "prof", "mr", "mrs", "ms")]
    alt = [t for t in words(fold_german(name)) if t not in ("dr", "dra", "prof")]
    local_core = re.sub(r"[0-9]+", "", local)
    parts = [p for p in re.split(r"[._\-+]+", local_core) if p]
    if not tokens or not parts:
        return False
    names = set(tokens) | set(alt)
    if any(p in names for p in parts if len(p) >= 2):
        return True
    joined = "".join(parts)
    for first in (tokens[0], alt[0] if alt else tokens[0]):
        for last in (tokens[-1], alt[-1] if alt else tokens[-1]):
            if joined.startswith((first + last, first[0] + last, first + last[0])):
                return True
    return any(len(t) >= 4 and t in joined for t in names)


def personal_domain(s: Sender, name: str) -> bool:
    """The domain is the person's own name: "Ana Ruiz" <ana@ana-ruiz.example>, "Jon Ek"
    <test@jonek.example>: a person writing from their own domain (a role address there,
    "newsletter@", is the name's publication, not the person)."""
    tokens = [t for t in words(name) if t not in ("dr", "dra", "prof", "mr", "mrs", "ms")]
    if len(tokens) < 2 or not looks_like_person_name(name) or role_address(s):
        return False
    reg = s.registered.replace("-", "").replace(".", "")
    return reg in ("".join(tokens), tokens[0] + tokens[-1], tokens[0][0] + tokens[-1])


def brand_name(s: Sender, name: str) -> bool:
    """The display name is the sending company's own ("Temu" <temu@temuemail.com>, a shop
    named as its domain is), not a person's ("Anna Vogt" <anna.vogt@
    vogt-partner.example> names a person besides the firm)."""
    tokens = [t for t in words(name) if len(t) >= 3]
    in_domain = [t for t in tokens if t in s.registered or t in s.domain.split(".")]
    if not in_domain or personal_domain(s, name):
        return False
    parts = [p for p in re.split(r"[._\-+0-9]+", s.local) if p]
    service = bool(AUTOMATED_LOCAL.match(s.local) or ROLE_LOCAL.match(s.local))
    personal = [] if service else [t for t in tokens if t in parts and t not in s.registered]
    if s.registered in tokens and not personal:
        return True  # "Rideo Eats" <rideo@rideo.example>, "Google Calendar" <…@google.com>
    single = len(tokens) == 1 and len(parts) == 1 and parts[0] in in_domain  # temu@temuemail
    if name_in_address(name, s.local) and not single:
        return False  # j.roux@roux-avocats.example: a person at their own firm
    return not personal


def lookalike(s: Sender) -> str | None:
    """A domain made to look like a brand's: the brand in the display name, but the domain
    is the brand glued to other words (paypal-kontocheck.example) or not the brand at
    all while the address still names it (dhl-support@parcel-redirect.example)."""
    reg = s.registered
    brand = [t for t in words(person_part(s.name)) if len(t) >= 3 and t not in ORG_WORDS]
    if not brand or not reg:
        return None
    parts = [p for p in reg.split("-") if p]
    if len(parts) > 1 and any(b in parts for b in brand) and not looks_like_person_name(s.name):
        extra = [p for p in parts if p not in brand and p not in words(s.name)]
        if extra:
            return f"look-alike domain {s.domain} for {s.name}"
    elif (
        not looks_like_person_name(s.name)
        and not any(b in reg for b in brand)
        and any(b in s.local for b in brand)
    ):
        return f"{s.name} writing from an unrelated domain {s.domain}"
    if parts and parts[0] in FREE_MAIL and len(parts) > 1:
        return f"look-alike webmail domain {s.domain}"
    return None


@dataclass(frozen=True)
class ScamCues:
    """What scams say, from the language data (``scam`` tables)."""

    gift_cards: re.Pattern[str]
    new_number: re.Pattern[str]
    money: re.Pattern[str]
    credentials: re.Pattern[str]
    bait_words: frozenset[str]


@cache
def scam_cues() -> ScamCues:
    # The language data folds with this package's ``fold``: it is read on first use, once
    # the package is loaded.
    from engine.triage.language import phrase_pattern, phrases

    return ScamCues(
        gift_cards=re.compile(phrase_pattern("scam.gift_cards", in_compounds=True)),
        new_number=re.compile(phrase_pattern("scam.new_number")),
        money=re.compile(phrase_pattern("scam.money", in_compounds=True)),
        credentials=re.compile(phrase_pattern("scam.credentials")),
        bait_words=frozenset(w for p in phrases("scam.domain_words") for w in p.split()),
    )


def bait_domain(s: Sender) -> str | None:
    """A domain glued from a name and a service word ("northwind-bank-verify.example",
    "caisse-lyon-alerte.example"): how look-alike domains are made."""
    parts = [p for p in s.registered.split("-") if p]
    bait = [p for p in parts if p in scam_cues().bait_words]
    if len(parts) > 1 and bait:
        return f"look-alike service domain {s.domain} (\u201c{bait[0]}\u201d glued to a name)"
    return None


def new_number_scam(text: str) -> str | None:
    """A chat message that says it comes from a new number and asks for money: the scam
    of someone posing as family. ``text`` is folded."""
    cues = scam_cues()
    new_number = cues.new_number.search(text)
    if new_number and cues.money.search(text):
        return f"a \u201c{new_number.group(0)}\u201d asking for money"
    return None


def phishing(e: Event, s: Sender, text: str) -> str | None:
    """Why the message is a scam, from what it asks for and where it comes from, else None.
    ``text`` is folded."""
    scam = PHISHING_TEXT.search(text)
    if scam:
        return f"asks for {scam.group(0)}"
    cues = scam_cues()
    gift = cues.gift_cards.search(text)
    if gift and (ASKS.search(text) or "?" in text):
        return f"asks for {gift.group(0)}"
    fake = lookalike(s) or bait_domain(s)
    if fake and (PAYMENT_REQUEST.search(text) or cues.credentials.search(text)):
        return fake
    return None


def platform(s: Sender) -> tuple[str, str] | None:
    """The kind of a well-known service's mail, from its registered domain."""
    if s.registered in PLATFORMS:
        kind, label = PLATFORMS[s.registered]
        return kind, f"{registrable(s.domain)} is {label}"
    for word, (kind, label) in DOMAIN_WORDS.items():
        if word in s.registered.split("-") or s.registered.startswith(word):
            return kind, f"{registrable(s.domain)}: {label}"
    return None


def government(s: Sender) -> str | None:
    if s.domain and GOVERNMENT_DOMAIN.search(s.domain):
        return f"government domain {s.domain}"
    return None
