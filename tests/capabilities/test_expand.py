"""Expansion end to end with a stand-in filler: masks stay inside S, templates expand, provenance is kept."""

from __future__ import annotations

from collections import Counter

import pytest

from linguagym.capabilities.data.analysis import Analyser
from linguagym.capabilities.data.datasets import read_rotten_tomatoes
from linguagym.capabilities.data.lexicon import read_sentiwordnet
from linguagym.capabilities.expansion.expand import Expander, ExpansionSettings
from linguagym.capabilities.expansion.fill import Fill
from linguagym.capabilities.seeds.generate import generate_seeds
from linguagym.capabilities.seeds.specs import load_specs
from linguagym.capabilities.syntax.grammar import Grammar
from linguagym.capabilities.syntax.parsers import load_parser

WORDS = {"JJ": ["new", "good", "n"], "NN": ["car", "movie"], "RB": ["quite"]}


class FakeFiller:
    identity = {"filler": "fake"}

    def fill(self, masked, k):
        out = []
        for m in masked:
            options = [WORDS.get(mask.tag, ["the"]) for mask in m.masks]
            fills = [Fill(tuple(o[j % len(o)] for o in options), -float(j), 0.0) for j in range(3)]
            out.append(fills[:k])
        return out


@pytest.fixture
def setup(rt_file, swn_file, spacy_ready):
    data = read_rotten_tomatoes(rt_file)
    analyser = Analyser(read_sentiwordnet(swn_file))
    analyses = analyser.analyse([e.text for e in data.examples])
    grammar = Grammar({"NP": Counter({("DT", "JJ", "NN"): 2, ("DT", "NN"): 2, ("JJ", "NNS"): 1}),
                       "ADJP": Counter({("RB", "JJ"): 1, ("JJ",): 1})})
    return data, analyser, analyses, grammar


def _expand(setup, lcs, **settings):
    data, analyser, analyses, grammar = setup
    specs = [s for s in load_specs() if s.id in lcs]
    results = generate_seeds(specs, data, analyses)
    expander = Expander(load_parser("spacy"), grammar, FakeFiller(), analyser,
                        ExpansionSettings(seeds_per_capability=None, **settings))
    return results, expander.expand(results, data, analyses), expander


def test_templated_capabilities_expand_inside_s_only(setup):
    results, expanded, expander = _expand(setup, {"LC3", "LC4"})
    lc3 = expanded["LC3"]
    assert lc3, expander.report.rejections
    seeds = {t.id: t for r in results for t in r.tests}
    for test in lc3 + expanded["LC4"]:
        seed = seeds[test.provenance.seed]
        assert test.kind == "expansion" and test.expected == seed.expected and test.seed_id == seed.id
        assert test.id.startswith(seed.id + "/x")
        prov = test.provenance
        assert prov.seed_text == seed.provenance.row("S").text
        assert prov.expanded_text != prov.seed_text and prov.fills and prov.masks
        for mask, word in zip(prov.masks, prov.fills, strict=True):
            assert prov.expanded_text[mask.start:mask.end] == word
        assert prov.production["lhs"] in ("NP", "ADJP") and "{MASK}" in prov.masked
        assert prov.alternatives == seed.provenance.alternatives and prov.rows == seed.provenance.rows
        if seed.capability == "LC3":  # template text unchanged around the expanded quote
            before, after = seed.text.split(f'"{prov.seed_text.rstrip(".")}"')
            assert test.text.startswith(before) and test.text.endswith(after)
    texts = [t.text for t in lc3]
    assert len(set(texts)) == len(texts) and not set(texts) & {t.text for t in results[0].tests}
    # rejected fills never appear: "good" is positive, "n" is not a word
    assert not any(w in ("good", "n") for t in lc3 + expanded["LC4"] for w in t.provenance.fills)
    assert expander.report.rejections.get("neutral", 0) > 0 and expander.report.rejections.get("word", 0) > 0


def test_caps_per_seed_and_random_selection(setup):
    _, expanded, _ = _expand(setup, {"LC3"}, per_seed=1)
    per_seed = Counter(t.provenance.seed for t in expanded["LC3"])
    assert per_seed and max(per_seed.values()) == 1
    _, randomly, _ = _expand(setup, {"LC3"}, per_seed=1, selection="random")
    assert {t.provenance.selection for t in randomly["LC3"]} == {"random"}
    _, none, expander = _expand(setup, {"LC3"}, per_seed=0)
    assert none["LC3"] == [] and expander.report.counts["LC3"]["valid"] > 0
