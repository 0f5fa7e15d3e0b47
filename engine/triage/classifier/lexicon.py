"""The wording that gives a message's kind away, in English, Spanish, German, French,
Portuguese and Italian. Patterns are written folded (lower case, no accents: see
``text.fold``), so "Rücklastschrift" is matched as "rucklastschrift".

Each kind has cues read anywhere (subject or text) and cues that count only in the subject
(a subject names what a message is about; a body mentions many things in passing)."""

from __future__ import annotations

import re
from dataclasses import dataclass


def _rx(*parts: str) -> re.Pattern[str]:
    return re.compile(r"(?<![a-z0-9-])(?:" + "|".join(parts) + ")", re.I)


@dataclass(frozen=True)
class Cues:
    anywhere: re.Pattern[str] | None = None
    subject: re.Pattern[str] | None = None


BILLING_PROBLEM = Cues(
    anywhere=_rx(
        # en
        r"payments? (?:has |have |was |were )?(?:failed|declined|unsuccessful|rejected|overdue|"
        r"past due|did ?n[o']t go through|could ?n[o']t be (?:processed|completed))",
        r"(?:failed|declined|unsuccessful|missed|returned|bounced|rejected) "
        r"(?:card |credit card )?(?:payments?|charges?|renewal|direct debit|transactions?)",
        r"(?:could ?n[o']t|could not|were unable to|was unable to|unable to|cannot|can'?t) "
        r"(?:process|charge|collect|renew|take) (?:your |the )?(?:payment|card|subscription|"
        r"domain|renewal|account)",
        r"(?:could ?n[o']t|could not|were unable to|unable to) (?:auto-?)?renew",
        r"card (?:ending (?:in )?\d+ )?(?:was |has been |is )?(?:declined|rejected|refused)",
        r"auto-?renew(?:al)? (?:has )?failed",
        r"renewal (?:has )?failed",
        r"past[- ]due",
        r"overdue (?:invoice|balance|payment|amount|rent|bill)",
        r"(?:unpaid|outstanding) (?:invoice|balance|amount|bill|rent)",
        r"final (?:payment )?(?:notice|reminder)",
        r"non-?payment",
        r"(?:will be|to be|about to be|risk of being) (?:suspended|locked|disconnected|cut off)",
        r"suspension of (?:your )?(?:account|service)",
        r"avoid (?:an? )?(?:interruption|suspension|service interruption)",
        r"update your (?:payment|billing|card) (?:details|method|information|info)",
        r"rent (?:is )?(?:overdue|late|due)",
        # es
        r"pagos? (?:fallido|rechazado|devuelto|impagado|no (?:se ha )?(?:podido|realizado))",
        r"cobros? (?:rechazado|fallido|devuelto)",
        r"(?:tarjeta|operacion|compra) (?:\w+ )?(?:denegada|rechazada|caducada)",
        r"recibos? (?:ha sido |han sido )?devuelto",
        r"devolucion del recibo",
        r"impago",
        r"deuda pendiente",
        r"facturas? (?:vencida|impagada|pendiente de pago)",
        r"(?:suspension|corte) del (?:servicio|suministro)",
        r"evitar (?:la )?(?:suspension|interrupcion|el corte)",
        # de
        r"zahlung (?:ist |wurde )?fehlgeschlagen",
        r"fehlgeschlagene (?:zahlung|abbuchung|lastschrift)",
        r"lastschrift (?:wurde |ist )?(?:zuruck|storniert|nicht eingelost)",
        r"rucklastschrift",
        r"\d?\.? ?mahnung",
        r"zahlungserinnerung",
        r"zahlungsverzug",
        r"uberfallig",
        r"(?:karte|kreditkarte|zahlung) (?:wurde )?abgelehnt",
        r"abgelehnte (?:karte|zahlung)",
        r"(?:sperrung|kundigung) (?:wegen|aufgrund) (?:zahlungs|nichtzahlung)",
        # fr
        r"paiements? (?:a )?(?:refuse|echoue|rejete|impaye|en echec|n'a pas (?:pu|abouti))",
        r"prelevements? (?:a ete )?(?:rejete|refuse|impaye)",
        r"rejet de prelevement",
        r"transactions? refusees?",
        r"carte (?:bancaire )?(?:refusee|expiree)",
        r"impayes?",
        r"relance de paiement",
        r"facture (?:impayee|en retard)",
        r"faute de paiement",
        r"suspendu (?:faute|pour defaut) de paiement",
        # pt
        r"pagamento (?:recusado|falhou|nao (?:foi )?(?:aprovado|processado|realizado|efetuado)|"
        r"pendente|em atraso)",
        r"cartao (?:\w+ )?(?:recusado|expirado)",
        r"boleto (?:\w+ )?vencido",
        r"fatura (?:vencida|em atraso)",
        r"inadimplen",
        r"cobranca (?:recusada|pendente)",
        r"suspensao (?:do servico|da conta|da assinatura)",
        # it
        r"pagamento (?:non riuscito|rifiutato|fallito|non andato a buon fine|in ritardo|scaduto)",
        r"carta (?:\w+ )?(?:rifiutata|scaduta)",
        r"addebito (?:respinto|non riuscito|rifiutato)",
        r"insolut",
        r"sollecito di pagamento",
        r"fattura scaduta",
        r"sospensione (?:del servizio|dell'account|dell'abbonamento)",
    )
)

