"""Expansion end to end with a stand-in filler: masks stay inside S, templates expand, provenance is kept."""

from __future__ import annotations

from collections import Counter

import pytest

from linguagym.capabilities.data.analysis import Analyser
from linguagym.capabilities.data.datasets import read_rotten_tomatoes
from linguagym.capabilities.data.lexicon import read_sentiwordnet
from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.expansion.differentiate import MASKABLE_TAGS, differentiate
from linguagym.capabilities.expansion.expand import Expander, ExpansionSettings
from linguagym.capabilities.expansion.fill import Fill
from linguagym.capabilities.expansion.insertions import allowed, insertion_kind, insertion_tags
from linguagym.capabilities.seeds.generate import generate_seeds
from linguagym.capabilities.seeds.specs import load_specs
from linguagym.capabilities.syntax.grammar import Grammar
from linguagym.capabilities.syntax.parsers import load_parser

WORDS = {"JJ": ["new", "good", "n"], "NN": ["car", "movie"], "RB": ["quite"]}


class FakeFiller:
    """Three candidates per masked sentence, best first; like the real fillers it hands them all to ``keep`` in
    one call (``prevalidates=False``: it ignores ``keep``, and the expander validates what it returns)."""

    identity = {"filler": "fake"}

    def __init__(self, prevalidates: bool = True, disruptions: tuple[float, ...] = (0.0, 0.0, 0.0)) -> None:
        self.prevalidates = prevalidates
        self.disruptions = disruptions
        self.asked: list[list[tuple[int, tuple[str, ...]]]] = []  # the candidates of each keep call

    def fill(self, masked, k, keep=None):
        candidates = []
        for i, m in enumerate(masked):
            options = [WORDS.get(mask.tag, ["the"]) for mask in m.masks]
            candidates += [(i, tuple(o[j % len(o)] for o in options), j) for j in range(3)]
        if keep is not None and self.prevalidates:
            self.asked.append([(i, words) for i, words, _ in candidates])
            candidates = [c for c, ok in zip(candidates, keep(self.asked[-1]), strict=True) if ok]
        out = [[] for _ in masked]
        for i, words, j in candidates:
            out[i].append(Fill(words, -float(j), self.disruptions[j]))
        return [fills[:k] for fills in out]


@pytest.fixture
def setup(rt_file, swn_file, spacy_ready):
    data = read_rotten_tomatoes(rt_file)
    analyser = Analyser(read_sentiwordnet(swn_file))
    analyses = analyser.analyse([e.text for e in data.examples])
    grammar = Grammar({"NP": Counter({("DT", "JJ", "NN"): 2, ("DT", "NN"): 2, ("JJ", "NNS"): 1}),
                       "ADJP": Counter({("RB", "JJ"): 1, ("JJ",): 1})})
    return data, analyser, analyses, grammar


