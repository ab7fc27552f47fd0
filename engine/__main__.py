"""``python -m engine ...``: the command line for everything the workbench does."""

import sys

from engine.cli import main

sys.exit(main())
