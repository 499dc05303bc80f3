"""Production differentiation (the S2LCT algorithm): where a seed's parse tree can take more words.

For each phrase node ``LHS -> s_rhs`` of the seed tree and each reference production ``LHS -> r_rhs`` that is
longer and holds ``s_rhs`` as an in-order subsequence, the extra symbols of ``r_rhs`` become masks at their
positions, but only when every extra symbol is a word-level POS tag (``MASKABLE_TAGS``: no phrase labels,
no punctuation, no possessive ``'s``, symbols, list markers, foreign words or proper nouns). The seed tree is
the parse of the dataset sentence alone, so masks never fall in a template's text.
"""

from __future__ import annotations

from dataclasses import dataclass

from linguagym.capabilities.syntax.grammar import Grammar
from linguagym.capabilities.syntax.parsers import Parsed
from linguagym.capabilities.syntax.trees import Tree

MASK = "{MASK}"
MASKABLE_TAGS = frozenset({
    "CC", "CD", "DT", "EX", "IN", "JJ", "JJR", "JJS", "MD", "NN", "NNS", "PDT", "PRP", "PRP$", "RB", "RBR",
    "RBS", "RP", "TO", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "WDT", "WP", "WP$", "WRB",
})


@dataclass(frozen=True)
class Mask:
    tag: str
    offset: int  # character offset in the seed sentence where the word goes
    after: bool  # True: the word follows the text before ``offset`` (" word"); False: precedes it ("word ")


@dataclass(frozen=True)
class MaskedSentence:
    text: str  # the seed sentence
    masks: tuple[Mask, ...]  # left to right
    lhs: str
    seed_rhs: tuple[str, ...]
    reference_rhs: tuple[str, ...]
    probability: float  # P(reference_rhs | lhs) in the reference grammar
    keep_first_case: bool = False  # the sentence starts with a proper noun: a word put before it keeps its case

    @property
    def masked_text(self) -> str:
        return render(self, [MASK] * len(self.masks))[0]

    @property
    def production(self) -> dict:
        return {"lhs": self.lhs, "seed": list(self.seed_rhs), "reference": list(self.reference_rhs),
                "probability": round(self.probability, 6)}


def embeddings(short: tuple[str, ...], long: tuple[str, ...]) -> list[tuple[int, ...]]:
    """Every way to place ``short`` in ``long`` as an in-order subsequence: the positions in ``long``."""
    out: list[tuple[int, ...]] = []

    def walk(i: int, j: int, chosen: tuple[int, ...]) -> None:
        if i == len(short):
            out.append(chosen)
            return
        for k in range(j, len(long) - (len(short) - i) + 1):
            if long[k] == short[i]:
                walk(i + 1, k + 1, (*chosen, k))

    walk(0, 0, ())
    return out


def differentiate(parsed: Parsed, grammar: Grammar, *, max_masks: int = 2,
                  mask_tags: frozenset[str] = MASKABLE_TAGS) -> list[MaskedSentence]:
    """The masked sentences of one seed, most probable reference production first, each distinct."""
    spans = parsed.spans
    found: dict[tuple, MaskedSentence] = {}
    tags = parsed.tree.tags()
    name_first = bool(tags) and tags[0] in ("NNP", "NNPS")
    for node, first_leaf in _nodes_with_offsets(parsed.tree):
        if node.is_preterminal:
            continue
        seed_rhs = tuple(c.label if isinstance(c, Tree) else c for c in node.children)
        child_ranges = _child_leaf_ranges(node, first_leaf)
        for reference_rhs, probability in grammar.expansions_sized(node.label, len(seed_rhs) + 1,
                                                                   len(seed_rhs) + max_masks):
            for placement in embeddings(seed_rhs, reference_rhs):
                placed = set(placement)
                extras = [k for k in range(len(reference_rhs)) if k not in placed]
                if any(reference_rhs[k] not in mask_tags for k in extras):
                    continue
                masks = []
                for k in extras:
                    before = sum(1 for p in placement if p < k)  # seed children left of the mask
                    if before:
                        leaf = child_ranges[before - 1][1] - 1
                        masks.append(Mask(reference_rhs[k], spans[leaf][1], True))
                    else:
                        leaf = child_ranges[0][0]
                        masks.append(Mask(reference_rhs[k], spans[leaf][0], False))
                key = tuple((m.tag, m.offset, m.after) for m in masks)
                if key not in found or found[key].probability < probability:
                    found[key] = MaskedSentence(parsed.text, tuple(masks), node.label, seed_rhs, reference_rhs,
                                                probability, name_first)
    return sorted(found.values(), key=lambda m: (-m.probability, m.masks[0].offset, m.lhs))


def _nodes_with_offsets(tree: Tree, first: int = 0):
    """(node, index of its first leaf) for every node, pre-order."""
    yield tree, first
    at = first
    for child in tree.children:
        if isinstance(child, Tree):
            yield from _nodes_with_offsets(child, at)
            at += len(child.leaves())
        else:
            at += 1


def _child_leaf_ranges(node: Tree, first: int) -> list[tuple[int, int]]:
    out = []
    at = first
    for child in node.children:
        width = len(child.leaves()) if isinstance(child, Tree) else 1
        out.append((at, at + width))
        at += width
    return out


def render(masked: MaskedSentence, words: list[str]) -> tuple[str, list[tuple[int, int]]]:
    """The sentence with ``words`` in the masks' places, and each word's character span in it.

    A word at the very start of the sentence is capitalised and the old first word loses its capital
    (unless it is "I" or looks like a name: capitals after its first letter are kept as they are).
    """
    text = masked.text
    pieces: list[str] = []
    spans: list[tuple[int, int]] = []
    cursor = 0
    length = 0
    groups = sorted(range(len(masked.masks)), key=lambda i: (masked.masks[i].offset, not masked.masks[i].after, i))
    for i in groups:
        mask, word = masked.masks[i], words[i]
        chunk = text[cursor:mask.offset]
        pieces.append(chunk)
        length += len(chunk)
        cursor = mask.offset
        at_start = length == 0 and not text[:mask.offset].strip() and not mask.after
        if at_start and word != MASK:
            word = word[:1].upper() + word[1:]
        if mask.after:
            pieces.append(" " + word)
            spans.append((length + 1, length + 1 + len(word)))
            length += 1 + len(word)
        else:
            pieces.append(word + " ")
            spans.append((length, length + len(word)))
            length += len(word) + 1
    rest = text[cursor:]
    starts = [s for i, s in zip(groups, spans, strict=True) if not masked.masks[i].after
              and not text[:masked.masks[i].offset].strip()]
    if starts and words and words[0] != MASK and not masked.keep_first_case:
        rest = _lower_first_word(rest)
    pieces.append(rest)
    ordered = [spans[groups.index(i)] for i in range(len(masked.masks))]
    return "".join(pieces), ordered


def _lower_first_word(text: str) -> str:
    stripped = text.lstrip()
    word = stripped.split(" ", 1)[0]
    if not word or word == "I" or word.startswith("I'") or any(c.isupper() for c in word[1:]):
        return text
    return text[: len(text) - len(stripped)] + stripped[:1].lower() + stripped[1:]
