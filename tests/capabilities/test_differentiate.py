from __future__ import annotations

from collections import Counter

from linguagym.capabilities.expansion.differentiate import MASK, differentiate, embeddings, render
from linguagym.capabilities.syntax.grammar import Grammar
from linguagym.capabilities.syntax.parsers import Parsed
from linguagym.capabilities.syntax.trees import parse_brackets


def _parsed(text: str, brackets: str) -> Parsed:
    tree = parse_brackets(brackets)[0]
    spans, at = [], 0
    for word in tree.leaves():
        start = text.index(word, at)
        spans.append((start, start + len(word)))
        at = start + len(word)
    return Parsed(text, tree, tuple(spans))


def _grammar(**rules: dict[tuple[str, ...], int]) -> Grammar:
    return Grammar({lhs: Counter(r) for lhs, r in rules.items()})


def test_the_papers_example_or_both():
    parsed = _parsed("Or both.", "(FRAG (CC Or) (NP (DT both)) (. .))")
    grammar = _grammar(NP={("DT",): 3, ("DT", "NNS"): 1, ("DT", "NP"): 5, ("DT", ",", "NN"): 2})
    masked = differentiate(parsed, grammar)
    assert [m.masked_text for m in masked] == [f"Or both {MASK}."]  # NP and "," are not word-level
    assert masked[0].production == {"lhs": "NP", "seed": ["DT"], "reference": ["DT", "NNS"], "probability": 0.090909}
    assert render(masked[0], ["films"]) == ("Or both films.", [(8, 13)])


def test_every_placement_and_the_sentence_start():
    assert embeddings(("DT", "NN"), ("DT", "NN", "NN")) == [(0, 1), (0, 2)]
    parsed = _parsed("This movie is bad.", "(S (NP (DT This) (NN movie)) (VP (VBZ is) (ADJP (JJ bad))) (. .))")
    grammar = _grammar(NP={("DT", "NN", "NN"): 1, ("PDT", "DT", "NN"): 1}, ADJP={("RB", "JJ"): 1})
    texts = {m.masked_text for m in differentiate(parsed, grammar)}
    assert texts == {f"This {MASK} movie is bad.", f"This movie {MASK} is bad.", f"{MASK} This movie is bad.",
                     f"This movie is {MASK} bad."}
    start = next(m for m in differentiate(parsed, grammar) if m.masks[0].offset == 0)
    assert render(start, ["all"])[0] == "All this movie is bad."  # capitalised, old first word lowered


def test_max_masks_limits_the_extra_symbols():
    parsed = _parsed("Films.", "(NP (NNS Films) (. .))")
    grammar = _grammar(NP={("DT", "JJ", "NNS", "."): 1, ("JJ", "NNS", "."): 1})
    assert len(differentiate(parsed, grammar, max_masks=1)) == 1
    assert len(differentiate(parsed, grammar, max_masks=2)) == 2


def test_two_masks_at_the_start_capitalise_only_the_first():
    parsed = _parsed("Films.", "(NP (NNS Films) (. .))")
    masked = differentiate(parsed, _grammar(NP={("DT", "JJ", "NNS", "."): 1}))[0]
    assert render(masked, ["the", "new"]) == ("The new films.", [(0, 3), (4, 7)])
