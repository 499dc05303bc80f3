"""The linguistic checks on an insertion, run on the filled sentence as the tagger reads it in context.

Each rule family has its module: ``modifiers`` (adverbs and adjectives), ``nominals`` (no noun-noun compounds),
``function_words`` (determiners, prepositions, subordinators), ``positions`` (not at the start; the seed's words
keep their word class), ``protected`` (not into a name, title, quotation or compound).
``benchmarks/expansion_quality.py`` measures them on the 220 blind-judged expansions of the default run
(``benchmarks/expansion_judged.jsonl``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from linguagym.capabilities.expansion.check import Check, Problem
from linguagym.capabilities.expansion.differentiate import MaskedSentence
from linguagym.capabilities.expansion.function_words import FUNCTION
from linguagym.capabilities.expansion.modifiers import MODIFIER
from linguagym.capabilities.expansion.nominals import COMPOUND
from linguagym.capabilities.expansion.positions import POSITION
from linguagym.capabilities.expansion.protected import PROTECTED_CHECKS
from linguagym.capabilities.syntax.parsers import Parsed

# the rule families' checks (stage ``insertion``), in the order they run, and their names
INSERTION_CHECKS: tuple[Check, ...] = (POSITION, MODIFIER, COMPOUND, FUNCTION, *PROTECTED_CHECKS)
CHECKS = tuple(check.name for check in INSERTION_CHECKS)


def insertion_problems(tokens: Sequence, inserted: Sequence[int],
                       seed_tokens: Sequence | None = None) -> list[Problem]:
    """Every rule family's reasons for refusing the words at ``inserted`` (indices into ``tokens``, the filled
    sentence's analysis tokens); ``seed_tokens``: the seed's tokens, for the re-reading check (None skips it)."""
    inserted = sorted(inserted)
    return [problem for check in INSERTION_CHECKS for problem in check.problems(tokens, inserted, seed_tokens)]


@dataclass(frozen=True)
class _Slot:
    """A token as the rules read it: a seed word, or a placeholder for a mask."""
    text: str
    tag: str
    is_punct: bool = False

    @property
    def lower(self) -> str:
        return self.text.lower()


# placeholders that the rules depending on the word itself accept (an -ly adverb, a complementizer), so that
# only the refusals that hold for every word of the mask's tag remain
_PLACEHOLDER = {"RB": "placeholderly", "IN": "that"}


def slot_problems(parsed: Parsed, masked: MaskedSentence) -> list[Problem]:
    """Refusals that every fill of ``masked`` would get, from the seed's parse (``parsed``) alone: a mask before
    the first word, a noun mask beside a noun, an adverb mask before an adverb, a determiner mask before a name or
    between a preposition and its bare noun. The expander drops such masked sentences before filling them."""
    tags = parsed.tree.tags()
    if len(tags) != len(parsed.spans):
        return []  # a parse whose leaves do not line up with its tokens: leave it to the filled sentence
    words = [_Slot(parsed.text[a:b], tag, not any(c.isalnum() for c in parsed.text[a:b]))
             for (a, b), tag in zip(parsed.spans, tags, strict=True)]
    tokens: list[_Slot] = []
    inserted: list[int] = []
    for (start, end), word in zip(parsed.spans, words, strict=True):
        for mask in masked.masks:
            if not mask.after and mask.offset == start:
                inserted.append(len(tokens))
                tokens.append(_Slot(_PLACEHOLDER.get(mask.tag, "placeholder"), mask.tag))
        tokens.append(word)
        for mask in masked.masks:
            if mask.after and mask.offset == end:
                inserted.append(len(tokens))
                tokens.append(_Slot(_PLACEHOLDER.get(mask.tag, "placeholder"), mask.tag))
    if len(inserted) != len(masked.masks):
        return []  # offsets that do not fall on the parse's tokens: leave the judgement to the filled sentence
    return insertion_problems(tokens, inserted)


SLOT = Check("slot", "masked", "a masked sentence whose every fill would fail a rule family (``slot_problems``)",
             lambda parsed, masked, insertions: slot_problems(parsed, masked))