RECEIPT = Cues(
    subject=_rx(
        r"receipt",
        r"invoice",
        r"order (?:confirm|summary|#|no\b|number|\d)",
        r"your (?:\S+ )?order",
        r"payment (?:received|confirm|successful|complete)",
        r"thanks? (?:you )?for your (?:order|purchase|payment)",
        r"purchase confirm",
        r"(?:booking|reservation|trip|travel) confirm",
        r"your (?:booking|trip|ride|stay)",
        r"(?:trip|ride) with",
        r"folio",
        r"statement (?:is )?(?:available|ready)",
        r"(?:has been|was) charged",
        r"(?:subscription|membership|plan) (?:renewed|confirm)",
        r"renewal (?:confirm|receipt)",
        r"you (?:sent|paid) ",
        r"successfully (?:paid|charged|renewed)",
        # es
        r"recibo",
        r"factura",
        r"justificante",
        r"ticket de compra",
        r"tu pedido",
        r"pedido (?:confirmado|n|\d)",
        r"confirmacion de (?:pedido|compra|pago|reserva)",
        r"pago (?:realizado|recibido|confirmado)",
        r"se ha realizado correctamente",
        r"compra confirmada",
        r"gracias por tu (?:compra|pedido)",
        # de
        r"rechnung",
        r"quittung",
        r"beleg",
        r"zahlungsbestatigung",
        r"bestellbestatigung",
        r"buchungsbestatigung",
        r"ihre bestellung",
        r"zahlung (?:erhalten|eingegangen|gesendet)",
        r"sie haben (?:eine zahlung|\S+ ?(?:eur|€)|bezahlt)",
        # fr
        r"facture",
        r"(?:votre |un |le )recu\b",
        r"recu (?:de paiement|n)",
        r"confirmation de (?:votre )?(?:paiement|commande|reservation|achat)",
        r"votre commande",
        r"paiement (?:recu|confirme|accepte)",
        r"merci pour votre (?:commande|achat)",
        # pt
        r"comprovante",
        r"nota fiscal",
        r"compra confirmada",
        r"pedido (?:confirmado|recebido)",
        r"confirmacao de (?:pedido|compra|pagamento|reserva)",
        r"pagamento (?:recebido|confirmado|aprovado)",
        r"fatura",
        # it
        r"ricevuta",
        r"fattura",
        r"conferma (?:d'ordine|dell'ordine|(?:di )?acquisto|del pagamento|(?:della )?prenotazione)",
        r"il tuo ordine",
        r"ordine (?:confermato|n|\d)",
        r"pagamento (?:ricevuto|confermato)",
        r"scontrino",
    ),
    anywhere=_rx(
        r"thanks? (?:you )?for your (?:order|purchase|payment)",
        r"(?:payment|order) (?:received|confirmed)",
        r"receipt (?:is )?attached",
        r"total (?:fare|charged|amount)",
        r"gracias por tu (?:compra|pedido)",
        r"importe total",
        r"vielen dank fur ihre bestellung",
        r"merci pour votre (?:commande|achat)",
        r"sua compra foi confirmada",
        r"grazie per il tuo (?:ordine|acquisto)",
        r"veuillez trouver ci-joint la facture",
        r"anbei (?:die|ihre) rechnung",
        r"en adjunto (?:la|tu) factura",
    ),
)

