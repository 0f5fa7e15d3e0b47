"""``python -m engine`` runs the ``tic-desktop`` command line."""

import sys

from engine.cli import main

sys.exit(main())
