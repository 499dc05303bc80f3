"""Which dataset sentences may become seeds or partner sentences: truncated and broken ones are dropped, each
for a named reason, counted in the test file. The rules are conservative: a complete sentence without a final
period ("Ian Holm conquers France as an earthy Napoleon") or one quoting a title stays.

Reasons (checked in this order, the first that applies is counted):

- ``truncated``: no final punctuation and the text ends mid-phrase, on a word no sentence ends on (a determiner,
  conjunction, possessive, ``to`` or modal: ``... makes it a failure a``), or at the source's length limit, the
  longest length that several rows share, give or take ``CUT_MARGIN`` (Rotten Tomatoes' snippets were cut at
  255 characters: ``... It is a popc``). A preposition or pronoun at the end is no sign: ``goes on and on``,
  ``worth caring about``.
- ``starts mid-sentence``: the first letter, after any opening dots, quotes or brackets, is lower case
  (``meanders between its powerful moments.``, ``...does such a fine job``): the snippet's start was cut.
- ``unbalanced quotes or brackets``: an odd number of double quotes, or ( ) and [ ] that do not pair.
- ``tokenisation debris``: Penn Treebank tokens (``-LRB-``, doubled backticks or apostrophes), split clitics
  (``did n't``, ``film 's``), a space before a comma or inside brackets (``( 'Safe Conduct')``), or two
  sentences glued at a period (``cinema.another``).
- ``run together (a lost dash)``: two noun phrases run together where the source lost a dash ("an action film a
  stupefying attempt ..."), by the parse (``run_on``'s stated rule); checked only when ``screen`` is given a
  parser.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from linguagym.capabilities.data.analysis import Analysis
from linguagym.capabilities.seeds.run_on import RUN_TOGETHER, candidate, run_together

TRUNCATED = "truncated"
STARTS_MID_SENTENCE = "starts mid-sentence"
UNBALANCED = "unbalanced quotes or brackets"
DEBRIS = "tokenisation debris"
REASONS = (TRUNCATED, STARTS_MID_SENTENCE, UNBALANCED, DEBRIS, RUN_TOGETHER)
Parse = Callable[[list[str]], Iterable]  # texts -> their spaCy docs, with a dependency parse

CUT_ROWS = 3  # rows sharing the longest length that make it a length limit the source cut texts at
# characters short of that limit still counted as cut: the source counted bytes or trimmed the space it cut at
# (Rotten Tomatoes has cut texts of 251 to 255 characters: "... the boobs are fantasti")
CUT_MARGIN = 5
_FINAL = ".!?…'\")]"
# tags of words a complete sentence does not end on: determiners, conjunctions, "to", possessives, modals
_DANGLING_TAGS = frozenset({"DT", "PDT", "CC", "TO", "PRP$", "POS", "WP$", "MD"})
# the same words by spelling, for when the tagger guesses a noun at a cut ("... more of a an a": a/NN)
_DANGLING_WORDS = frozenset({"a", "an", "the", "and", "or", "but", "nor", "its", "their", "your", "our", "my"})
_DEBRIS = re.compile(r"-[LR][RSC]B-|``|''|\s(?:n't|'s|'re|'ve|'ll|'d|'m)\b|\w\s,|\(\s|\s\)|"
                     r"[a-z]{2,}\.(?!(?:com|org|net|edu|gov|html?|co|uk)\b)[a-z]{3,}")


@dataclass
class Screening:
    """Which of a dataset's sentences are usable (``usable[i]`` for ``examples[i]``), and why the others are not."""

    usable: list[bool]
    reasons: dict[int, str] = field(default_factory=dict)  # index -> reason

    @property
    def counts(self) -> dict[str, int]:
        found = Counter(self.reasons.values())
        return {reason: found[reason] for reason in REASONS if found[reason]}

    def describe(self) -> dict:
        """What the test file records: how many sentences were dropped, by reason."""
        return {"dropped": len(self.reasons), "reasons": self.counts}


def screen(texts: Sequence[str], analyses: Sequence[Analysis], parse: Parse | None = None) -> Screening:
    """Which of ``texts`` are usable; ``parse`` (texts -> parsed docs) also finds those run together, parsing only
    the few whose tags show a place for it."""
    reasons = {}
    limit = length_limit(texts)
    for index, (text, analysis) in enumerate(zip(texts, analyses, strict=True)):
        reason = unusable_reason(text, analysis, limit)
        if reason is not None:
            reasons[index] = reason
    if parse is not None:
        suspects = [i for i, analysis in enumerate(analyses) if i not in reasons and candidate(analysis)]
        for index, doc in zip(suspects, parse([texts[i] for i in suspects]), strict=True):
            if run_together(doc):
                reasons[index] = RUN_TOGETHER
    return Screening([i not in reasons for i in range(len(texts))], reasons)


def length_limit(texts: Sequence[str]) -> int | None:
    """The length the source cut its texts at: the longest length, when at least ``CUT_ROWS`` texts have it."""
    lengths = Counter(len(text.strip()) for text in texts)
    if not lengths:
        return None
    longest = max(lengths)
    return longest if lengths[longest] >= CUT_ROWS else None


def unusable_reason(text: str, analysis: Analysis, limit: int | None = None) -> str | None:
    """Why ``text`` may not be a seed (one of ``REASONS``), or None when it may; ``limit``: the source's length
    limit (``length_limit``), if it has one."""
    stripped = text.strip()
    if not stripped:
        return TRUNCATED
    if _truncated(stripped, analysis, limit):
        return TRUNCATED
    first = re.search(r"[^\W\d_]", stripped)
    if first is not None and first.group().islower() and not _mixed_case_word(stripped, first.start()):
        return STARTS_MID_SENTENCE
    if stripped.count('"') % 2 or stripped.count("(") != stripped.count(")") or \
            stripped.count("[") != stripped.count("]"):
        return UNBALANCED
    if _DEBRIS.search(stripped):
        return DEBRIS
    return None


def _truncated(text: str, analysis: Analysis, limit: int | None) -> bool:
    if text[-1] in _FINAL:
        return False
    if limit is not None and len(text) >= limit - CUT_MARGIN:
        return True
    words = [t for t in analysis.tokens if not t.is_punct]
    return not words or words[-1].tag in _DANGLING_TAGS or words[-1].lower in _DANGLING_WORDS


def _mixed_case_word(text: str, at: int) -> bool:
    """A word such as iPod or eBay: lower case first, upper case inside (a name, not a cut)."""
    word = re.match(r"\w+", text[at:])
    return word is not None and any(c.isupper() for c in word.group()[1:])
