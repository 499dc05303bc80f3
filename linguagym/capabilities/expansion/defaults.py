"""The expansion defaults every face uses. A module of its own so the command line's ``--help`` can name them
without importing the expander."""

from __future__ import annotations

# The paper's protocol (#21): up to 20 expansions per masked sentence (the 20 suggestions it takes from BERT).
FILLS_PER_MASK = 20
# Masked sentences filled per seed, the most probable productions first: what lets the full default run
# (`lct generate --lc all`: 11 capabilities, <= 50 seeds each, every seed expanded) finish in 15 minutes on two
# CPU cores (docs/performance.md, "Expansion: the causal filler": with fills validated before the filler
# re-ranks them, about 0.9 CPU seconds a masked sentence for filling and validation; at 2 per seed 1.7 on
# average, about 800 masked sentences, 13 minutes with one thread, about 10 with two; 3 per seed extrapolates to
# 17 and 13). The filler's language model and the validator's re-parse are nearly all of that time.
MASKED_PER_SEED = 2
