"""Cancel keeps what was computed (issue 36): every chunk scored before a cancel, or finished after it was asked
for, is in the score cache, and the resumed run computes exactly the tokens that were not computed before."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from linguagym.errors import Cancelled
from linguagym.evaluation.model_runs import run_models
from linguagym.evaluation.run import RunResult, RunSettings
from linguagym.scoring.cache import CachedScorer
from linguagym.scoring.engine.order import CHUNK, scoring_order
from linguagym.scoring.protocol import ScoredText, TokenScore
from linguagym.scoring.registry import load_scorer
from tests.evaluation.long_suite import ITEMS, write_long_suite


class CountingFake:
    """One token per character, reported to ``progress`` text by text; counts the texts it is handed."""

    def __init__(self) -> None:
        self.progress: Callable[[int], None] | None = None
        self.scored: list[str] = []

    @property
    def identity(self) -> dict:
        return {"kind": "fake", "model": "counting"}

    def score(self, texts: Sequence[str]) -> list[ScoredText]:
        out = []
        for text in texts:
            self.scored.append(text)
            out.append(ScoredText(text, tuple(TokenScore(c, i, i, i + 1, 1.0, False) for i, c in enumerate(text))))
            if self.progress is not None:
                self.progress(len(text))
        return out


def test_a_cancel_raised_by_progress_lets_the_chunk_finish_and_keeps_it(tmp_path: Path) -> None:
    fake = CountingFake()
    cached = CachedScorer(fake, tmp_path, chunk_size=2)
    counts: list[int] = []

    def progress(count: int) -> None:  # as ``begin``'s advance does once cancelling was asked for
        counts.append(count)
        raise Cancelled("cancelled")

    cached.progress = progress
    texts = ["a", "bb", "ccc", "dddd", "eeeee"]
    with pytest.raises(Cancelled):
        cached.score(texts)
    assert fake.scored == ["a", "bb"]  # the first chunk went on to its end, the second never began
    assert counts == [1, 2]  # and its counts still reached the progress display
    assert cached.progress is progress
    cached.progress = None
    assert cached.missing(texts) == ["ccc", "dddd", "eeeee"]  # the finished chunk was committed
    assert [s.text for s in cached.score(texts)] == texts
    assert fake.scored == ["a", "bb", "ccc", "dddd", "eeeee"]  # the rest, and nothing twice


def test_an_error_of_the_scorer_after_a_cancel_is_what_the_caller_sees(tmp_path: Path) -> None:
    class Failing(CountingFake):
        def score(self, texts: Sequence[str]) -> list[ScoredText]:
            super().score(texts)
            raise RuntimeError("the model broke")

    def progress(count: int) -> None:
        raise Cancelled("cancelled")

    cached = CachedScorer(Failing(), tmp_path, chunk_size=2)
    cached.progress = progress
    with pytest.raises(RuntimeError, match="the model broke"):
        cached.score(["a", "bb", "ccc"])
    assert cached.missing(["a"]) == ["a"]  # nothing was committed of the broken chunk


def _progress(seen: dict[str, int]):
    def progress(label: str, total: int, unit: str):
        if unit == "tokens":
            seen["total"] += total
            return lambda count: seen.__setitem__("done", seen["done"] + count)
        return None

    return progress


def _first_chunk_tokens(model: Path, texts: list[str]) -> int:
    return load_scorer(str(model), device="cpu", score_cache=False).count_tokens(scoring_order(texts)[:CHUNK])


@pytest.mark.parametrize("when", ["after the first pass", "after the chunk's last pass"])
def test_a_run_cancelled_part_way_resumes_with_only_the_tokens_not_computed(
        tiny_lm_dir: Path, tmp_path: Path, when: str) -> None:
    from linguagym.evaluation.run import load_suites, suite_texts

    suite = write_long_suite(tmp_path)
    texts = suite_texts(load_suites([suite])[0], "natural")
    first_chunk = _first_chunk_tokens(tiny_lm_dir, texts)
    # batch_size 8: 4,096 tokens a pass, so the first chunk (about 5,700 tokens) takes two passes
    settings = [RunSettings(model=str(tiny_lm_dir), device="cpu", cache_dir=str(tmp_path / "cache"), batch_size=8)]
    before = {"total": 0, "done": 0}
    threshold = 1 if when == "after the first pass" else first_chunk  # the case: the chunk is computed
    with pytest.raises(Cancelled):
        run_models([suite], settings, summary=None, progress=_progress(before),
                   cancelled=lambda: before["done"] >= threshold)
    assert before["done"] == first_chunk < before["total"]  # stopped at the end of the first chunk

    again = {"total": 0, "done": 0}
    [result] = run_models([suite], settings, summary=None, progress=_progress(again))
    assert isinstance(result, RunResult)
    assert again["total"] == again["done"] == before["total"] - before["done"]  # exactly what was not computed
    assert result.cache is not None
    assert (result.cache["hits"], result.cache["misses"]) == (CHUNK, 2 * ITEMS - CHUNK)
    whole = run_models([suite], [RunSettings(model=str(tiny_lm_dir), device="cpu", cache=False, batch_size=8)],
                       summary=None)[0]
    assert isinstance(whole, RunResult)
    assert [c.values for c in result.suites[0].conditions] == [c.values for c in whole.suites[0].conditions]


def test_ctrl_c_during_linguagym_run_keeps_the_chunks_finished_before_it(
        tiny_lm_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from linguagym.cli import main
    from linguagym.scoring.huggingface.causal import CausalScorer

    suite = write_long_suite(tmp_path)
    real = CausalScorer.score
    handed: list[int] = []

    def interrupted_in_the_second_chunk(self: CausalScorer, texts: Sequence[str]) -> list[ScoredText]:
        handed.append(len(texts))
        if len(handed) == 2:
            raise KeyboardInterrupt  # Ctrl-C while the model scores the second chunk
        return real(self, texts)

    monkeypatch.setattr(CausalScorer, "score", interrupted_in_the_second_chunk)
    command = ["run", "--model", str(tiny_lm_dir), "--device", "cpu", "--cache-dir", str(tmp_path / "cache"),
               "--bootstrap", "0", "--no-report", "-o", str(tmp_path / "out"), str(suite)]
    assert main(command) == 130  # "interrupted"
    assert handed == [CHUNK, 2 * ITEMS - CHUNK]
    monkeypatch.setattr(CausalScorer, "score", real)
    assert main(command) == 0
    [record] = (tmp_path / "out").glob("*/run.json")
    cache = json.loads(record.read_text(encoding="utf-8"))["cache"]
    assert (cache["hits"], cache["misses"]) == (CHUNK, 2 * ITEMS - CHUNK)  # only the interrupted chunk again