SHIPPING = Cues(
    subject=_rx(
        r"shipped",
        r"on (?:its|the|their) way",
        r"out for delivery",
        r"delivered",
        r"deliver(?:y|ies) (?:today|tomorrow|attempt|scheduled|update|notice|exception)",
        r"scheduled for delivery",
        r"(?:your|the) (?:parcel|package|shipment|item|delivery)",
        r"tracking",
        r"dispatched",
        r"in transit",
        r"arriving (?:today|tomorrow)",
        r"customs (?:fee|charge)",
        # es
        r"envio",
        r"paquete",
        r"en reparto",
        r"entregado",
        r"llega (?:hoy|manana)",
        r"seguimiento",
        r"(?:esta|va) en camino",
        r"(?:pedido|paquete) (?:enviado|retenido)",
        # de
        r"sendung",
        r"paket",
        r"zugestellt",
        r"zustellung",
        r"unterwegs",
        r"versandt",
        r"versendet",
        r"kommt (?:heute|morgen)",
        r"lieferung (?:heute|morgen|unterwegs)",
        # fr
        r"colis",
        r"livre\b",
        r"en cours de livraison",
        r"votre (?:envoi|livraison)",
        r"expedie",
        r"suivi de (?:votre )?(?:colis|commande|envoi)",
        # pt
        r"objeto",
        r"encomenda",
        r"saiu para entrega",
        r"entregue",
        r"rastreamento",
        r"a caminho",
        r"pacote",
        r"foi enviad",
        # it
        r"spedit",
        r"spedizione",
        r"pacco",
        r"in consegna",
        r"consegnat",
        r"tracciamento",
    ),
    anywhere=_rx(
        r"tracking (?:number|code|id|link)",
        r"track (?:your|the) (?:parcel|package|order|shipment)",
        r"out for delivery",
        r"has (?:been )?(?:shipped|dispatched)",
        r"numero de seguimiento",
        r"sendungsnummer",
        r"numero de suivi",
        r"codigo de rastreamento",
        r"numero di tracciamento",
    ),
)

SECURITY = Cues(
    anywhere=_rx(
        r"security (?:alert|notice|warning|advisory|advisories|issue|incident|report)",
        r"(?:new|unusual|suspicious|unrecognized|unknown|blocked) (?:\w+ )?"
        r"(?:sign-?ins?|log-?ins?|logins?|devices?|activity|access)",
        r"sign-?in (?:attempt|activity|alert|from|to your)",
        r"log-?in (?:attempt|activity|alert|from)",
        r"password (?:was |has been )?(?:changed|reset)",
        r"reset your password",
        r"someone (?:knows|has|tried|entered|used) your",
        r"(?:two|2)[- ]?(?:factor|step)",
        r"2fa",
        r"mfa",
        r"multi-?factor",
        r"account (?:may be |was |has been )?(?:compromised|at risk|hacked)",
        r"leaked (?:credentials|passwords?)",
        r"data breach",
        r"vulnerab",
        r"out-of-bounds",
        r"(?:heap|buffer|stack|integer) overflow",
        r"use-after-free",
        r"proof of concept",
        r"\bpoc\b",
        r"remote code execution",
        r"(?:sql|command) injection",
        r"cross-site scripting",
        r"responsible(?:ly)? disclos",
        r"plan to disclose",
        r"exploit",
        r"dependabot alert",
        r"cve-\d",
        r"secure your account",
        # es
        r"alerta de seguridad",
        r"inicio de sesion",
        r"(?:tu |la )?contrasena (?:ha sido |se ha )?(?:cambiad|restablecid)",
        r"verificacion en dos pasos",
        r"actividad (?:inusual|sospechosa)",
        r"acceso (?:sospechoso|no autorizado)",
        # de
        r"sicherheitswarnung",
        r"sicherheitshinweis",
        r"ungewohnliche (?:anmeld|aktivitat)",
        r"anmeldeaktivitat",
        r"neue anmeldung",
        r"(?:passwort|kennwort) (?:wurde )?(?:geandert|zuruckgesetzt)",
        r"zwei-?faktor",
        r"verdachtige (?:anmeld|aktivitat)",
        # fr
        r"alerte de securite",
        r"nouvelle connexion",
        r"connexion (?:inhabituelle|suspecte)",
        r"mot de passe (?:a ete )?(?:modifie|reinitialise)",
        r"double authentification",
        r"activite (?:inhabituelle|suspecte)",
        # pt
        r"alerta de seguranca",
        r"(?:novo|tentativa de) (?:login|acesso)",
        r"senha (?:foi )?(?:alterada|redefinida)",
        r"(?:alguem|alguém) (?:tem|sabe) a (?:sua )?senha",
        r"verificacao em duas etapas",
        r"atividade (?:incomum|suspeita)",
        # it
        r"avviso di sicurezza",
        r"(?:nuovo|tentativo di) accesso",
        r"password (?:e stata )?(?:modificata|reimpostata)",
        r"qualcuno conosce la (?:tua )?password",
        r"autenticazione a due fattori",
        r"attivita (?:insolita|sospetta)",
    )
)