def _expand(setup, lcs, filler=None, **settings):
    data, analyser, analyses, grammar = setup
    settings.setdefault("min_domain_count", None)  # the fake filler's words are not in the small test dataset
    specs = [s for s in load_specs() if s.id in lcs]
    results = generate_seeds(specs, data, analyses)
    expander = Expander(load_parser("spacy"), grammar, filler or FakeFiller(), analyser,
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


def test_without_a_cap_every_valid_expansion_is_kept(setup):
    """The default (per_seed None): every fill that passes validation becomes a test, best first per seed."""
    _, everything, expander = _expand(setup, {"LC3", "LC4"}, per_seed=None)
    tests = everything["LC3"] + everything["LC4"]
    valid = expander.report.counts["LC3"]["valid"] + expander.report.counts["LC4"]["valid"]
    assert tests and len(tests) == valid  # nothing valid is dropped
    for seed in {t.provenance.seed for t in tests}:
        scores = [t.provenance.score for t in tests if t.provenance.seed == seed]
        assert scores == sorted(scores, reverse=True)


def test_fills_are_validated_before_the_filler_ranks_them(setup):
    """The expander hands the filler a ``keep`` that validates whole fills before ranking: it is asked once per
    fill call (one per capability) about every candidate, and keeps exactly the expansions, and counts exactly
    the rejections by reason, that validating the filler's fills afterwards gives. Fluency, which needs the
    ranking's numbers, still comes after (second run: the best candidate of each mask loses 4 bits)."""
    for disruptions in ((0.0, 0.0, 0.0), (4.0, 0.0, 0.0)):
        early = FakeFiller(prevalidates=True, disruptions=disruptions)
        late = FakeFiller(prevalidates=False, disruptions=disruptions)
        _, before, checked_early = _expand(setup, {"LC3", "LC4"} if disruptions[0] else {"LC3"}, filler=early)
        _, after, checked_late = _expand(setup, {"LC3", "LC4"} if disruptions[0] else {"LC3"}, filler=late)
        masked = [c["masked"] for c in checked_early.report.counts.values()]
        assert [len(a) for a in early.asked] == [3 * n for n in masked if n] and late.asked == []
        assert {lc: [(t.id, t.text) for t in tests] for lc, tests in before.items()} == \
            {lc: [(t.id, t.text) for t in tests] for lc, tests in after.items()}
        assert checked_early.report.rejections == checked_late.report.rejections
        assert checked_early.report.counts == checked_late.report.counts
        rejections, counts = checked_early.report.rejections, checked_early.report.counts.values()
        assert rejections.get("neutral", 0) > 0 and rejections.get("word", 0) > 0
        assert all(c["valid"] <= c["candidates"] <= 3 * c["masked"] for c in counts)
        # every candidate checked is kept or rejected for at least one reason
        assert sum(c["valid"] for c in counts) + sum(rejections.values()) >= sum(c["candidates"] for c in counts)
        if disruptions[0]:
            assert rejections["fluency"] > 0 and not before["LC3"]
        else:
            assert before["LC3"] and "fluency" not in rejections


def test_modifier_insertions_by_default_and_every_kind_with_all(setup):
    """The default set fills modifier masks only (an adjective into a noun phrase, an adverb into an adjective or
    verb phrase); ``all`` also takes the noun masks a grammar with NP -> DT NN NN makes (which the ``slot`` check
    then drops: a noun mask beside a noun). With modifiers they are never made."""
    data, analyser, analyses, grammar = setup
    nouns = Grammar({**grammar.counts, "NP": grammar.counts["NP"] + Counter({("DT", "NN", "NN"): 3})})
    parsed = load_parser("spacy").parse(["The movie is a mess."])[0]
    masked = differentiate(parsed, nouns)
    assert {insertion_kind(m) for m in masked} >= {("NP", ("JJ",)), ("NP", ("NN",))}
    assert {insertion_kind(m) for m in masked if allowed(m)} == {("NP", ("JJ",))}
    assert all(allowed(m, "all") for m in masked)
    # the modifier set's tags: differentiate makes no noun masks at all with them
    assert insertion_tags() == {"JJ", "RB", "CC"} and insertion_tags("all") == MASKABLE_TAGS
    assert {insertion_kind(m) for m in differentiate(parsed, nouns, mask_tags=insertion_tags())} == {("NP", ("JJ",))}
    rejections = {}
    for insertions in ("modifiers", "all"):
        _, expanded, expander = _expand((data, analyser, analyses, nouns), {"LC3", "LC4"}, insertions=insertions)
        rejections[insertions] = expander.report.rejections
        if insertions == "modifiers":
            tests = expanded["LC3"] + expanded["LC4"]
            assert tests and {tuple(m.tag for m in t.provenance.masks) for t in tests} == {("JJ",)}
    assert "insertion" not in rejections["all"]
    assert rejections["all"]["slot"] > rejections["modifiers"].get("slot", 0)
    with pytest.raises(CapabilityError, match="unknown insertion set 'nouns'"):
        ExpansionSettings(insertions="nouns")
