"""The single-instance channel: the running app listens on a Unix socket in the workspace; a
second launch, or ``tic tick`` / ``tic ingest`` from a terminal, hands its work to it so one
process owns the store's writes. Newline-delimited JSON, one request and one answer.

``client`` asks; ``server`` answers from a table of handlers, one per command: the engine's
own (``Engine.ipc_handlers``) plus whatever the front end that hosts the engine adds."""