ACCOUNT = Cues(
    anywhere=_rx(
        r"terms of (?:service|use)",
        r"privacy (?:policy|notice)",
        r"(?:updated|updating|changes to) (?:our|the) (?:terms|conditions|policy|policies)",
        r"(?:storage|mailbox|inbox|drive|dropbox|space|speicher) (?:is )?(?:almost |nearly )?full",
        r"almost full",
        r"(?:license|licence|subscription|plan|lizenz) (?:will |is going to )?"
        r"(?:renew|expire|change)",
        r"(?:confirm|verify) your (?:e-?mail|account|address)",
        r"password (?:will )?expire",
        r"added (?:you )?to (?:a |the )?(?:team|workspace|project|channel|group)",
        r"shared (?:a |an |\d+ )?(?:document|file|folder|doc)",
        r"has shared",
        r"scheduled (?:maintenance|downtime)",
        r"maintenance",
        r"successfully published",
        # es
        r"(?:condiciones|terminos) (?:de (?:tu|la) cuenta|de uso|del servicio)",
        r"hemos actualizado",
        r"ha compartido",
        r"mantenimiento",
        # de
        r"nutzungsbedingungen",
        r"datenschutz",
        r"(?:lizenz|abo|abonnement) wird",
        r"(?:passwort|kennwort) lauft",
        r"wartung",
        # fr
        r"conditions generales",
        r"votre espace",
        r"nouveau message dans votre",
        # pt
        r"termos de uso",
        r"licenciamento",
        r"manutencao",
        # it
        r"termini (?:e condizioni|di servizio)",
        r"manutenzione",
        r"in scadenza",
        r"cedolino",
        r"busta paga",
    )
)

CALENDAR = Cues(
    subject=_rx(
        r"invitation:",
        r"updated invitation",
        r"invited you",
        r"einladung:",
        r"invitacion:",
        r"convite:",
        r"invito:",
        r"accepted:",
        r"declined:",
    ),
    anywhere=_rx(
        r"invited you to (?:a |an |the )?(?:meeting|event|call)",
        r"invitation to (?:a|the) (?:meeting|event)",
    ),
)

TRAVEL = Cues(
    anywhere=_rx(
        r"flights?",
        r"boarding",
        r"gate (?:change|[a-z]?\d)",
        r"departure",
        r"itinerary",
        r"pnr",
        r"booking (?:reference|code)",
        r"check-?in",
        r"(?:[a-z]{2} ?\d{2,4}) (?:to|from)",
        r"trains?",
        r"rail",
        r"airline",
        # es
        r"vuelos?",
        r"embarque",
        r"billete",
        r"localizador",
        # de
        r"flug",
        r"abflug",
        r"zug\b",
        r"bahn",
        # fr
        r"vol\b",
        r"embarquement",
        r"billet",
        # pt
        r"voos?",
        r"passagem",
        r"trem",
        # it
        r"volo",
        r"imbarco",
        r"treno",
        r"biglietto",
    )
)

TRAVEL_CHANGE = Cues(
    anywhere=_rx(
        r"delay(?:ed|s)?",
        r"cancel+(?:ed|ation)",
        r"gate (?:change|changed)",
        r"(?:now )?departs from gate",
        r"new (?:departure|gate|time)",
        r"rebooked",
        r"schedule change",
        r"(?:schedule|time|departure time|flight time) (?:has |have )?changed",
        r"now departs",
        r"instead of \d",
        r"missed connection",
        r"retras",
        r"cancelad",
        r"cambio de puerta",
        r"verspat",
        r"annulliert",
        r"gate-?(?:anderung|wechsel)",
        r"retard",
        r"annule",
        r"changement de porte",
        r"atrasad",
        r"portao alterado",
        r"ritard",
        r"cancellat",
        r"cambio (?:di )?gate",
    )
)

