"""The optional capabilities of scorers are declared, and found by ``isinstance``: the score cache, token counts,
progress; what a run records of a cache."""

from __future__ import annotations

import pytest

from linguagym.scoring.cache import CachedScorer, cache_stats
from linguagym.scoring.engine.order import counts_in_tokens, work_to_do
from linguagym.scoring.protocol import CachingScorer, Closes, CountsCacheUse, CountsTokens, ReportsProgress
from linguagym.scoring.registry import release_scorer
from tests.evaluation.fakes import WordScorer


class CountingScorer(WordScorer):
    """A fake that counts tokens ahead and reports them as it scores, as the HF scorers do."""

    progress = None

    def count_tokens(self, texts) -> int:
        return sum(len(text.split()) for text in dict.fromkeys(texts))


def test_the_score_cache_is_a_caching_scorer_and_a_plain_scorer_is_not(tmp_path):
    cached = CachedScorer(WordScorer(), tmp_path)
    assert isinstance(cached, CachingScorer) and isinstance(cached, Closes)
    assert not isinstance(WordScorer(), CachingScorer) and not isinstance(WordScorer(), CountsCacheUse)
    cached.score(["A dog ran."])
    cached.score(["A dog ran.", "The cat sat."])
    assert cache_stats(cached) == {"path": str(cached.path), "hits": 1, "misses": 2, "dropped_corrupt": 0,
                                   "not_saved": None}
    assert cache_stats(WordScorer()) is None
    release_scorer(cached)  # closes it
    release_scorer(WordScorer())  # nothing to close


def test_work_is_counted_in_tokens_only_where_the_scorer_counts_and_reports_them(tmp_path):
    texts = ["A dog ran.", "The cat sat down."]
    assert isinstance(CountingScorer(), CountsTokens) and isinstance(CountingScorer(), ReportsProgress)
    assert counts_in_tokens(CountingScorer()) and not counts_in_tokens(WordScorer())
    assert work_to_do(CountingScorer(), texts * 2) == (7, "tokens")
    assert work_to_do(WordScorer(), texts * 2) == (2, "sentences")
    cached = CachedScorer(CountingScorer(), tmp_path)
    cached.score(texts[:1])
    assert work_to_do(cached, texts) == (4, "tokens")  # cache misses only
    # a cache over a scorer that cannot count tokens measures work in sentences, as the scorer itself would
    plain = CachedScorer(WordScorer(), tmp_path / "plain")
    assert not counts_in_tokens(plain)
    plain.score(texts[:1])
    assert work_to_do(plain, texts) == (2, "sentences")  # in sentences, every text is counted as it goes by


def test_a_token_score_made_fast_is_the_same_frozen_object() -> None:
    import dataclasses

    from linguagym.scoring.protocol import TokenScore

    plain, fast = TokenScore("Ġab", 5, 1, 4, 3.5, False), TokenScore.made("Ġab", 5, 1, 4, 3.5, False)
    assert fast == plain and hash(fast) == hash(plain) and repr(fast) == repr(plain)
    assert dataclasses.asdict(fast) == dataclasses.asdict(plain)
    assert TokenScore.from_json(plain.to_json()) == plain
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.surprisal = 0.0  # type: ignore[misc]


def test_optional_members_are_declared_with_defaults_and_a_plain_class_gets_them(tmp_path) -> None:
    from linguagym.scoring.protocol import ScorerBase, computing, maybe_held, optional

    plain = WordScorer()  # identity and score only
    members = optional(plain)
    assert isinstance(members, ScorerBase) and members.identity == plain.identity
    assert (members.counts_tokens, members.reports_progress, members.warms_up, members.cacheable) == (
        False, False, False, True)
    assert members.batch_size == 16 and members.score_cache is None and members.unload() is maybe_held
    assert members.sentence_markers(["A dog."]) == {}
    members.warm_up()  # nothing to load, nothing raised
    members.close()
    counting = CountingScorer()
    seen = optional(counting)
    assert seen.counts_tokens and seen.reports_progress and not seen.warms_up
    seen.progress = print  # set through the view on the scorer itself
    assert counting.progress is print
    cached = CachedScorer(counting, tmp_path)
    assert optional(cached) is cached and cached.score_cache is cached and computing(cached).counts_tokens
    cached.close()


def test_progress_goes_by_texts_where_a_scorer_reports_tokens_it_did_not_count_ahead():
    from linguagym.scoring.engine.order import score_texts

    class ReportingOnly(WordScorer):
        """Reports tokens as it scores, but cannot count them ahead: the total was counted in sentences."""

        progress = None

        def score(self, texts):
            if self.progress is not None:
                self.progress(100)  # tokens: in a bar of sentences they would overshoot it
            return super().score(texts)

    seen: list[int] = []
    score_texts(ReportingOnly(), ["A dog ran.", "The cat sat.", "A dog ran."], seen.append)
    assert sum(seen) == 2 == work_to_do(ReportingOnly(), ["A dog ran.", "The cat sat."])[0]
