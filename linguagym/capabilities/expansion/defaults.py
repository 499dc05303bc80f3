"""The expansion defaults every face uses. A module of its own so the command line's ``--help`` can name them
without importing the expander."""

from __future__ import annotations

# The paper's protocol (#21): up to 20 expansions per masked sentence (the 20 suggestions it takes from BERT).
FILLS_PER_MASK = 20
# Masked sentences filled per seed, the most probable productions first: what lets the full default run
# (`lct generate --lc all`: 11 capabilities, <= 50 seeds each, every seed expanded) finish in 15 minutes on two
# CPU cores (docs/performance.md, "Expansion: the causal filler"). Masked sentences that no fill could pass
# (``grammaticality.slot_problems``: a noun mask beside a noun, a mask before the first word ...) are dropped before
# these are chosen. 3 since the linguistic checks and the plausibility cap (#21's quality item) refuse about
# half of what the validator used to keep; the filler's language model and the validator's re-parse are nearly
# all of the time.
MASKED_PER_SEED = 3
