"""The Python API for notebooks: ``linguagym.run`` (what ``linguagym run`` does, returning ``Results`` with
DataFrames) and ``linguagym.lm_scorer`` (minicons' scorer methods through the engine), on a tiny offline model."""

from __future__ import annotations

import csv
import json
import math
import os
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

import linguagym
from linguagym.errors import ConfigurationError, LinguagymError
from linguagym.suites import example_suite_paths

pd = pytest.importorskip("pandas")

REPO = Path(__file__).resolve().parents[2]
PREFIX, CONTINUATION = "The keys to the cabinet", "are on the table."


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def written(tiny_lm_dir: Path, shared_cache: Path, tmp_path_factory: pytest.TempPathFactory):
    """A run of the example suites that wrote its files, with its ``Results``."""
    out = tmp_path_factory.mktemp("out")
    results = linguagym.run(example_suite_paths(), tiny_lm_dir, out, cache_dir=str(shared_cache), bootstrap=50)
    return results, out


@pytest.fixture(scope="module")
def scorer(tiny_lm_dir: Path, shared_cache: Path):
    with linguagym.lm_scorer(tiny_lm_dir, cache_dir=str(shared_cache)) as one:
        yield one


def read_exactly(path: Path):
    """The CSV file as written: exact floats (pandas 3 reads them so by default), only empty cells missing."""
    exact = {"float_precision": "round_trip"} if int(pd.__version__.split(".")[0]) < 3 else {}
    return pd.read_csv(path, keep_default_na=False, na_values=[""], **exact)


def csv_header(path: Path) -> list[str]:
    with open(path, newline="") as handle:
        return next(csv.reader(handle))


# ------------------------------------------------------------------------------------------ linguagym.run


def test_run_without_output_writes_nothing_and_matches_the_command_line(tiny_lm_dir, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    table = tmp_path / "cli" / "summary.csv"
    table.parent.mkdir()
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-m", "linguagym.cli", "run", "--model", str(tiny_lm_dir), "--cache-dir",
                           str(cache), "-o", str(tmp_path / "cli" / "out"), "--bootstrap", "50", "--csv", str(table),
                           *map(str, example_suite_paths())], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    [record_path] = (tmp_path / "cli" / "out").glob("*/run.json")
    record = json.loads(record_path.read_text())

    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    results = linguagym.run(example_suite_paths(), str(tiny_lm_dir), cache_dir=str(cache), bootstrap=50)
    assert list(work.iterdir()) == []  # nothing written (the scores come from the cache given)
    assert results.report is None and [r.directory for r in results.results] == [None]
    [outcome] = results
    assert {s["name"]: s["accuracy"] for s in outcome.record()["suites"]} == \
        {s["name"]: s["accuracy"] for s in record["suites"]}
    pd.testing.assert_frame_equal(results.to_pandas("summary"), read_exactly(table), check_dtype=False)
    assert outcome.cache["misses"] == 0  # the command's run had cached every sentence


def test_results_show_the_accuracy_table(written):
    results, _ = written
    shown = repr(results)
    assert "1 of 1 models ran" in shown and "npi_ever" in shown and "mean accuracy" in shown
    page = results._repr_html_()
    assert page.count("<tr>") == 1 + len(results.to_pandas("summary")) and "agreement_across_pp" in page
    assert "report.html" in page


@pytest.mark.parametrize("kind", ["items", "predictions", "regions", "effects"])
def test_each_csv_kind_has_the_columns_and_values_of_the_file_a_run_writes(written, kind):
    results, out = written
    [folder] = [p.parent for p in out.glob("*/run.json")]
    frame = results.to_pandas(kind)
    assert list(frame.columns) == csv_header(folder / f"{kind}.csv")
    pd.testing.assert_frame_equal(frame, read_exactly(folder / f"{kind}.csv"), check_dtype=False)
    assert len(frame) > 0


def test_tokens_add_up_to_the_regions(written):
    results, _ = written
    tokens, regions = results.to_pandas("tokens"), results.to_pandas("regions")
    keys = ["model", "suite", "item", "condition", "region"]
    by_region = tokens.groupby(keys).agg(total=("surprisal", "sum"), count=("token", "size")).reset_index()
    merged = regions.merge(by_region, on=keys, how="left").fillna({"total": 0.0, "count": 0})
    assert (merged["count"] == merged["tokens"]).all()
    assert (merged["total"] - merged["sum"]).abs().max() < 1e-9
    for _, sentence in tokens.groupby(["suite", "item", "condition"]):  # byte-level BPE covers every character
        assert list(sentence["start"])[1:] == list(sentence["end"])[:-1] and list(sentence["start"])[0] == 0
        assert list(sentence["token_index"]) == list(range(len(sentence)))


