"""``python -m tic_cli`` runs the headless ``tic-desktop`` commands (the desktop app is started
by the launcher, ``python -m tic_desktop``)."""

import sys

from tic_cli.cli import main

sys.exit(main())