DEV = Cues(
    subject=_rx(
        r"\[[\w.-]+/[\w.-]+\]",
        r"pull request",
        r"pr #?\d",
        r"\(#\d+\)",
        r"merge request",
        r"pipeline",
        r"builds? (?:#?\d|failed|passed|succeeded|broken|fixed)",
        r"(?:failed|passed|fixed|broken): [\w.-]+/",
        r"(?:failed|passed|fixed|broken|succeeded): [\w.-]+ #\d",
        r"run (?:failed|succeeded|cancelled)",
        r"workflow",
        r"new issue #?\d",
        r"issue #\d",
        r"release (?:v?\d|published)",
        r"starred",
        r"forked",
        r"review requested",
        r"requested (?:your|a) review",
        r"dependabot",
        r"renovate",
        r"bump [\w@/.-]+ from",
        r"deploy(?:ment)? (?:failed|succeeded|#?\d)",
        r"failed (?:\w+ )?deployment",
        r"successfully published [\w.-]+@",
    ),
    anywhere=_rx(
        r"requested your review",
        r"pull request",
        r"merge request",
        r"the workflow",
        r"failed jobs?",
        r"on branch \w+",
    ),
)

TRACKER = Cues(
    subject=_rx(r"\[jira\]", r"jira", r"asana", r"trello", r"linear"),
    anywhere=_rx(
        r"assigned [a-z]+-\d+ to",
        r"assigned (?:this |the )?(?:issue|ticket|task|card) to",
        r"mentioned you in [a-z]+-\d+",
        r"(?:status|priority) (?:changed|:)",
        r"moved (?:this |the )?(?:card|task|issue) to",
    ),
)

MONITORING = Cues(
    subject=_rx(
        r"\[(?:warn|warning|alert|critical|crit|error|firing|resolved|recovered|ok|p[1-5])\]",
        r"monitor",
        r"uptime",
        r"downtime",
        r"is (?:down|up|back up)\b",
        r"outage",
        r"disk (?:usage|space)",
        r"cpu",
        r"memory usage",
        r"error rate",
        r"latency",
        r"new issue in",
        r"regression:",
        r"\w+error\b",
        r"exception",
        r"backup",
        r"sicherung",
        r"health ?check",
    )
)

INCIDENT = Cues(
    subject=_rx(r"triggered", r"escalat", r"\[#\d+\]", r"incident #?\d", r"on-?call", r"paged"),
    anywhere=_rx(r"acknowledge (?:or resolve )?(?:this|the) incident", r"escalation policy"),
)

HIRING = Cues(
    anywhere=_rx(
        r"recruit",
        r"hiring",
        r"headhunt",
        r"job (?:offer|opportunity|opening|application)",
        r"(?:a |the |this )?(?:\w+ ){0,3}(?:role|position) (?:at|with|in)\b",
        r"(?:staff|senior|lead|principal|head of) [\w ]{2,30} (?:role|position)",
        r"open to (?:a )?(?:quick )?(?:chat|call|conversation) about (?:a|an|the) ",
        r"your (?:application|candidacy)",
        r"inmail",
        r"oferta de (?:empleo|trabajo)",
        r"vacante",
        r"proceso de seleccion",
        r"stellenangebot",
        r"bewerbung",
        r"offre d'emploi",
        r"recrutement",
        r"vaga de",
        r"recrutamento",
        r"offerta di lavoro",
        r"selezione del personale",
    )
)

LEGAL = Cues(
    anywhere=_rx(
        r"contracts?\b",
        r"agreement",
        r"nda\b",
        r"docusign",
        r"e-?sign",
        r"please sign",
        r"signature",
        r"lawsuit",
        r"court",
        r"legal notice",
        r"lawyer",
        r"attorney",
        r"notary",
        r"deed",
        r"compliance",
        r"gdpr",
        r"disclosure schedule",
        r"contrato",
        r"escritura",
        r"notari",
        r"abogad",
        r"juzgado",
        r"vertrag",
        r"notar\b",
        r"rechtsanwalt",
        r"gericht",
        r"contrat\b",
        r"notaire",
        r"avocat",
        r"mise en demeure",
        r"cartorio",
        r"minuta",
        r"advogad",
        r"tabeli",
        r"contratto",
        r"notaio",
        r"avvocat",
    )
)

