"""``python -m engine`` runs the ``tic`` command line."""

import sys

from engine.cli import main

sys.exit(main())
