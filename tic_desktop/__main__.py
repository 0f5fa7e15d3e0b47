"""``python -m tic_desktop`` is the ``tic`` command: the desktop app, or a subcommand."""

import sys

from tic_desktop.launcher import main

sys.exit(main())