GOVERNMENT = Cues(
    anywhere=_rx(
        r"tax (?:office|return|authority)",
        r"hmrc",
        r"\birs\b",
        r"requerimiento",
        r"notificacion (?:pendiente|electronica)",
        r"nueva notificacion",
        r"sede electronica",
        r"hacienda",
        r"agencia tributaria",
        r"seguridad social",
        r"finanzamt",
        r"steuerbescheid",
        r"bescheid",
        r"behorde",
        r"bauamt",
        r"bauantrag",
        r"umsatzsteuer",
        r"impots",
        r"urssaf",
        r"administration fiscale",
        r"receita federal",
        r"prefeitura",
        r"agenzia delle entrate",
        r"inps",
    )
)

SUPPORT = Cues(
    subject=_rx(
        r"(?:support )?(?:case|ticket|request) #?\d",
        r"support case",
        r"your (?:request|ticket|case) (?:has been|was) (?:updated|received|resolved|closed)",
        r"incidencia",
        r"solicitud (?:n|#)",
        r"chamado",
        r"protocolo",
        r"demande n",
        r"richiesta n",
    ),
    anywhere=_rx(
        r"we(?:'ve| have) received your (?:request|message|ticket)",
        r"customer (?:service|support)",
        r"help ?desk",
        r"atencion al cliente",
        r"kundenservice",
        r"service client",
        r"atendimento ao cliente",
        r"assistenza clienti",
    ),
)

SALES = Cues(
    anywhere=_rx(
        r"(?:book|schedule) a (?:demo|call)",
        r"(?:quick|short) (?:intro )?call",
        r"\d+ minutes? (?:on|this|next|for a)",
        r"(?:companies|teams) like yours",
        r"partnership",
        r"partner with",
        r"sponsorship (?:package|opportunit|deck)",
        r"cut your [\w ]+ (?:bill|costs?|spend)",
        r"reduce your [\w ]+ (?:bill|costs?|spend)",
        r"free trial",
        r"case study",
        r"colaboracion comercial",
        r"propuesta comercial",
        r"partnerschaft",
        r"partenariat",
        r"parceria",
        r"proposta commerciale",
    )
)

SOCIAL = Cues(
    anywhere=_rx(
        r"new followers?",
        r"followed you",
        r"started following",
        r"connection requests?",
        r"(?:viewed|visited) your profile",
        r"appeared in \d+ searches",
        r"see what you'?ve missed",
        r"you have \d+ new (?:notifications|invitations|messages)",
        r"new invitations?",
        r"memories",
        r"liked your",
        r"commented on your (?:post|photo)",
        r"tagged you",
        r"trending",
        r"friend requests?",
        r"was featured",
        r"notificaciones nuevas",
        r"recuerdos",
        r"perfil",
        r"neue (?:kontakte|follower)",
        r"nouveaux? abonnes?",
        r"novos seguidores",
        r"nuovi follower",
    )
)

PRODUCT_UPDATE = Cues(
    subject=_rx(
        r"introducing",
        r"now (?:generally )?available",
        r"new features?",
        r"what'?s new",
        r"product updates?",
        r"(?:we'?ve|we have) (?:launched|released|shipped)",
        r"release notes",
        r"changelog",
        r"announcing",
        r"neu:",
        r"nouveau ?:",
        r"novedad",
        r"novidade",
        r"novita",
    )
)

NEWSLETTER = Cues(
    subject=_rx(
        r"newsletter",
        r"digest",
        r"weekly",
        r"this week in",
        r"the week in",
        r"week in review",
        r"(?<!new )issue #?\d",
        r"edition",
        r"hebdomadaire",
        r"semanal",
        r"settimanale",
        r"wochentlich",
        r"(?:weekly|monthly) (?:report|summary)",
        r"bulletin",
        r"briefing",
        r"roundup",
        r"top stories",
        r"recap",
        r"summary for",
        r"boletin",
        r"boletim",
        r"novedades .* (?:semana|mes)",
        r"de la semana",
        r"esta semana",
        r"der woche",
        r"wochen",
        r"meldungen",
        r"lettre d'info",
        r"de la semaine",
        r"cette semaine",
        r"le cose da sapere",
        r"notiziario",
        r"rassegna",
        r"della settimana",
        r"da semana",
        r"informativo",
    )
)

