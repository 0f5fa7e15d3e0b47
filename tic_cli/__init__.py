"""TIC Desktop's command line: ``tic-desktop`` with a subcommand. A front end beside
``desktop/``: it uses the engine only through its façade, its bus messages and plain data
(tests/test_layering.py), and each command imports what it runs when it runs, so ``--help``
loads none of the engine (tests/test_cli_imports.py)."""
