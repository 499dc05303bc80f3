"""Where an insertion may go, and what it may not do to the seed's own words.

- Not before the sentence's first word. Reviews often start with a name, a title or a fragment ("Schrader
  examines ...", "Daughter From Danang sticks ...", "Elegant and eloquent (meditation) ..."); a word put before
  it must also lower-case it, which turns names into nouns ("The second schrader"), and the causal filler, with
  no left context, proposes nearly at random there (11 of 14 judged sentence-initial insertions were wrong).
- The seed's words next to the insertion keep their word class: when the tagger reads one as another part of
  speech in the filled sentence, the insertion has re-analysed the sentence ("surrounded by open the windows"
  turns the adjective "open" into a verb, "It's a total light on scares" the adjective "light" into a noun).
  Only the neighbours are compared: the tagger's own wavering on words further away is not the insertion's.
"""

from __future__ import annotations

from collections.abc import Sequence

from linguagym.capabilities.expansion.check import Check, Problem

# Penn tags grouped by word class; a change inside one group ("NN" -> "NNS", "VBZ" -> "VBP") is not a new reading
_CLASSES = {"NN": "noun", "NNS": "noun", "NNP": "noun", "NNPS": "noun", "PRP": "noun",
            "VB": "verb", "VBD": "verb", "VBG": "verb", "VBN": "verb", "VBP": "verb", "VBZ": "verb", "MD": "verb",
            "JJ": "adjective", "JJR": "adjective", "JJS": "adjective",
            "RB": "adverb", "RBR": "adverb", "RBS": "adverb", "RP": "adverb"}


def position_problems(tokens: Sequence, inserted: Sequence[int], seed_tokens: Sequence | None = None) -> list[Problem]:
    """Why the insertion at ``inserted`` (indices into the filled sentence's ``tokens``) stands where it may not or
    re-reads the seed (``seed_tokens``: the seed sentence's tokens, tagged alone; None skips that check)."""
    problems = []
    first = next((i for i, t in enumerate(tokens) if not t.is_punct), None)
    if first is not None and first in inserted:
        problems.append(POSITION.problem(f"{tokens[first].text!r} is put before the sentence's first word"))
    if seed_tokens is not None:
        taken = set(inserted)
        kept = [i for i in range(len(tokens)) if i not in taken]
        neighbours = {j for i in inserted for j in (i - 1, i + 1)} - taken
        if len(kept) == len(seed_tokens):  # else the tokenisation changed: the tag checks have judged that
            for old, index in zip(seed_tokens, kept, strict=True):
                if index not in neighbours:
                    continue
                new = tokens[index]
                before, after = _CLASSES.get(old.tag), _CLASSES.get(new.tag)
                if before is not None and after is not None and before != after:
                    article = "an" if after[0] in "aeiou" else "a"
                    problems.append(POSITION.problem(f"the seed's {old.tag} {old.text!r} is read as {article} {after} "
                                                     f"({new.tag}) after the insertion"))
                    break
    return problems


POSITION = Check("position", "insertion", "an insertion before the first word, or one that makes a seed's word change "
                 "its word class", position_problems)
