"""``python -m engine`` runs the headless ``tic`` commands (the desktop app is started by the
launcher, ``python -m tic_desktop``)."""

import sys

from engine.cli import main

sys.exit(main())
