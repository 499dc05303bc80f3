"""``python -m linguagym``: the same as the ``linguagym`` command (``python -m linguagym.cli`` works too)."""

import sys

from linguagym.cli.entry import main

sys.exit(main())
