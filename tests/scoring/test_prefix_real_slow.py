"""Prefix sharing on real SyntaxGym suites with the real smollm2-135m: the numbers of plain scoring.

Tolerances: every token within 1e-4 bits and every region mean within 1e-4 bits of one-sentence-at-a-time
scoring; region sums within 2e-4 bits, because a sum of several float32-rounded values carries their errors:
against a float64 pass of the same weights, plain and prefix-shared scoring are each off by up to ~8e-5 bits
per region sum (docs/performance.md, "Same numbers"), so two float32 computations may differ by twice that.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest

from linguagym import assets
from linguagym.evaluation.evaluate import evaluate_suite, suite_sentences
from linguagym.scoring import load_scorer
from linguagym.suites.load import read_suite

from .conftest import MODEL_CACHE

pytestmark = pytest.mark.slow
SUITES = Path(__file__).resolve().parents[3] / "shared" / "data" / "syntaxgym" / "suites"
CHOSEN = ["number_prep", "npz_ambig_mod", "subordination_src-src", "fgd_hierarchy"]
ITEMS_PER_SUITE = 10


@pytest.mark.skipif(not SUITES.is_dir(), reason="the real SyntaxGym suites are not beside the checkout")
def test_prefix_shared_region_values_equal_plain_on_real_suites() -> None:
    assets.fetch_named_model("smollm2-135m", MODEL_CACHE)
    # the first items of each: the plain side scores one sentence at a time, and all 408 sentences took 160 s of CI
    suites = [replace(s, items=s.items[:ITEMS_PER_SUITE]) for s in (read_suite(SUITES / f"{n}.json").suite
                                                                     for n in CHOSEN)]
    texts = list(dict.fromkeys(s.text for suite in suites for s in suite_sentences(suite)))
    shared = load_scorer("smollm2-135m", cache_dir=MODEL_CACHE, score_cache=False)
    plain = load_scorer("smollm2-135m", cache_dir=MODEL_CACHE, score_cache=False, prefix_sharing=False,
                        batch_tokens=1)
    done: list[int] = []
    shared.progress = done.append
    expected_tokens = shared.count_tokens(texts)
    a = dict(zip(texts, shared.score(texts), strict=True))
    assert sum(done) == expected_tokens == sum(len(s.tokens) for s in a.values())
    plain.lm = shared.lm  # same weights, plain one-sentence-at-a-time passes
    b = dict(zip(texts, plain.score(texts), strict=True))
    worst_token = max(
        abs(x.surprisal - y.surprisal) for t in texts for x, y in zip(a[t].tokens, b[t].tokens, strict=True)
    )
    assert worst_token < 1e-4, worst_token
    worst = {"sum": 0.0, "mean": 0.0}
    regions = 0
    for suite in suites:
        left, right = evaluate_suite(suite, a), evaluate_suite(suite, b)
        for x, y in zip(left.conditions, right.conditions, strict=True):
            for number, metrics in x.values.items():
                for metric in ("sum", "mean"):
                    u, v = metrics[metric], y.values[number][metric]
                    assert math.isnan(u) == math.isnan(v)
                    if not math.isnan(u):
                        worst[metric] = max(worst[metric], abs(u - v))
                        regions += 1
        assert [p.holds for p in left.predictions] == [p.holds for p in right.predictions]
    assert regions > 400
    assert worst["mean"] < 1e-4 and worst["sum"] < 2e-4, (worst_token, worst)
