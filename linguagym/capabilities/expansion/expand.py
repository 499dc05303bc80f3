"""Syntax-based expansion of seed tests: parse the dataset sentence S of each seed, differentiate its
productions against the reference grammar, fill the masks, validate, select, and re-render the template.

Only S changes; the template's text, its chosen alternatives and the partner sentences stay as they were.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from linguagym.capabilities.data.analysis import Analyser
from linguagym.capabilities.data.datasets import Dataset
from linguagym.capabilities.errors import CapabilityError
from linguagym.capabilities.expansion.attested import ADJECTIVE_TAGS, ADVERB_TAGS, ATTESTED, mask_heads
from linguagym.capabilities.expansion.check import Problem
from linguagym.capabilities.expansion.checks import MASKED_CHECKS, RANKING_CHECKS
from linguagym.capabilities.expansion.differentiate import MaskedSentence, differentiate, render
from linguagym.capabilities.expansion.domain import DomainVocabulary
from linguagym.capabilities.expansion.fill import CausalFiller, Fill, Filler
from linguagym.capabilities.expansion.fit import OVERUSED, POOL, WordCap, fit_score, within_margin
from linguagym.capabilities.expansion.insertions import insertion_tags
from linguagym.capabilities.expansion.reader_lexicon import default_lexicon
from linguagym.capabilities.expansion.selection import DUPLICATE_TEXT, select, selection_score
from linguagym.capabilities.expansion.settings import DEFAULT_EXPANSION_SETTINGS, ExpansionSettings
from linguagym.capabilities.expansion.validate import Validator, shape_problems
from linguagym.capabilities.seeds.generate import CapabilityResult
from linguagym.capabilities.seeds.search import search_match
from linguagym.capabilities.seeds.specs import Case
from linguagym.capabilities.seeds.templates import Slot
from linguagym.capabilities.seeds.templates import render as render_template
from linguagym.capabilities.syntax.grammar import Grammar
from linguagym.capabilities.syntax.parsers import ConstituencyParser
from linguagym.capabilities.testfile.model import CapabilityTest, Mask

STAGES = ("parse", "differentiate", "fill", "validate", "select")


@dataclass
class ExpansionReport:
    timings: dict[str, float] = field(default_factory=lambda: dict.fromkeys(STAGES, 0.0))
    counts: dict[str, dict[str, int]] = field(default_factory=dict)  # per capability
    rejections: dict[str, int] = field(default_factory=dict)  # by check name (checks.CHECKS), in first-met order

    def reject(self, problems: Sequence[Problem]) -> None:
        """Count each of ``problems`` under the name of the check that found it."""
        for problem in problems:
            self.rejections[problem.check] = self.rejections.get(problem.check, 0) + 1

    def add_time(self, stage: str, started: float) -> None:
        self.timings[stage] += time.perf_counter() - started


class Expander:
    def __init__(self, parser: ConstituencyParser, grammar: Grammar, filler: Filler, analyser: Analyser,
                 settings: ExpansionSettings = DEFAULT_EXPANSION_SETTINGS, seed: int = 0) -> None:
        self.parser = parser
        self.grammar = grammar
        self.filler = filler
        self.analyser = analyser
        self.validator = Validator(analyser, parser)
        self.settings = settings
        self.seed = seed
        self.report = ExpansionReport()
        self.cap = WordCap(settings.max_word_uses)  # insertions of each word in the capability expanded (``fit.py``)

    def expand(self, results: list[CapabilityResult], dataset: Dataset, analyses: list,
               progress: Callable[[int], None] | None = None) -> dict[str, list[CapabilityTest]]:
        """Expansion tests per capability id."""
        index = {example.id: i for i, example in enumerate(dataset.examples)}
        if self.settings.min_domain_count is not None and self.validator.domain is None:
            lexicon = default_lexicon() if self.settings.reader_lexicon else None
            self.validator.domain = DomainVocabulary.from_analyses(analyses, self.settings.min_domain_count,
                                                                   attested=self.settings.attested, lexicon=lexicon)
        out: dict[str, list[CapabilityTest]] = {}
        for result in results:
            out[result.spec.id] = self._expand_capability(result, dataset, analyses, index)
            if progress:
                progress(1)
        return out

    def _chosen_seeds(self, result: CapabilityResult) -> list[CapabilityTest]:
        tests = result.tests
        cap = self.settings.seeds_per_capability
        if cap is not None and len(tests) > cap:
            keep = set(random.Random(f"{self.seed}/{result.spec.id}/expand").sample(range(len(tests)), cap))
            tests = [t for i, t in enumerate(tests) if i in keep]
        return tests

    def _expand_capability(self, result: CapabilityResult, dataset: Dataset, analyses: list,
                           index: dict[str, int]) -> list[CapabilityTest]:
        spec = result.spec
        seeds = self._chosen_seeds(result)
        counts = {"seeds_expanded": len(seeds), "masked": 0, "candidates": 0, "valid": 0, "expansions": 0}
        self.cap = WordCap(self.settings.max_word_uses)  # each capability is a test set of its own
        self.report.counts[spec.id] = counts
        if not seeds:
            return []
        s_texts = [_sentence(t) for t in seeds]
        started = time.perf_counter()
        parsed = self.parser.parse(s_texts)
        self.report.add_time("parse", started)
        started = time.perf_counter()
        tags = insertion_tags(self.settings.insertions)  # masks of other tags would be refused: never made
        seed_tokens = self._seed_tokens(s_texts)
        masked_by_seed = []
        for s, p in enumerate(parsed):
            fillable = self._fillable(p, differentiate(p, self.grammar, max_masks=self.settings.max_masks,
                                                       mask_tags=tags))
            # masked sentences that no attested modifier could fill go before the most probable are chosen
            attested = self._attested_masks(seed_tokens[s] if seed_tokens is not None else None, fillable)
            masked_by_seed.append(attested[: self.settings.masked_per_seed])
        self.report.add_time("differentiate", started)
        flat = [(s, m) for s, ms in enumerate(masked_by_seed) for m, _ in ms]
        allowed = [forms for ms in masked_by_seed for _, forms in ms]  # per mask: the attested forms, None: any
        counts["masked"] = len(flat)
        # Fills are validated before the filler ranks them (its re-ranking is most of the cost), all of a call's
        # candidates in one batch; only the fluency check, which needs the ranking's numbers, and duplicates come
        # after. checked: (masked sentence, words) -> (text, spans, slots, source) of a valid fill, None if refused.
        checked: dict[tuple[int, tuple[str, ...]], tuple | None] = {}
        validating = 0.0

        def validate_early(candidates: Sequence[tuple[int, tuple[str, ...]]]) -> list[bool]:
            nonlocal validating
            began = time.perf_counter()
            self._prevalidate(candidates, flat, seeds, spec, dataset, analyses, index, checked, counts, allowed)
            validating += time.perf_counter() - began
            return [checked[c] is not None for c in candidates]

        started = time.perf_counter()
        # POOL times the fills kept: they are re-ranked by fit below (the filler scores every valid one anyway)
        wide = self.settings.fills_per_mask * POOL
        if seed_tokens is not None and isinstance(self.filler, CausalFiller):  # offered the heads' attested modifiers
            extra = [[forms if forms is not None else () for forms in mask_forms] for mask_forms in allowed]
            fills = self.filler.fill([m for _, m in flat], wide, keep=validate_early, extra=extra)
        else:
            fills = self.filler.fill([m for _, m in flat], wide, keep=validate_early)
        self.report.add_time("fill", started)
        self.report.timings["fill"] -= validating
        self.report.timings["validate"] += validating
        started = time.perf_counter()
        returned = [(i, option.words) for i, options in enumerate(fills) for option in options]
        if unseen := [c for c in returned if c not in checked]:  # a filler that does not call keep: checked here
            validate_early(unseen)
        seen = {t.text for t in result.tests}
        causal = self.filler.identity.get("filler") == "causal"  # confidence in bits the window lost
        valid_by_seed: dict[int, list[tuple[CapabilityTest, float]]] = {}
        for i, options in enumerate(fills):
            s, m = flat[i]
            ranked = []
            for option in options:
                prepared = checked[(i, option.words)]
                if prepared is None:
                    continue  # refused by keep (and counted there); only a filler that ignores keep returns it
                # the checks that need the filler's numbers; the first that refuses the fill is its reason
                if problems := next((found for check in RANKING_CHECKS
                                     if (found := check.problems(option, self.settings, causal))), None):
                    self.report.reject(problems)
                    continue
                ranked.append((self._fit(option, m), option, prepared))
            close = within_margin([option.confidence for _, option, _ in ranked])
            ranked = [r for r, ok in zip(ranked, close, strict=True) if ok]  # fit chooses among near-equals
            taken = 0
            for fit, option, prepared in sorted(ranked, key=lambda r: -r[0]):  # best fit first (stable)
                if taken == self.settings.fills_per_mask:
                    break
                if (word := self.cap.over(option.words)) is not None:
                    self.report.reject([OVERUSED.problem(f"{word!r} was inserted {self.cap.limit} times already")])
                    continue
                text, spans, slots, source = prepared
                seed_test = seeds[s]
                case = spec.cases[_case_number(seed_test) - 1]
                test_text, _ = render_template(case.template, slots, case.alternatives, None,
                                               chosen=dict(seed_test.provenance.alternatives or {}))
                if test_text in seen or text == source:
                    self.report.reject([DUPLICATE_TEXT])
                    continue
                seen.add(test_text)
                self.cap.take(option.words)
                taken += 1
                counts["valid"] += 1
                score = selection_score(fit, m.probability)
                valid_by_seed.setdefault(s, []).append((self._test(seed_test, m, option, text, spans, test_text,
                                                                   score), score))
        self.report.add_time("validate", started)
        started = time.perf_counter()
        tests: list[CapabilityTest] = []
        for s in sorted(valid_by_seed):
            items = valid_by_seed[s]
            rng = random.Random(f"{self.seed}/{seeds[s].id}/select")
            keep = len(items) if self.settings.per_seed is None else self.settings.per_seed
            chosen = select([t for t, _ in items], [sc for _, sc in items], keep, self.settings.selection, rng)
            tests.extend(replace(test, id=f"{seeds[s].id}/x{number}") for number, test in enumerate(chosen, start=1))
        counts["expansions"] = len(tests)
        self.report.add_time("select", started)
        return tests

    def _prevalidate(self, candidates: Sequence[tuple[int, tuple[str, ...]]], flat: list[tuple[int, MaskedSentence]],
                     seeds: list[CapabilityTest], spec, dataset: Dataset, analyses: list, index: dict[str, int],
                     checked: dict[tuple[int, tuple[str, ...]], tuple | None], counts: dict[str, int],
                     allowed: Sequence[Sequence[tuple[str, ...] | None]] | None = None) -> None:
        """Every check but fluency and duplicates on ``candidates`` ((masked sentence, words) of one fill call),
        in batches: shape, then one re-parse of all for the constituent check, one analysis of all for the rest.
        Writes each verdict into ``checked``: (filled text, spans, the template's slots with the new S, the dataset
        sentence it came from), or None;
        each refusal's reasons are counted in ``report.rejections`` once. ``allowed``: per masked sentence, per
        mask, the forms the dataset attests with the mask's head (``attested.py``; None: any), checked first."""
        todo = [c for c in dict.fromkeys(candidates) if c not in checked]
        counts["candidates"] += len(todo)
        shaped = []
        for i, words in todo:
            if allowed is not None and (word := next((w for w, forms in zip(words, allowed[i], strict=True)
                                                      if forms is not None and w.lower() not in forms), None)):
                self.report.reject([ATTESTED.problem(f"the dataset never has {word!r} with the head of its slot")])
                checked[(i, words)] = None
                continue
            text, spans = render(flat[i][1], list(words))
            problems = shape_problems(words, spans, text)
            if problems:
                self.report.reject(problems)
                checked[(i, words)] = None
            else:
                shaped.append((i, words, text, spans))
        # tags and the re-parse, all fills in one batch: each filled word carries its mask's tag and the filled
        # words form the phrase their mask was made for; the fills that pass come back analysed
        screened = self.validator.screen([(flat[i][1], words, text, spans) for i, words, text, spans in shaped])
        survivors = []
        for candidate, (problems, analysis) in zip(shaped, screened, strict=True):
            if problems:
                self.report.reject(problems)
                checked[candidate[:2]] = None
            else:
                assert analysis is not None  # screen analyses every fill it passes
                survivors.append((*candidate, analysis))
        for i, words, text, spans, analysis in survivors:
            s, m = flat[i]
            checked[(i, words)] = None
            case = spec.cases[_case_number(seeds[s]) - 1]
            slots = self._slots(seeds[s], case, dataset, analyses, index)
            if slots is None:
                continue
            example = slots["S"].example
            verdict = self.validator.check_analysed(analysis, words, spans, [x.tag for x in m.masks], case.search,
                                                    example, slots["S"].analysis)
            if not verdict.ok:
                self.report.reject(verdict.reasons)
                continue
            assert verdict.match is not None and verdict.analysis is not None
            slots["S"] = Slot(replace(example, text=text), verdict.analysis, verdict.match)
            checked[(i, words)] = (text, spans, slots, example.text)

    def _seed_tokens(self, texts: list[str]) -> list | None:
        """The seed sentences' tokens (tagged), for finding each mask's head, where the ``attested`` rule is on."""
        domain = self.validator.domain
        if not self.settings.attested or domain is None or domain.modifiers is None or not domain.checks_words:
            return None
        return [analysis.tokens for analysis in self.analyser.analyse(texts)]

    def _attested_masks(self, tokens, masked: list[MaskedSentence]
                        ) -> list[tuple[MaskedSentence, list[tuple[str, ...] | None]]]:
        """Each masked sentence with, per mask, the forms the dataset attests as modifiers of the word the mask
        would modify that the filler's early test accepts (``attested.py``; None: not a modifier's mask, or the
        rule is off (``tokens`` None)). A masked sentence with a modifier's mask that modifies nothing, or nothing
        the dataset attests, is dropped before the most probable are chosen (no fill could pass), counted under
        ``attested``."""
        if tokens is None:
            return [(m, [None] * len(m.masks)) for m in masked]
        domain = self.validator.domain
        assert domain is not None and domain.modifiers is not None
        accept = getattr(self.filler, "accept", None)
        out = []
        for m in masked:
            heads = mask_heads(tokens, [(mask.offset, mask.tag) for mask in m.masks])
            forms: list[tuple[str, ...] | None] = []
            for mask, j in zip(m.masks, heads, strict=True):
                modifier = mask.tag in ADJECTIVE_TAGS or mask.tag in ADVERB_TAGS
                found = () if not modifier or j is None else domain.modifiers.forms(tokens[j].lemma, mask.tag)
                if accept is not None:  # the filler's own early test (a word that cannot be neutral): never a fill
                    found = tuple(w for w in found if accept(w, mask.tag))
                if domain.lexicon is not None:  # a word the reader lexicon refuses could not pass either
                    lemma = tokens[j].lemma.lower() if j is not None else None  # by pair where it counts pairs
                    found = tuple(w for w in found if domain.lexicon.accepts(w, lemma))
                forms.append(found if modifier else None)
            if any(f is not None and not f for f in forms):
                self.report.rejections[ATTESTED.name] = self.report.rejections.get(ATTESTED.name, 0) + 1
                continue
            out.append((m, forms))
        return out

    def _fit(self, option: Fill, masked: MaskedSentence) -> float:
        """The fill's fit to its slot (``fit.fit_score``): its confidence less ``fit_weight`` times its words'
        log2 prior in a neutral context, where the filler gives one."""
        if not self.settings.fit_weight:
            return option.confidence
        priors: list[float] = []
        for word, mask in zip(option.words, masked.masks, strict=True):
            prior = self.filler.prior([word], mask.tag) if hasattr(self.filler, "prior") else None
            if prior is None:
                return option.confidence
            priors += prior
        return fit_score(option.confidence, priors, self.settings.fit_weight)

    def _fillable(self, parsed, masked: list[MaskedSentence]) -> list[MaskedSentence]:
        """``masked`` without the masked sentences that a masked-stage check refuses (``checks.MASKED_CHECKS``): the
        kinds of insertion the settings do not make (``insertion``), those that every fill would fail (``slot``: a
        noun mask beside a noun, a mask before the first word ...). Each is counted once, under the first check
        that refuses it."""
        out = []
        for m in masked:
            refusing = next((check for check in MASKED_CHECKS
                             if check.problems(parsed, m, self.settings.insertions)), None)
            if refusing is None:
                out.append(m)
            else:
                self.report.rejections[refusing.name] = self.report.rejections.get(refusing.name, 0) + 1
        return out

    def _slots(self, seed_test: CapabilityTest, case: Case, dataset: Dataset, analyses: list,
               index: dict[str, int]) -> dict[str, Slot] | None:
        slots = {}
        for row in seed_test.provenance.rows or ():
            i = index.get(row.id or "")
            if i is None or row.slot is None:
                return None
            search = case.search if row.slot == "S" else case.sources[row.slot]
            match = search_match(search, dataset.examples[i], analyses[i])
            if match is None:
                return None
            slots[row.slot] = Slot(dataset.examples[i], analyses[i], match)
        return slots

    def _test(self, seed_test: CapabilityTest, masked: MaskedSentence, option: Fill, text: str,
              spans: list[tuple[int, int]], test_text: str, score: float) -> CapabilityTest:
        """The expansion of ``seed_test``: its provenance, extended by what changed S (its id is set on
        selection)."""
        provenance = replace(
            seed_test.provenance,
            seed=seed_test.id,
            seed_text=masked.text,
            expanded_text=text,
            production=masked.production,
            masked=masked.masked_text,
            masks=tuple(Mask(tag=m.tag, start=a, end=b) for m, (a, b) in zip(masked.masks, spans, strict=True)),
            fills=tuple(option.words),
            confidence=round(option.confidence, 4),
            disruption=round(option.disruption, 4),
            score=round(score, 4),
            selection=self.settings.selection,
        )
        return CapabilityTest(id=seed_test.id + "/x", capability=seed_test.capability, text=test_text,
                              expected=seed_test.expected, kind="expansion", provenance=provenance)


def _sentence(seed_test: CapabilityTest) -> str:
    """The dataset sentence S of a generated seed test (the sentence expansion changes)."""
    row = seed_test.provenance.row("S")
    if row is None:
        raise CapabilityError(f"test {seed_test.id!r} names no dataset sentence S in its provenance",
                              hint="only seeds made by the generator can be expanded")
    return row.text


def _case_number(seed_test: CapabilityTest) -> int:
    if seed_test.provenance.case is None:
        raise CapabilityError(f"test {seed_test.id!r} names no template case in its provenance",
                              hint="only seeds made by the generator can be expanded")
    return seed_test.provenance.case
