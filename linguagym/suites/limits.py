"""What a valid suite may still hold that no model can score: a sentence longer than any model's context.

``validate`` accepted a 10 MB region that ``run`` then refused ("needs 2000001 tokens but the model accepts at most
8192"). Tokens depend on the model, so this is a lower bound that holds for every tokenizer linguagym runs: each
word (a run of characters between spaces) is at least one token. A sentence with more words than the longest
context of the models in use is reported as a warning, with where it is.
"""

from __future__ import annotations

from linguagym.errors import Problem
from linguagym.suites.model import Suite

LONGEST_CONTEXT = 131_072  # tokens: beyond the named models (smollm2-135m 8,192; gemma-3-270m 32,768) and most others


def unscorable_sentences(suite: Suite, longest: int = LONGEST_CONTEXT) -> list[Problem]:
    """A warning for each condition whose sentence has more words than ``longest`` tokens: no model can score it."""
    found = []
    for item in suite.items:
        for condition in item.conditions:
            words = sum(len(region.content.split()) for region in condition.regions)
            if words > longest:
                found.append(Problem(f"item {item.number}, condition {condition.name!r}",
                                     f"the sentence has {words:,} words, so at least as many tokens: more than a "
                                     f"context of {longest:,} tokens (smollm2-135m takes 8,192, gemma-3-270m "
                                     "32,768); run will refuse it with such models: split it"))
    return found