def test_suites_kind_is_the_suite_rows_of_the_summary(written):
    results, _ = written
    suites = results.to_pandas("suites")
    [outcome] = results
    expected = {s["name"]: round(s["accuracy"], 6) for s in outcome.record()["suites"]}
    assert dict(zip(suites["suite"], suites["accuracy"], strict=True)) == expected
    assert list(suites["items"]) == [8, 8, 8]
    assert {"ci_low", "ci_high", "model"} <= set(suites.columns)


def test_unknown_kind_and_unknown_keyword_are_clear_errors(written, tiny_lm_dir):
    results, _ = written
    with pytest.raises(ConfigurationError, match="unknown kind of table 'item'") as caught:
        results.to_pandas("item")
    assert "regions" in caught.value.hint
    with pytest.raises(ConfigurationError, match="'batchsize'") as caught:
        linguagym.run(example_suite_paths(), tiny_lm_dir, batchsize=4)
    assert "batch_size" in caught.value.hint and "bootstrap" in caught.value.hint
    with pytest.raises(ConfigurationError, match="'model'") as caught:
        linguagym.run(example_suite_paths(), model=str(tiny_lm_dir))
    assert "models=" in caught.value.hint
    with pytest.raises(ConfigurationError, match="no suites given"):
        linguagym.run([], tiny_lm_dir)


def test_missing_pandas_names_the_extra_to_install(written, monkeypatch):
    results, _ = written
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now fails
    with pytest.raises(LinguagymError) as caught:
        results.to_pandas("items")
    assert "linguagym[notebook]" in caught.value.hint


# ----------------------------------------------------------------------------------------- the scorer


def test_token_scores_add_up_to_the_sequence_score(scorer):
    texts = ["The keys to the cabinet are on the table.", "No student has ever failed."]
    tokens = scorer.token_score(texts)
    sums = scorer.sequence_score(texts, reduction="sum")
    means = scorer.sequence_score(texts)  # minicons' default: the mean per token
    for pairs, total, mean in zip(tokens, sums, means, strict=True):
        assert math.fsum(score for _, score in pairs) == pytest.approx(total, abs=1e-9)
        assert mean == pytest.approx(total / len(pairs))
    assert scorer.sequence_score(texts, reduction=lambda x: x.sum(0).item()) == pytest.approx(sums)
    assert scorer.token_score(texts[0]) == tokens[:1]  # one text: still a list of one, as minicons


def test_units_surprisal_log_probability_bits_and_probability(scorer):
    text = "The keys to the cabinet are on the table."
    [engine] = scorer.scored(text)
    [nats] = scorer.token_score(text)
    [bits] = scorer.token_score(text, surprisal=True, base_two=True)
    [surprisal_nats] = scorer.token_score(text, surprisal=True)
    [probs] = scorer.token_score(text, prob=True)
    assert [b for _, b in bits] == [t.surprisal for t in engine.tokens]  # the engine keeps bits
    assert [token for token, _ in nats] == [t.token for t in engine.tokens]
    for (_, n), (_, b), (_, s), (_, p) in zip(nats, bits, surprisal_nats, probs, strict=True):
        assert n < 0 and s == -n and n == pytest.approx(-b * math.log(2)) and p == pytest.approx(math.exp(n))
    [covered] = scorer.token_score(text, decode=True)
    assert "".join(token for token, _ in covered) == text


def test_conditional_score_is_the_full_score_less_the_prefix(scorer):
    full_text = PREFIX + " " + CONTINUATION
    [full], [alone] = scorer.scored(full_text), scorer.scored(PREFIX)
    in_prefix = [t for t in full.tokens if t.start < len(PREFIX)]
    assert [t.token for t in in_prefix] == [t.token for t in alone.tokens]  # the tokenization splits there
    [conditional] = scorer.conditional_score(PREFIX, CONTINUATION, reduction="sum")
    [whole], [prefix] = scorer.sequence_score(full_text, reduction="sum"), scorer.sequence_score(PREFIX, "sum")
    assert conditional == pytest.approx(whole - prefix, abs=1e-3)
    assert conditional < 0
    [bits] = scorer.conditional_score([PREFIX], [CONTINUATION], reduction="sum", surprisal=True, base_two=True)
    assert bits == pytest.approx(-conditional / math.log(2))
    frame = scorer.conditional_score([PREFIX], [CONTINUATION], as_dataframe=True)
    assert list(frame.columns) == ["prefix", "stimulus", "score"]


def test_a_token_across_the_boundary_counts_with_the_prefix_and_is_warned_of(scorer):
    [full] = scorer.scored("The keys")
    assert any(t.start < 5 < t.end for t in full.tokens)  # "ke" holds the end of "The k" and the start of "eys"
    with pytest.warns(UserWarning, match="1 token.* cross the boundary"):
        [split] = scorer.conditional_score("The k", "eys", separator="", reduction="sum")
    after = [t for t in full.tokens if t.start >= 5]
    assert split == pytest.approx(-math.log(2) * math.fsum(t.surprisal for t in after))


