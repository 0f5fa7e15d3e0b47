"""Real data written by other projects, through TIC the way a user's accounts feed it.

Usage::

    python -m tests.sources.real_fixtures FOLDER [--json] [--only imap,gmail,whatsapp,gcal]

FOLDER holds ``whatsapp/``, ``email/``, ``gmail/``, ``gcal/`` and ``SOURCES.md`` (where each
file came from); it is only read, never copied into the repository. Nothing here is collected
by pytest: it is a measurement, printed as a report (figures per source, a per-file table, the
problems found, and the commit measured) or, with ``--json``, as JSON.

What goes where, and what is counted:

- IMAP (``mail``): a real Dovecot (``tests/sources/dovecot.py``). The account is synced once
  while its INBOX is empty, then every file under ``email/`` (sorted, spam included) is
  APPENDed and ``ImapSource`` is polled through ``sync_once`` until a poll stores nothing new.
  Counted: polls, polls that raised (of them tracebacks: exceptions outside ``SourceError``),
  messages that block the mailbox (every retry fails at the same cursor; the message is found
  with one-message pages, reported and stepped over, so the rest is still measured), whether
  the cursor ends past the last message, events stored vs messages appended (the store keeps
  one event per Message-ID, by design, and these fixtures reuse Message-IDs). The checks below
  take each file's own event, as the source made it, stored or not.
- Gmail (``mail``): every ``users.messages.get`` capture under ``gmail/`` is delivered to the
  fake Gmail (``tests/sources/fake_google.py``) as a new inbox message with a history record,
  and ``GmailSource`` syncs incrementally. A capture without the INBOX label gets it, and a
  capture repeating another's id gets its own; both are counted.
- Email text (``mailtext``), over every IMAP and Gmail event, against the file's own MIME parts
  read with the standard library: HTML element tags in the text (and, apart, anything matching
  ``<[a-zA-Z/!][^>]*>``, which ``<user@host>`` does too), empty text and why (a blank plain part
  hiding the HTML one, a multipart without parts, attachments only, no body at all, or a body
  TIC did not read), mojibake (8-bit text read as Latin-1), attachment-only mails whose event
  names no attachment.
- Spam (``spam``): every email event decided by ``TriageDecider.decide_in_code`` (the compiled
  rules, then the heuristics; no model), with an empty rules file and with an Always line about
  someone else. Spam is what its project filed as spam or phishing (a ``spam`` folder or a
  spam / phishing / phishy / scam word in its upstream path, from ``SOURCES.md``), SpamAssassin's
  ``spam/`` apart from the others; SpamAssassin's ``nice/`` is the ham.
- WhatsApp (``whatsapp``): each export alone in its own folder, read by
  ``WhatsAppExportSource`` through ``sync_once`` into its own store. A generous header regex
  counts the lines that begin a message (any date order and separator, brackets, 12/24 h,
  "klo", AM/PM variants, marks, BOM); lines without "sender: " and system notices written as
  a sender's (encryption, business notice, "created group", deleted-message placeholders, in
  the languages present) are subtracted. Per file: refusals and why, messages expected vs
  stored (the lost lines are named), raw media markers left in the text, header lines glued
  into a message, chat names keeping a "WhatsApp Chat with/mit" prefix, misdated messages and a
  stored order going backwards more often than the file's own. Dates are judged against the
  project's own expected parse when one sits next to the file (chat-miner's ``target.json``),
  else against the order the values prove (a first field > 12 is a day, a 4-digit one a
  year), else, when every value fits day- and month-first, against the order under which the
  chat's days follow each other closely (read the wrong way, it jumps a month at every new
  day); a chat of a single day is not judged.
- Calendar (``gcal``): captures under ``gcal/`` that are steps of one scenario (``all-1``,
  ``all-2``) go in order to one fake calendar, each step's items put as changes and read by an
  incremental ``CalendarSource`` sync; other captures get a calendar each. Counted: cancelled
  items vs cancellation events (cancellations of occurrences due outside TIC's window apart),
  deleted single occurrences (``recurringEventId`` + ``cancelled``) and whether TIC had seen
  their series, ``events.get`` reads, changes in TIC's window that produced no event.

Whatever the engine logs at WARNING or above is counted per part. One failing file is reported
as a problem and the run goes on.
"""
