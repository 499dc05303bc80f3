"""The dataset's tagging, kept on disk between runs (``analysis.analyse_cached``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from linguagym.capabilities.data.analysis import Analyser, analyse_cached
from linguagym.capabilities.data.lexicon import read_sentiwordnet
from tests.capabilities.conftest import RT_ROWS

TEXTS = [text for _, _, text in RT_ROWS] + ["Two  spaces\tand a tab ."]


class CountingAnalyser(Analyser):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.tagged_texts = 0

    def tagged(self, texts, progress=None):
        self.tagged_texts += len(texts)
        return super().tagged(texts, progress)


def _files(cache: Path) -> list[Path]:
    return sorted((cache / "capabilities").glob("tagged-*.json"))


def test_a_second_run_reads_the_tagging_and_gets_the_same_analyses(spacy_ready, swn_file, tmp_path):
    analyser = CountingAnalyser(read_sentiwordnet(swn_file))
    ticks: list[int] = []
    first = analyse_cached(analyser, TEXTS, cache_dir=tmp_path, progress=ticks.append)
    assert first == analyser.analyse(TEXTS)  # what the plain call gives
    assert len(_files(tmp_path)) == 1 and analyser.tagged_texts == 2 * len(TEXTS)
    assert sum(ticks) == len(TEXTS)
    ticks.clear()
    again = analyse_cached(analyser, TEXTS, cache_dir=tmp_path, progress=ticks.append)
    assert again == first and analyser.tagged_texts == 2 * len(TEXTS)  # read, not tagged
    assert sum(ticks) == len(TEXTS)  # progress still reaches the total
    assert any(t.sentiment == "negative" for a in again for t in a.tokens)


def test_the_lexicon_is_applied_anew_and_other_texts_get_their_own_file(spacy_ready, swn_file, tmp_path):
    analyser = CountingAnalyser(read_sentiwordnet(swn_file))
    analyse_cached(analyser, TEXTS, cache_dir=tmp_path)
    swn_file.write_text(swn_file.read_text().replace("a\t00000002\t0\t0.75", "a\t00000002\t0.75\t0"))
    relabelled = CountingAnalyser(read_sentiwordnet(swn_file))  # "bad" is positive now
    analyses = analyse_cached(relabelled, TEXTS, cache_dir=tmp_path)
    assert relabelled.tagged_texts == 0
    bad = next(t for t in analyses[0].tokens if t.text == "bad")
    assert bad.sentiment == "positive"
    analyse_cached(relabelled, TEXTS[:3], cache_dir=tmp_path)
    assert relabelled.tagged_texts == 3 and len(_files(tmp_path)) == 2


@pytest.mark.parametrize("damage", ["{not json", "[]", '[[["a", "b"]]]'])
def test_a_damaged_file_is_tagged_again(spacy_ready, swn_file, tmp_path, damage):
    analyser = CountingAnalyser(read_sentiwordnet(swn_file))
    first = analyse_cached(analyser, TEXTS, cache_dir=tmp_path)
    _files(tmp_path)[0].write_text(damage)
    assert analyse_cached(analyser, TEXTS, cache_dir=tmp_path) == first
    assert analyser.tagged_texts == 2 * len(TEXTS)


def test_a_spacy_model_directory_is_not_cached(spacy_ready, swn_file, tmp_path):
    from linguagym.capabilities.data.analysis import load_spacy

    load_spacy().to_disk(tmp_path / "pipeline")
    analyser = CountingAnalyser(read_sentiwordnet(swn_file), str(tmp_path / "pipeline"))
    analyse_cached(analyser, TEXTS, cache_dir=tmp_path / "cache")
    analyse_cached(analyser, TEXTS, cache_dir=tmp_path / "cache")
    assert analyser.tagged_texts == 2 * len(TEXTS) and not _files(tmp_path / "cache")


def test_a_cache_that_cannot_be_written_warns_and_the_run_goes_on(spacy_ready, swn_file, tmp_path, caplog):
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "capabilities").write_text("a file where the folder should be")
    analyser = CountingAnalyser(read_sentiwordnet(swn_file))
    with caplog.at_level("WARNING"):
        analyses = analyse_cached(analyser, TEXTS, cache_dir=cache)
    assert analyses == analyser.analyse(TEXTS)
    assert "not kept for later runs" in caplog.text
