"""The word-boundary correction on the real smollm2-135m, against the definition computed in float64 from the full
distributions with transformers (independently of linguagym's engine and boundary-set code)."""

from __future__ import annotations

from pathlib import Path

import pytest

from linguagym import assets
from linguagym.scoring import load_scorer

from .conftest import MODEL_CACHE
from .test_bow_correction import TEXTS, _definition_of

pytestmark = pytest.mark.slow

MORE = ["The author next to the senators swims", "The author next to the senators swim",
        "The authors next to the senator swim.", "Bill hoped that no teacher had ever failed, but several did.",
        "While the man hunted the deer ran into the woods, and nobody noticed."]


@pytest.fixture(scope="module")
def smollm2() -> Path:
    return assets.fetch_named_model("smollm2-135m", MODEL_CACHE)


def test_corrected_words_are_the_float64_definition(smollm2: Path) -> None:
    texts = TEXTS + MORE
    scorer = load_scorer("smollm2-135m", cache_dir=MODEL_CACHE, score_cache=False, bow_correction=True)
    # linguagym's start token for smollm2-135m is <|endoftext|> (id 0; the files' BOS is <|im_start|>)
    definition = _definition_of(smollm2, start_id=0)
    worst = 0.0
    for scored in scorer.score(texts):
        for start, end, bits in definition(scored.text):
            ours = sum(t.surprisal for t in scored.tokens if start <= t.start < end)
            worst = max(worst, abs(ours - bits))
    assert worst < 1e-3


def test_the_agreement_case_moves_by_the_missing_term(smollm2: Path) -> None:
    """" swim" after a singular subject: plain sums leave out that the model expected "s" next (docs/scoring.md)."""
    plain = load_scorer("smollm2-135m", cache_dir=MODEL_CACHE, score_cache=False)
    fixed = load_scorer("smollm2-135m", cache_dir=MODEL_CACHE, score_cache=False, bow_correction=True)
    texts = ["The author next to the senators swims", "The author next to the senators swim"]
    start = len("The author next to the senators")

    def verb(scored):
        return sum(t.surprisal for t in scored.tokens if t.start >= start)

    (match, mismatch), (match_fixed, mismatch_fixed) = plain.score(texts), fixed.score(texts)
    assert abs(verb(mismatch) - verb(match)) < 0.5  # uncorrected: the two verbs look alike
    assert verb(mismatch_fixed) - verb(match_fixed) > 3  # corrected: the mismatch is bits more surprising
