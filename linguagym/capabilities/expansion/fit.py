"""Fit, not frequency: which of a masked sentence's valid fills become expansions.

A blind reader of the default run (#38) accepted the inserted words of only 0.39 of 220 expansions: the filler
ranks what is probable after the left context anywhere ("the *human* heart", "the *current* drama", "*local*",
"*initial*", "*female*"), not what fits this noun, and across the run the 10 most used words made 34% of the
1,365 insertions. Two steps answer it, both after the validator and the ranking checks:

- ``fit_score``: a fill ranks by its confidence (log2 P(filled window) - log2 P(seed window), which is mostly the
  inserted words' log-probability in context) less ``weight`` times the words' log2 probability in a neutral
  context for their tag (``NEUTRAL_CONTEXTS``, under the same filler: ``Filler.prior``). At weight 1 this is the
  fill's pointwise mutual information with its context; a word that is probable after "It is the" whatever the
  noun ("human", "current", "first") loses to one that this sentence makes probable. The weight stays below 1
  because pure PMI favours rare words that fit nowhere (``benchmarks/expansion_fit.py`` measures the weights on the
  judged samples of ``benchmarks/``: ``FIT_WEIGHT``). The filler is asked for ``POOL`` times as many fills as are
  kept, so the re-ranking has something to choose from (the filler scores every candidate that passes validation
  anyway: the wider request costs no model work). Only fills within ``MARGIN`` bits of the masked sentence's most
  confident valid fill compete: on the judged samples a fill's rank by confidence in its masked sentence was the
  best single predictor of its being accepted (0.83 for the best fill down to 0.36 for the 11th-20th,
  ``defaults.py``), so fit chooses among the fills the filler finds about equally plausible here, and never
  promotes one far below them.
- ``WordCap``: one word may be inserted at most ``MAX_USES`` times in one capability's expansions (each LC is a test
  set of its own); a fill over the cap is refused (``OVERUSED``) and the masked sentence's next best fill takes its
  place, so a few generic words cannot dominate a capability. A cap across the whole run (12) starved the last
  capabilities, whose clauses LC8-LC11 share: measured on the default run, LC10 kept 60 of 183 expansions and LC11
  53 of 191.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from linguagym.capabilities.expansion.check import Check

# The neutral context each inserted tag's prior probability is taken in: a slot of the same kind with nothing in
# it that a modifier could fit or clash with. An adjective goes after a determiner, an adverb after a copula.
NEUTRAL_CONTEXTS = {"JJ": "It is the", "JJR": "It is the", "JJS": "It is the", "RB": "It is", "RBR": "It is",
                    "RBS": "It is"}
DEFAULT_CONTEXT = "It is the"
# How much of the neutral prior is taken off (0: the filler's confidence alone; 1: PMI). On the 1,700 judged
# expansions of benchmarks/ (benchmarks/expansion_fit.py, across masked sentences) the AUC of "the insertion caused
# no error" was 0.598 at 0, 0.609 at 0.25, 0.599 at 0.5, 0.571 at 1: a quarter, past which rare words win.
FIT_WEIGHT = 0.25
POOL = 4  # fills asked of the filler per fill kept
MARGIN = 3.0  # bits below the masked sentence's most confident valid fill that a fill may be and still compete
# insertions of one word in one capability: 4 (about 2% of a default run's 190 for LC8-LC11) until the attested rule
# (``attested.py``) offered the heads' own modifiers; then 3, since a blind reader rejected repeated uses together
# ("human heart" 3 of 3, "recent year" 2 of 2 in benchmarks/expansion_blind_38_judged.jsonl); 2 refused 72 fills of
# a default run that kept only 231 expansions
MAX_USES = 3


def neutral_context(tag: str) -> str:
    """The neutral context a fill of ``tag`` is compared with."""
    return NEUTRAL_CONTEXTS.get(tag, DEFAULT_CONTEXT)


def fit_score(confidence: float, priors: Sequence[float] | None, weight: float = FIT_WEIGHT) -> float:
    """The fill's confidence less ``weight`` times the log2 prior probabilities of its words (``priors``; None:
    the confidence alone). Higher is a better fit."""
    return confidence if priors is None else confidence - weight * sum(priors)


def within_margin(confidences: Sequence[float], margin: float = MARGIN) -> list[bool]:
    """For each of a masked sentence's fills (their ``confidences``), whether it is within ``margin`` bits of the
    most confident."""
    best = max(confidences, default=0.0)
    return [c >= best - margin for c in confidences]


class WordCap:
    """How often each word was inserted in this run, and whether another use stays within ``limit`` (None: no
    cap). Words count lower-cased."""

    def __init__(self, limit: int | None = MAX_USES) -> None:
        self.limit = limit
        self.used: Counter[str] = Counter()

    def over(self, words: Sequence[str]) -> str | None:
        """The first of ``words`` already inserted ``limit`` times, or None."""
        if self.limit is None:
            return None
        return next((w for w in words if self.used[w.lower()] >= self.limit), None)

    def take(self, words: Sequence[str]) -> None:
        self.used.update(w.lower() for w in words)


OVERUSED = Check("overused", "select", f"a fill whose word was inserted the most times a capability allows already "
                 f"(``fit.MAX_USES``, {MAX_USES}); the masked sentence's next best fill is taken instead")