PROMOTION = Cues(
    anywhere=_rx(
        r"\d+ ?% (?:off|de descuento|rabatt|de reduction|de desconto|di sconto)",
        r"-\d+ ?%",
        r"ate \d+ ?%",
        r"up to \d+ ?%",
        r"sales? (?:ends|event|starts)",
        r"(?:spring|summer|autumn|fall|winter|black friday|flash|big|end of season) sale",
        r"discount",
        r"deals?\b",
        r"coupon",
        r"promo(?:tion)? code",
        r"use code",
        r"code [a-z]+\d+",
        r"free (?:shipping|gift|delivery)",
        r"limited (?:time|stock|offer)",
        r"last chance",
        r"ends (?:tonight|today|soon|sunday|at midnight)",
        r"shop now",
        r"buy now",
        r"new in:",
        r"new (?:arrivals|collection)",
        r"bonus (?:points|miles)",
        r"double (?:miles|points)",
        r"save up to",
        r"trade in",
        r"don'?t miss",
        r"exclusive offer",
        r"special offer",
        # es
        r"rebajas",
        r"descuentos?",
        r"ofertas?\b",
        r"envio gratis",
        r"ultima oportunidad",
        r"no te (?:lo )?puedes perder",
        r"solo hasta",
        # de
        r"rabatt",
        r"angebote?\b",
        r"gutschein",
        r"sparen",
        r"fruhbucher",
        r"jetzt (?:kaufen|bestellen|buchen)",
        # fr
        r"soldes",
        r"promo",
        r"reduction",
        r"offres?\b",
        r"profitez",
        r"jusqu'a",
        # pt
        r"promocao",
        r"desconto",
        r"frete gratis",
        r"cupom",
        r"so ate",
        # it
        r"sconto",
        r"offerta",
        r"saldi",
        r"promozione",
        r"risparmia",
    )
)

REVIEW = Cues(
    anywhere=_rx(
        r"new review",
        r"left (?:you )?a (?:\d[- ]star )?review",
        r"(?:wrote|posted) a review",
        r"received a new (?:\d[- ]star )?review",
        r"\d[- ]star review",
        r"★",
        r"nouvel avis",
        r"nouveaux avis",
        r"nueva (?:resena|opinion|valoracion)",
        r"neue bewertung",
        r"nova avaliacao",
        r"nuova recensione",
    )
)

EVENT_INVITE = Cues(
    anywhere=_rx(
        r"conference",
        r"summit",
        r"expo\b",
        r"trade (?:fair|show)",
        r"congress",
        r"symposium",
        r"call for (?:papers|abstracts|proposals|speakers|submissions)",
        r"cfp",
        r"early[- ]?bird",
        r"tickets? (?:on sale|sales|available|sichern)",
        r"register now",
        r"registration (?:is )?open",
        r"save your seat",
        r"webinar",
        r"badge",
        r"congreso",
        r"feria",
        r"jornada:",
        r"messe",
        r"kongress",
        r"tagung",
        r"salon",
        r"congres",
        r"colloque",
        r"feira",
        r"congresso",
        r"fiera",
        r"convegno",
    )
)

PUBLISHING = Cues(
    anywhere=_rx(
        r"invitation to (?:review|submit|contribute)",
        r"review (?:the )?manuscript",
        r"special issue",
        r"call for (?:papers|abstracts)",
        r"table of contents",
        r"volume \d+ (?:is )?(?:now )?available",
        r"manuscript",
        r"journal of",
        r"peer review",
    )
)

PAPER_DECISION = Cues(
    subject=_rx(
        r"decision on (?:your )?(?:manuscript|submission|paper|article)",
        r"(?:manuscript|paper|submission|article) (?:accepted|rejected)",
        r"(?:minor|major) revision",
        r"editorial decision",
    )
)

BOOKING = Cues(
    anywhere=_rx(
        r"new (?:online )?(?:booking|reservation|appointment)",
        r"(?:booking|reservation|appointment) (?:request|confirmed|cancelled|canceled)",
        r"reservation",
        r"reserva\b",
        r"reservierung",
        r"prenotazion",
        r"agendamento",
        r"couverts?",
        r"\d+ pers\.",
        r"mesa para \d+",
        r"tisch fur \d+",
        r"tavolo per \d+",
    )
)

PHISHING_TEXT = _rx(
    r"keep this between us",
    r"send me the codes",
)
"""What only a scam says; the language data (``scam`` tables) holds the rest."""

