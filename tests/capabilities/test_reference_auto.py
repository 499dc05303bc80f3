"""The default reference grammar works without NLTK's treebank: it is induced from the dataset's sentences."""

from linguagym.capabilities.pipeline import _reference_grammar
from linguagym.capabilities.syntax.grammar import induced_grammar
from linguagym.capabilities.syntax.parsers import load_parser


class FakeData:
    name = "tiny"
    examples = [type("E", (), {"text": t})() for t in (
        "The movie is a charming delight.", "It is a dull and tedious film.", "The plot moves slowly.")]


def test_auto_without_a_treebank_induces_from_the_dataset(tmp_path, monkeypatch):
    monkeypatch.setenv("NLTK_DATA", str(tmp_path / "none"))
    monkeypatch.setattr("linguagym.capabilities.syntax.treebank.default_treebank", lambda: None)
    parser = load_parser("spacy")
    grammar = _reference_grammar("auto", FakeData(), parser, tmp_path)
    assert grammar.source["reference"] == "induced:tiny" and grammar.source["sentences"] == 3
    assert grammar.size > 0 and "S" in grammar.counts
    # cached: the same sentences give the same grammar without parsing again
    calls = []
    monkeypatch.setattr(parser, "parse", lambda texts: calls.append(texts) or [])
    again = induced_grammar([e.text for e in FakeData.examples], parser=parser, label="tiny", cache_dir=tmp_path)
    assert calls == [] and again.counts == grammar.counts
