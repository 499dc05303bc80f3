"""Dataset sentences whose pieces were run together where the source lost a dash or a colon: "This is a train
wreck of an action film a stupefying attempt by the filmmakers ...", "It won't bust your gut and it's not
intended to it's merely a blandly cinematic ...". Read as one sentence they are run-ons, and a test built on them
(negated, quoted, expanded) is not English. The Rotten Tomatoes file wrote its dashes as spaces.

The rule, from spaCy's dependency parse (``run_together``), is stated narrowly so that it drops few whole
sentences: a common noun (not the sentence's first word) is followed, with no punctuation between, by a noun
phrase opening with "a" or "an" that the parse makes

- an appositive (``appos``: "a quiet treasure a film to be savored", "two fatal ailments a dearth of vitality"),
- a second predicate noun of a verb that already has one (two ``attr``: "is a train wreck ... a stupefying
  attempt"), or
- a bare noun-phrase adverbial whose head is not a measure (``npadvmod``: "relegated to the background a welcome
  step"; "a lot", "a bit", "a couple", "a minute" are measures, ``MEASURES``),

unless the nearest verb before it takes two objects ("gives his audience a single character", "makes the film a
fuller experience": ``TWO_OBJECTS``). Two clauses glued without punctuation ("intended to it's merely ...") are
not looked for: the parse tells them from "if you see it you'll know" too seldom (5 of 6 such flags on the default
dataset were wrong).

Only sentences whose tags show such a place (``candidate``: a common noun before "a" or "an") are parsed, about
one in sixty of the default dataset.
"""

from __future__ import annotations

from linguagym.capabilities.data.analysis import Analysis

RUN_TOGETHER = "run together (a lost dash)"
MEASURES = frozenset({"lot", "bit", "little", "couple", "few", "time", "times", "way", "minute", "minutes", "hour",
                      "hours", "day", "days", "week", "weeks", "month", "year", "years", "mile", "miles", "inch",
                      "hundred", "thousand", "dozen", "notch", "piece", "while"})
# verbs with two objects, the second of which may be "a ..." right after the first's noun
TWO_OBJECTS = frozenset({"give", "make", "call", "find", "consider", "lend", "cause", "owe", "win", "hand", "keep",
                         "garner", "cost", "save", "take", "offer", "show", "teach", "tell", "send", "bring", "buy",
                         "get", "deny", "grant", "pay", "allow", "earn", "name", "declare", "deem", "leave"})
_COMMON_NOUNS = frozenset({"NN", "NNS"})
_DEGREE = frozenset({"too", "so", "as", "how", "that", "quite", "such"})


def candidate(analysis: Analysis) -> bool:
    """Whether the tags show a place where ``run_together`` may find pieces run together (cheap: no parse)."""
    tokens = analysis.tokens
    return any(token.lower in ("a", "an") and before.tag in _COMMON_NOUNS and i > 0
               for i, (before, token) in enumerate(zip(tokens, tokens[1:], strict=False)))


def run_together(doc) -> bool:
    """Whether a parsed sentence (a spaCy ``Doc``) has pieces run together by the rule above."""
    return any(_noun_phrase_glued(token) for token in doc[2:])


def _noun_phrase_glued(token) -> bool:
    doc = token.doc
    before = doc[token.i - 1]
    if token.lower_ not in ("a", "an") or before.tag_ not in _COMMON_NOUNS or before.i == 0:
        return False
    if doc[before.i - 1].lower_ in _DEGREE:  # "too pedestrian a filmmaker": the tagger took the adjective for a noun
        return False
    verbs = [t for t in doc[:before.i] if t.pos_ in ("VERB", "AUX")]
    if verbs and verbs[-1].lemma_.lower() in TWO_OBJECTS:
        return False
    head = token.head
    if head.dep_ == "appos":
        return True
    if head.dep_ == "attr":
        return any(other.dep_ == "attr" and other.i < head.i for other in head.head.children)
    return head.dep_ == "npadvmod" and head.lower_ not in MEASURES
