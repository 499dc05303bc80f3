"""``ExpansionSettings``: how many seeds, masks and fills expansion works through, and what it keeps; a frozen value
checked once, when it is made (the command line, the web form and Python callers build one alike)."""

from __future__ import annotations

from dataclasses import dataclass

from linguagym.capabilities.errors import SettingError, at_least
from linguagym.capabilities.expansion.defaults import (
    DEFAULT_INSERTIONS,
    FILLS_PER_MASK,
    INSERTION_SETS,
    MASKED_PER_SEED,
)
from linguagym.capabilities.expansion.fit import FIT_WEIGHT, MAX_USES
from linguagym.capabilities.expansion.plausibility import MAX_COST
from linguagym.capabilities.expansion.selection import SELECTIONS


@dataclass(frozen=True)
class ExpansionSettings:
    # The paper's protocol (#21): every seed expanded, every valid fill kept; per masked sentence its 3 best fills,
    # not the paper's 20 (defaults.py says why); the masked sentences per seed are what fits the 15-minute run.
    seeds_per_capability: int | None = None  # seeds expanded per capability (a seeded sample); None: all
    per_seed: int | None = None  # expansions kept per seed, the best by selection; None: every valid one
    masked_per_seed: int = MASKED_PER_SEED  # masked sentences filled per seed (most probable productions first)
    fills_per_mask: int = FILLS_PER_MASK  # candidate fills per masked sentence: at most this many expansions from each
    max_masks: int = 2
    max_disruption: float = 3.5  # bits the words after a fill may lose (causal filler): the fluency check
    max_cost: float | None = MAX_COST  # bits an inserted word may cost (causal filler): the plausibility check
    # times an inserted adjective or adverb must occur in the dataset (the domain check; None: neither it nor mass).
    # 0 (off) by default: MIN_COUNT was best on the dev set, but on the held-out sample it refused 20 ungrammatical
    # and 27 grammatical expansions, hardly better than chance, for a fifth of the output; mass stays on (7 and 0)
    min_domain_count: int | None = 0
    selection: str = "score"  # or "random" (the paper's baseline)
    insertions: str = DEFAULT_INSERTIONS  # kinds of insertion made (``insertions.py``): modifiers, or all (the paper)
    # fit, not frequency (``fit.py``): the share of a fill's neutral-context log2 prior taken off its confidence when
    # a masked sentence's fills are ranked (0: confidence alone, 1: PMI), and the most insertions of one word in a
    # capability (None: no cap)
    fit_weight: float = FIT_WEIGHT
    max_word_uses: int | None = MAX_USES
    # insert only adjectives and adverbs the dataset uses with the same head (``attested.py``; needs the domain
    # vocabulary: min_domain_count not None); the filler is also offered the head's attested modifiers
    attested: bool = True
    # insert only adjectives and adverbs blind readers accepted in most judged rows (``reader_lexicon.py``; needs the
    # domain vocabulary); the filler is offered only the attested modifiers the lexicon keeps
    reader_lexicon: bool = True

    def __post_init__(self) -> None:
        for setting in ("seeds_per_capability", "per_seed"):  # 0 is allowed: no seeds expanded, no expansion kept
            at_least(setting, getattr(self, setting), 0)
        for setting in ("masked_per_seed", "fills_per_mask", "max_masks"):
            at_least(setting, getattr(self, setting), 1)
        at_least("max_word_uses", self.max_word_uses, 1)
        if not 0 <= self.fit_weight <= 1:
            raise SettingError("fit_weight", f"is {self.fit_weight}, outside 0..1",
                               hint="give 0 (the filler's confidence alone) up to 1 (pointwise mutual information)")
        if self.selection not in SELECTIONS:
            raise SettingError("selection", f"names an unknown selection {self.selection!r}",
                               hint=f"give one of {', '.join(SELECTIONS)}")
        if self.insertions not in INSERTION_SETS:
            raise SettingError("insertions", f"names an unknown insertion set {self.insertions!r}",
                               hint=f"give one of {', '.join(INSERTION_SETS)}")


DEFAULT_EXPANSION_SETTINGS = ExpansionSettings()
