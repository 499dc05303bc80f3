"""The expansion defaults every face uses. A module of its own so the command line's ``--help`` can name them
without importing the expander."""

from __future__ import annotations

# Expansions kept per masked sentence: its 3 best valid fills by fit (``fit.py``: among those near the most probable).
# The paper takes up to 20 (the 20 suggestions of its BERT; `--expansions-per-mask 20`), but a fill's rank within its
# masked sentence predicts whether a reader finds it grammatical better than anything else we measured: on the held-out
# blind sample (220 expansions, docs/capabilities.md) the insertion was grammatical for 0.83 of the best fills, 0.69 of
# the 2nd-3rd, 0.63 of the 4th-6th, 0.47 of the 7th-10th and 0.36 of the 11th-20th; a second, stricter reader of another
# sample gave 0.57, 0.47, 0.34, 0.34 and 0.23. The top 3 keep half of the expansions, the better half.
FILLS_PER_MASK = 3
PAPER_FILLS_PER_MASK = 20
# Masked sentences filled per seed, the most probable productions first: what lets the full default run
# (`lct generate --lc all`: 11 capabilities, <= 50 seeds each, every seed expanded) finish in 15 minutes on two
# CPU cores (docs/performance.md, "Expansion: the causal filler"). Masked sentences that no fill could pass
# (``grammaticality.slot_problems``: a noun mask beside a noun, a mask before the first word ...) are dropped before
# these are chosen. 3 since the linguistic checks and the plausibility cap (#21's quality item) refuse about
# half of what the validator used to keep; the filler's language model and the validator's re-parse are nearly
# all of the time.
# 6 since the attested rule (``attested.py``): it leaves few fillable masked sentences a seed and few valid fills each
# (the default run with 3: 231 expansions in 351 s against 906 in 639 s without the rule), so more are tried
MASKED_PER_SEED = 6
# The kinds of insertion made (``insertions.py``): modifiers only by default (an adjective into a noun phrase, an
# adverb into an adjective or verb phrase, a coordinated adjective); "all" is every one the grammar allows (the paper)
INSERTION_SETS = ("modifiers", "all")
DEFAULT_INSERTIONS = "modifiers"