def test_word_scores_add_up_to_the_token_scores(scorer):
    text = "The keys to the cabinet are on the table."
    [words] = scorer.word_score(text)
    [tokens] = scorer.token_score(text)
    assert [w for w, _ in words] == text.split()
    assert math.fsum(s for _, s in words) == pytest.approx(math.fsum(s for _, s in tokens), abs=1e-9)
    [split] = scorer.word_score(text, pattern=r"[\w']+|[.,!?;]")  # minicons' words: the full stop apart
    assert [w for w, _ in split][-2:] == ["table", "."]
    frame = scorer.word_score([text], as_dataframe=True)
    assert list(frame["word"]) == text.split() and list(frame.columns)[:3] == ["text_index", "text", "word"]


def test_a_second_call_computes_nothing(tiny_lm_dir, tmp_path):
    texts = ["The keys to the cabinet are on the table.", "The keys to the cabinet is on the table."]
    scorer = linguagym.LMScorer(tiny_lm_dir, cache_dir=str(tmp_path / "cache"))
    first = scorer.sequence_score(texts)
    assert scorer.cache_stats["misses"] == 2
    assert scorer.sequence_score(texts) == first and scorer.word_score(texts[0])
    assert scorer.cache_stats["misses"] == 2 and scorer.cache_stats["hits"] == 3
    again = linguagym.LMScorer(tiny_lm_dir, cache_dir=str(tmp_path / "cache"))  # a new session, the same cache
    assert again.sequence_score(texts) == first and again.cache_stats["misses"] == 0
    scorer.close()
    again.close()


def test_a_run_scored_sentences_are_not_scored_again(written, tiny_lm_dir, shared_cache):
    results, _ = written
    sentences = [s.text for r in results.results for suite in r.suites for s in (c.sentence for c in suite.conditions)]
    scorer = linguagym.lm_scorer(tiny_lm_dir, cache_dir=str(shared_cache))
    scorer.sequence_score(sentences)
    assert scorer.cache_stats["misses"] == 0
    scorer.close()


def test_scorer_errors_are_clear(scorer, tiny_lm_dir):
    with pytest.raises(ConfigurationError, match="'batchsize'") as caught:
        linguagym.lm_scorer(tiny_lm_dir, batchsize=4)
    assert "batch_size" in caught.value.hint
    with pytest.raises(ConfigurationError, match="surprisal=True and prob=True"):
        scorer.token_score("The keys.", surprisal=True, prob=True)
    with pytest.raises(ConfigurationError, match="base_two"):
        scorer.sequence_score("The keys.", prob=True, base_two=True)
    with pytest.raises(ConfigurationError, match="unknown reduction 'total'"):
        scorer.sequence_score("The keys.", reduction="total")
    with pytest.raises(ConfigurationError, match="2 prefixes but 1 continuations"):
        scorer.conditional_score(["a", "b"], ["c"])
    with pytest.raises(ConfigurationError, match="texts must be strings"):
        scorer.token_score(["fine", 3])


# ------------------------------------------------------------------------------------ the notebook example


def test_the_notebook_example_runs_on_a_tiny_model(tiny_lm_dir, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LINGUAGYM_EXAMPLE_MODEL", str(tiny_lm_dir))
    monkeypatch.setenv("LINGUAGYM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    done = runpy.run_path(str(REPO / "docs" / "examples" / "notebook.py"))
    printed = capsys.readouterr().out
    assert f"3 example suites, model {tiny_lm_dir}" in printed and "mean accuracy" in printed
    assert list(done["suite_accuracy"]["suite"]) == ["agreement_across_pp", "npi_ever", "npz_comma"]
    assert len(done["items"]) == 24 and set(done["regions"]["suite"]) == set(done["suite_accuracy"]["suite"])
    assert len(done["sequence_scores"]) == 2 and len(done["conditional_scores"]) == 2
    assert [w for w, _ in done["word_scores"][0]] == done["sentences"][0].split()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache"]  # nothing written but the score cache
    done["scorer"].close()


def test_a_word_a_token_of_the_word_before_covers_has_no_score(scorer):
    text = "The keys"
    [full] = scorer.scored(text)
    covering = next(t for t in full.tokens if t.end - t.start > 1 and not text[t.start].isspace())
    with pytest.warns(UserWarning, match="no token has no score"):
        [letters] = scorer.word_score(text, pattern=r"\w")  # every letter a word: a token of two letters covers two
    at = dict(zip([m.start() for m in re.finditer(r"\w", text)], letters, strict=True))  # offset -> (word, score)
    assert at[covering.start + 1][0] == text[covering.start + 1] and math.isnan(at[covering.start + 1][1])
    assert not math.isnan(at[covering.start][1])  # the word holding the token's first character has its score
