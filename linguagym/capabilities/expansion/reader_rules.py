"""Three refusals a careful reader's verdicts call for (#38): ``proper``, ``quantifier`` and ``own``.

A blind reader judged 240 default expansions made with the attested rule (``attested.py``; the rows are
``benchmarks/expansion_blind_39*``): 121 acceptable. Three kinds of insertion the attested rule lets through were
rejected nearly always:

- ``proper``: a word the dataset writes capitalized in most of its mid-sentence occurrences ("French", "American",
  "Japanese") inserted in lower case ("a french film": french 0 of 3, american 0 of 3 judged acceptable). A proper
  adjective in lower case is a spelling error, and it asserts a fact (a nationality) that the review does not make.
  The dataset decides which words are proper (no word list): at least ``PROPER_MIN`` mid-sentence occurrences, more
  than half of them capitalized (mid-sentence: after a word in lower case or a comma, so that a title's run
  "Legally Blonde" does not make "blonde" proper);
- ``quantifier``: the closed class of quantifiers ``QUANTIFIERS`` ("much", "many", "few", "several", "more", "most",
  "less", "least", "enough") is not a modifier to insert: it changes how much the sentence says there is ("the
  much fun": much 0 of 3; "for our many times": many 7 of 12);
- ``own``: "own" only right after a possessive determiner ``POSSESSIVES`` ("her own kids", "its own style": 5 of
  6 acceptable); elsewhere 0 of 6 ("the own well wrought story", "Noyce's own film", "his sense of own story").

They run with the ``attested`` rule (``ExpansionSettings.attested``), at the *usage* stage, on each inserted word;
``benchmarks/expansion_attested.py reader`` measures them on the judged rows (the rows they were chosen on).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from linguagym.capabilities.expansion.check import Check, Problem

# a closed class, stated: the quantifiers (how much or how many), never inserted
QUANTIFIERS = frozenset({"much", "many", "few", "several", "more", "most", "less", "least", "enough"})
# the possessive determiners "own" may follow
POSSESSIVES = frozenset({"my", "your", "his", "her", "its", "our", "their"})
# the fewest mid-sentence occurrences that say how the dataset writes a word
PROPER_MIN = 2
# what ends or opens a sentence or quotation: the word after it may be capitalized for that alone
_OPENERS = frozenset({".", "!", "?", "...", ":", ";", '"', "``", "''", "'", "(", "-LRB-", "--", "-"})


def _mid_sentence(tokens: Sequence, i: int) -> bool:
    """Whether ``tokens[i]`` is capitalized, if it is, for itself: not first, not after what opens a sentence or
    quotation, and not after a capitalized word (a title's or a name's run: "Legally Blonde")."""
    return i > 0 and tokens[i - 1].text not in _OPENERS and not tokens[i - 1].text[:1].isupper()


@dataclass(frozen=True)
class Capitals:
    """Per lower-cased word: its mid-sentence occurrences in the dataset, and how many of them are capitalized."""

    seen: Counter
    capitalized: Counter

    @classmethod
    def from_analyses(cls, analyses: Sequence) -> Capitals:
        seen: Counter = Counter()
        capitalized: Counter = Counter()
        for analysis in analyses:
            tokens = analysis.tokens
            for i, token in enumerate(tokens):
                if token.is_punct or not _mid_sentence(tokens, i):
                    continue
                seen[token.lower] += 1
                if token.text[:1].isupper():
                    capitalized[token.lower] += 1
        return cls(seen, capitalized)

    def is_proper(self, word: str) -> bool:
        """Whether the dataset writes ``word`` capitalized in most of its mid-sentence occurrences."""
        word = word.lower()
        seen = self.seen.get(word, 0)
        return seen >= PROPER_MIN and 2 * self.capitalized.get(word, 0) > seen


def _on(vocabulary) -> bool:
    return vocabulary.modifiers is not None and vocabulary.checks_words


def proper_problems(vocabulary, tokens: Sequence, i: int) -> list[Problem]:
    """The ``proper`` refusal of the inserted word ``tokens[i]``: written in lower case, but a word the dataset
    mostly capitalizes mid-sentence."""
    token = tokens[i]
    capitals = vocabulary.capitals
    if not _on(vocabulary) or capitals is None or token.text[:1].isupper() or not capitals.is_proper(token.text):
        return []
    word = token.lower
    return [PROPER.problem(f"the inserted {token.text!r} is written in lower case, but the dataset capitalizes it in "
                           f"{capitals.capitalized[word]} of its {capitals.seen[word]} mid-sentence occurrences")]


def quantifier_problems(vocabulary, tokens: Sequence, i: int) -> list[Problem]:
    """The ``quantifier`` refusal of the inserted word ``tokens[i]``: one of ``QUANTIFIERS``."""
    if not _on(vocabulary) or tokens[i].lower not in QUANTIFIERS:
        return []
    return [QUANTIFIER.problem(f"the inserted {tokens[i].text!r} is a quantifier (it says how much or how many), "
                               "not a modifier")]


def own_problems(vocabulary, tokens: Sequence, i: int) -> list[Problem]:
    """The ``own`` refusal of the inserted word ``tokens[i]``: "own" not right after a possessive determiner."""
    if not _on(vocabulary) or tokens[i].lower != "own":
        return []
    before = tokens[i - 1].lower if i > 0 else None
    if before in POSSESSIVES:
        return []
    where = f"after {tokens[i - 1].text!r}" if i > 0 else "at the start"
    return [OWN.problem(f"the inserted 'own' stands {where}, not right after my/your/his/her/its/our/their")]


PROPER = Check("proper", "usage", "an inserted word in lower case that the dataset mostly capitalizes mid-sentence "
               "(``reader_rules.py``)", proper_problems)
QUANTIFIER = Check("quantifier", "usage", "an inserted quantifier (much, many, few, several, more, most, less, least, "
                   "enough; ``reader_rules.py``)", quantifier_problems)
OWN = Check("own", "usage", "an inserted 'own' not right after a possessive determiner (``reader_rules.py``)",
            own_problems)
READER_CHECKS: tuple[Check, ...] = (PROPER, QUANTIFIER, OWN)