PAYMENT_REQUEST = _rx(
    r"(?:pay|pague|paye[rz]?|bezahlen|pagar|pagare|zahlen)\b",
    r"customs (?:fee|charge)",
    r"tasas",
    r"update your (?:details|information|account)",
    r"(?:verify|confirm) your (?:identity|account|details)",
    r"bestatigen sie ihre (?:identitat|daten)",
    r"atualize seu cadastro",
    r"actualice sus datos",
    r"(?:will be|sera|wird) (?:suspended|bloquead|blocked|gesperrt|suspendu|eingeschrankt)",
    r"eingeschrankt",
    r"(?:within|in|innerhalb von|en) (?:the next )?(?:24|48) (?:hours|horas|stunden|heures|ore)",
)

ASKS = _rx(
    r"can you",
    r"could you",
    r"would you",
    r"will you",
    r"are you (?:able|free|available|around|still|ok|coming|in)",
    r"do you (?:have|want|know|mind|need|think)",
    r"please (?!find|see|note|be aware|ignore)[a-z]+",
    r"let me know",
    r"i need (?:you|your)",
    r"need to know",
    r"get back to me",
    r"your (?:thoughts|input|approval|feedback|opinion)",
    r"what do you think",
    r"call me",
    r"would like to",
    r"bitte\b",
    r"por favor",
    r"per favore",
    r"s'il (?:te|vous) plait",
    r"looking forward to (?:your|hearing)",
    # es
    r"puedes",
    r"podrias",
    r"podria",
    r"me (?:mandas|envias|confirmas|dices|llamas|avisas|ayudas|recoges|puedes)",
    r"necesito",
    r"dime",
    r"te parece",
    r"sabes si",
    r"quedamos",
    # de
    r"kannst du",
    r"konntest du",
    r"konnten sie",
    r"konnen sie",
    r"wurden sie",
    r"bitte (?:um|senden|schicken|bestatigen|melden|pruf|reichen|lassen|geben)",
    r"ich brauche",
    r"melde dich",
    r"ruf mich",
    r"gib mir bescheid",
    r"ruckmeldung",
    r"ruckfrage",
    # fr
    r"peux-tu",
    r"pouvez-vous",
    r"pourriez-vous",
    r"pourrais-tu",
    r"dis-moi",
    r"dites-moi",
    r"j'ai besoin",
    r"rappelle-moi",
    r"merci de (?:me |nous )?(?:confirmer|repondre|envoyer|rappeler)",
    # pt
    r"pode(?:ria)?\b",
    r"consegue",
    r"me (?:manda|envia|confirma|avisa|liga|diz)",
    r"preciso",
    r"aguardo",
    r"gostaria de",
    # it
    r"puoi",
    r"potresti",
    r"potrebbe",
    r"mi (?:mandi|invii|confermi|dici|chiami)",
    r"ho bisogno",
    r"fammi sapere",
    r"aspetto (?:una|la tua|il tuo)",
)

NO_ASK = _rx(
    r"no need to (?:reply|respond|answer)",
    r"nothing (?:needed|required) from you",
    r"no action (?:needed|required)",
    r"just (?:fyi|sharing|so you know)",
    r"fyi\b",
    r"for the record",
    r"no hace falta (?:que )?(?:contestes|responder)",
    r"keine antwort notig",
    r"pas besoin de repondre",
    r"nao precisa responder",
    r"non serve rispondere",
)

URGENT = _rx(
    r"urgent",
    r"asap",
    r"as soon as possible",
    r"immediately",
    r"right away",
    r"today",
    r"tonight",
    r"this (?:morning|afternoon|evening)",
    r"by (?:noon|eod|end of day|\d{1,2}(?::\d\d)?(?: ?[ap]m)?\b)",
    r"deadline",
    r"running late",
    r"emergency",
    r"(?:is|was|has been|have been) (?:cancel+ed|moved|postponed|rescheduled|delayed)",
    r"(?:cancelad[oa]|anulad[oa]|aplazad[oa]|abgesagt|verschoben|annulee?|reportee?|"
    r"adiad[oa]|annullat[oa]|rinviat[oa])\b",
    r"hoy",
    r"esta (?:noche|tarde|manana)",
    r"cuanto antes",
    r"dringend",
    r"eilig",
    r"heute",
    r"sofort",
    r"umgehend",
    r"aujourd'hui",
    r"ce soir",
    r"tout de suite",
    r"des que possible",
    r"hoje",
    r"agora",
    r"o quanto antes",
    r"oggi",
    r"stasera",
    r"subito",
    r"al piu presto",
)
