"""Constituency trees with Penn Treebank labels: a small tree type, the bracket format (read and written),
cleaning of gold trees (function tags stripped, ``-NONE-`` dropped) and labelled brackets for evaluation.

A ``Tree`` is a label and children; a child is a ``Tree`` or a word (``str``). A preterminal is a tree whose
one child is a word: its label is the word's POS tag.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

# Penn tags of punctuation: never masks, ignored by bracket scoring (as EVALB does).
PUNCTUATION_TAGS = frozenset({",", ".", ":", "``", "''", "-LRB-", "-RRB-", "#", "$", "HYPH", "NFP"})
# Labels whose dashes are part of the name, not function tags.
_KEEP_DASHES = frozenset({"-NONE-", "-LRB-", "-RRB-"})
_TOKEN = re.compile(r"\(|\)|[^\s()]+")


@dataclass
class Tree:
    label: str
    children: list[Tree | str] = field(default_factory=list)

    @property
    def is_preterminal(self) -> bool:
        return len(self.children) == 1 and isinstance(self.children[0], str)

    def leaves(self) -> list[str]:
        out: list[str] = []
        for child in self.children:
            out.extend([child] if isinstance(child, str) else child.leaves())
        return out

    def preterminals(self) -> list[Tree]:
        """The (tag, word) nodes, left to right."""
        if self.is_preterminal:
            return [self]
        return [p for child in self.children if isinstance(child, Tree) for p in child.preterminals()]

    def tags(self) -> list[str]:
        return [p.label for p in self.preterminals()]

    def subtrees(self) -> Iterator[Tree]:
        yield self
        for child in self.children:
            if isinstance(child, Tree):
                yield from child.subtrees()

    def productions(self) -> Iterator[tuple[str, tuple[str, ...]]]:
        """Phrase-level productions ``(lhs, rhs)``; preterminal -> word rules are not productions here."""
        for node in self.subtrees():
            if not node.is_preterminal and node.children:
                yield node.label, tuple(c.label if isinstance(c, Tree) else c for c in node.children)

    def to_string(self) -> str:
        inner = " ".join(c if isinstance(c, str) else c.to_string() for c in self.children)
        return f"({self.label} {inner})"

    def __str__(self) -> str:
        return self.to_string()


def parse_brackets(text: str) -> list[Tree]:
    """All trees in ``text`` (PTB/NLTK bracket format). A root without a label, ``( (S ...) )``, is dropped
    for its one child. Raises ValueError on unbalanced brackets."""
    tokens = _TOKEN.findall(text)
    trees: list[Tree] = []
    position = 0
    while position < len(tokens):
        if tokens[position] != "(":
            raise ValueError(f"expected '(' at token {position}, found {tokens[position]!r}")
        tree, position = _read(tokens, position)
        if tree.label == "" and len(tree.children) == 1 and isinstance(tree.children[0], Tree):
            tree = tree.children[0]
        trees.append(tree)
    return trees


def _read(tokens: list[str], position: int) -> tuple[Tree, int]:
    position += 1  # past "("
    label = ""
    if position < len(tokens) and tokens[position] not in ("(", ")"):
        label = tokens[position]
        position += 1
    node = Tree(label)
    while True:
        if position >= len(tokens):
            raise ValueError("unbalanced brackets: a tree is not closed")
        token = tokens[position]
        if token == ")":
            return node, position + 1
        if token == "(":
            child, position = _read(tokens, position)
            node.children.append(child)
        else:
            node.children.append(token)
            position += 1


def strip_function_tags(label: str) -> str:
    """``NP-SBJ-1`` -> ``NP``, ``PP-LOC=2`` -> ``PP``; ``-NONE-``, ``-LRB-``, ``-RRB-`` stay."""
    if label in _KEEP_DASHES:
        return label
    return re.split(r"[-=]", label, maxsplit=1)[0] or label


def clean(tree: Tree) -> Tree | None:
    """A copy with function tags stripped and ``-NONE-`` elements (and constituents left empty) removed;
    None when nothing is left."""
    if tree.label == "-NONE-":
        return None
    children: list[Tree | str] = []
    for child in tree.children:
        if isinstance(child, str):
            children.append(child)
        elif (kept := clean(child)) is not None:
            children.append(kept)
    if not children:
        return None
    return Tree(strip_function_tags(tree.label), children)


def brackets(tree: Tree, *, ignore_punctuation: bool = True) -> Counter:
    """Labelled brackets ``(label, start, end)`` of the phrase nodes (not preterminals, not the root when it
    is ``TOP``/``ROOT``), as a multiset. Spans count word positions; with ``ignore_punctuation`` punctuation
    words are deleted first (EVALB's convention) and ``ADVP``/``PRT`` are one label."""
    out: Counter = Counter()

    def walk(node: Tree, start: int) -> int:
        if node.is_preterminal:
            return start if ignore_punctuation and node.label in PUNCTUATION_TAGS else start + 1
        end = start
        for child in node.children:
            end = walk(child, end) if isinstance(child, Tree) else end + 1
        if end > start and node.label not in ("TOP", "ROOT", ""):
            label = "ADVP" if ignore_punctuation and node.label == "PRT" else node.label
            out[(label, start, end)] += 1
        return end

    walk(tree, 0)
    return out


def bracket_scores(gold: Counter, test: Counter) -> tuple[int, int, int]:
    """(matched, gold total, test total) for one sentence."""
    return sum((gold & test).values()), sum(gold.values()), sum(test.values())


def f1(matched: int, gold: int, test: int) -> tuple[float, float, float]:
    """(precision, recall, F1)."""
    precision = matched / test if test else 0.0
    recall = matched / gold if gold else 0.0
    return precision, recall, (2 * precision * recall / (precision + recall) if precision + recall else 0.0)
