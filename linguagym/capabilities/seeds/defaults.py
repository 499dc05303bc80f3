"""The seed cap every face uses by default. A module of its own so the command line's ``--help`` can name it
without importing seed generation (about 40 ms)."""

from __future__ import annotations

# The paper's protocol: at most 50 seeds per capability, a seeded random draw from every match. Without a cap
# the default dataset gives about 42,000 seeds, and excluding them and their source sentences from training
# (``lct train-classifier --exclude``) leaves no training rows.
DEFAULT_MAX_SEEDS = 50

# Fewer seeds than this and a capability's failure rate says little (one seed is 10 points of it): the test file
# notes why it has fewer, and ``lct generate`` says so.
MIN_SEEDS = 10
