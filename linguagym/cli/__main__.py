"""``python -m linguagym.cli``: the same as the ``linguagym`` command."""

import sys

from linguagym.cli.entry import main

sys.exit(main())
