"""The re-parse check: do the filled words form the constituent their mask was made for?

Differentiation (``differentiate.py``) inserts a mask because a reference production ``LHS -> r_rhs`` holds the
seed's ``LHS -> s_rhs`` plus a word-level tag: the mask is meant to become a child of that ``LHS`` phrase with
that POS tag. The filled sentence is parsed again by the same parser, and a fill is kept only if each filled
word is still one leaf, tagged as its mask, whose parent phrase is labelled ``LHS`` (all the words of one mask
set sharing that one phrase). When the filler's words do not fit the slot, the parser builds another
structure around them ("The should have been ..." makes "The" a bare determiner of a clause, "worthy
adversary departure plan" re-brackets the noun phrase), and the check fails.
"""

from __future__ import annotations

from collections.abc import Sequence

from linguagym.capabilities.expansion.check import Check, Problem
from linguagym.capabilities.expansion.differentiate import MaskedSentence
from linguagym.capabilities.syntax.parsers import Parsed
from linguagym.capabilities.syntax.trees import Tree


def leaf_parents(tree: Tree) -> list[tuple[Tree, Tree | None]]:
    """(preterminal, the phrase it belongs to) for each leaf, left to right (None above the root). A phrase that
    holds the word alone (``ADVP -> RB``: the dependency conversion wraps every adverbial so) is looked through to
    the phrase above it, as the treebank's ``VP -> MD RB VP`` holds the bare ``RB``."""
    out: list[tuple[Tree, Tree | None]] = []

    def walk(node: Tree, ancestors: tuple[Tree, ...]) -> None:
        if node.is_preterminal:
            phrase = ancestors[-1] if ancestors else None
            if phrase is not None and len(phrase.children) == 1 and len(ancestors) > 1:
                phrase = ancestors[-2]
            out.append((node, phrase))
            return
        for child in node.children:
            if isinstance(child, Tree):
                walk(child, (*ancestors, node))

    walk(tree, ())
    return out


def constituent_problems(parsed: Parsed, masked: MaskedSentence, words: Sequence[str],
                         spans: Sequence[tuple[int, int]]) -> list[Problem]:
    """Why the filled words of ``parsed`` (the re-parse of the filled sentence) are not the intended constituent;
    empty when they are."""
    leaves = leaf_parents(parsed.tree)
    if len(leaves) != len(parsed.spans):  # a parser whose leaves do not line up with its tokens: cannot judge
        return [CONSTITUENT.problem(f"the re-parse has {len(leaves)} leaves for {len(parsed.spans)} tokens")]
    production = f"{masked.lhs} -> {' '.join(masked.reference_rhs)}"
    parents: list[Tree] = []
    for word, span, mask in zip(words, spans, masked.masks, strict=True):
        index = next((i for i, s in enumerate(parsed.spans) if tuple(s) == tuple(span)), None)
        if index is None:
            return [CONSTITUENT.problem(f"{word!r} is not one word in the re-parse")]
        preterminal, parent = leaves[index]
        if preterminal.label != mask.tag:
            return [CONSTITUENT.problem(f"{word!r} is parsed as {preterminal.label}, the mask of {production} is "
                                        f"{mask.tag}")]
        if parent is None or parent.label != masked.lhs:
            where = parent.label if parent is not None else "nothing"
            return [CONSTITUENT.problem(f"{word!r} is parsed into {where}, not the {masked.lhs} of {production}")]
        parents.append(parent)
    if any(p is not parents[0] for p in parents[1:]):
        return [CONSTITUENT.problem(f"the filled words fall in different {masked.lhs} phrases, not one {production}")]
    return []


CONSTITUENT = Check("constituent", "parse", "filled words that the re-parse does not put in the phrase their mask was "
                    "made for, with its tag", constituent_problems)
