"""One engine per workspace. Whichever front end starts first (the tray app, ``tic tick``,
``tic ingest``, ``tic chat``) takes the workspace's OS lock (``lock``) for its life and, while
it runs the engine, listens on a Unix socket in the workspace (``server``). Every other front
end hands its work to it (``client``, ``handover``; a terminal chat attaches, ``attach``), or waits
for the lock when the holder will soon finish. Newline-delimited JSON, one request and one
answer (a session keeps its connection for more).

``server`` answers from a table of handlers, one per command: the engine's own (``endpoint``,
while ``Engine.serve`` runs) plus whatever the front end that hosts the engine adds. The channel
is bounded (request size, connections, idle time) and takes no file paths from clients."""
