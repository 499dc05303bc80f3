"""Bracket F1 of the offline constituency parsers against the gold trees of NLTK's treebank sample.

    NLTK_DATA=../shared/data/nltk_data python benchmarks/parsers.py [--limit N]

Gold tokens are given to each parser (so F1 measures structure, not tokenisation); gold trees are cleaned
(function tags stripped, -NONE- dropped); brackets are scored EVALB-style (punctuation deleted, ADVP = PRT,
preterminals and the root label TOP not counted). Candidates: ``spacy`` (phrase structure converted from
spaCy's dependency parse, the default) and ``chunks`` (a baseline: spaCy's noun chunks as NPs under one S).
benepar is measured too when it and its model are installed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from linguagym.capabilities.syntax.parsers import SpacyParser, unescape_words
from linguagym.capabilities.syntax.treebank import default_treebank, read_treebank
from linguagym.capabilities.syntax.trees import Tree, bracket_scores, brackets, f1


def chunk_baseline(parser: SpacyParser, sentences: list[list[str]]) -> list[Tree]:
    from spacy.tokens import Doc

    from linguagym.capabilities.syntax.depconv import leaf

    out = []
    docs = [Doc(parser.nlp.vocab, words=w, sent_starts=[True] + [False] * (len(w) - 1)) for w in sentences]
    for doc in parser.nlp.pipe(docs):
        children, at = [], 0
        for chunk in doc.noun_chunks:
            children += [leaf(t) for t in doc[at:chunk.start]]
            children.append(Tree("NP", [leaf(t) for t in chunk]))
            at = chunk.end
        children += [leaf(t) for t in doc[at:]]
        out.append(Tree("S", children))
    return out


def score(gold: list[Tree], test: list[Tree]) -> tuple[float, float, float]:
    totals = [0, 0, 0]
    for g, t in zip(gold, test, strict=True):
        for i, n in enumerate(bracket_scores(brackets(g), brackets(t))):
            totals[i] += n
    return f1(*totals)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--treebank", type=Path, default=None, help="default: corpora/treebank.zip under $NLTK_DATA")
    ap.add_argument("--limit", type=int, default=None, help="first N trees only")
    args = ap.parse_args()
    path = args.treebank or default_treebank()
    if path is None:
        print("no treebank: set NLTK_DATA or pass --treebank", file=sys.stderr)
        return 1
    gold = read_treebank(path)[: args.limit]
    sentences = [unescape_words(t.leaves()) for t in gold]
    spacy_parser = SpacyParser()
    candidates = {"spacy": lambda: spacy_parser.parse_words(sentences),
                  "chunks": lambda: chunk_baseline(spacy_parser, sentences)}
    try:
        from linguagym.capabilities.syntax.parsers import BeneparParser

        benepar_parser = BeneparParser()
        candidates["benepar"] = lambda: benepar_parser.parse_words(sentences)
    except Exception as error:  # not installed here: reported, not measured
        print(f"benepar: not measured ({str(error).splitlines()[0]})")
    print(f"{len(gold)} gold trees from {path}")
    print(f"{'parser':<8} {'precision':>9} {'recall':>7} {'F1':>6} {'sentences/s':>12}")
    for name, run in candidates.items():
        started = time.perf_counter()
        trees = run()
        seconds = time.perf_counter() - started
        p, r, f = score(gold, trees)
        print(f"{name:<8} {p:9.3f} {r:7.3f} {f:6.3f} {len(gold) / seconds:12.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
