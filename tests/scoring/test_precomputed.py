from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

from linguagym.errors import ConfigurationError
from linguagym.scoring import load_scorer
from linguagym.scoring.huggingface.causal import CausalScorer
from linguagym.scoring.huggingface.sources import resolve_source
from linguagym.scoring.precomputed import PrecomputedScorer, align_tokens, write_surprisals_tsv

from .conftest import SENTENCES

TEXTS = [*SENTENCES, "Café naïve – 5€!"]


def test_round_trip(gpt2_dir: Path, tmp_path: Path) -> None:
    scored = CausalScorer(resolve_source(str(gpt2_dir), tmp_path)).score(TEXTS)
    path = tmp_path / "out" / "surprisals.tsv"
    write_surprisals_tsv(scored, path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "sentence_id\ttoken_id\ttoken\tsurprisal"
    assert lines[1].startswith("1\t1\tThe\t")
    read = load_scorer(str(path)).score(TEXTS)
    for a, b in zip(scored, read, strict=True):
        assert [(t.start, t.end, t.surprisal, t.token) for t in a.tokens] == [
            (t.start, t.end, t.surprisal, t.token) for t in b.tokens
        ]
        assert all(t.token_id == -1 for t in b.tokens)
    assert not [p for p in path.parent.iterdir() if p.name != "surprisals.tsv"]  # no temporary left


def test_lm_zoo_word_level_file(tmp_path: Path) -> None:
    path = tmp_path / "zoo.tsv"
    path.write_text(
        "sentence_id\ttoken_id\ttoken\tsurprisal\n1\t1\tthe\t0.0\n1\t2\tfarmer\t7.5\n1\t3\t<unk>\t12.0\n"
        "1\t4\tknows\t3.25\n1\t5\t.\t1.0\n1\t6\t<eos>\t2.0\n"
    )
    [scored] = PrecomputedScorer(path).score(["The farmer zzyzx knows ."])
    assert [scored.text[t.start : t.end].strip() for t in scored.tokens] == ["The", "farmer", "zzyzx", "knows", "."]
    assert [t.unknown for t in scored.tokens] == [False, False, True, False, False]
    assert [t.surprisal for t in scored.tokens] == [0.0, 7.5, 12.0, 3.25, 1.0]


def test_releasing_a_precomputed_scorer_walks_no_objects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import linguagym.scoring.registry as registry
    from linguagym.scoring.protocol import Unloads

    path = tmp_path / "zoo.tsv"
    path.write_text("sentence_id\ttoken_id\ttoken\tsurprisal\n1\t1\tthe\t0.0\n1\t2\tfarmer\t7.5\n")
    collected: list[int] = []
    monkeypatch.setattr(registry.gc, "collect", lambda *args: collected.append(1) or 0)
    scorer = load_scorer(str(path), cache_dir=tmp_path)  # cached, as a run makes it
    assert isinstance(scorer, Unloads) and scorer.score(["The farmer"])[0].tokens
    registry.release_scorer(scorer)
    assert collected == []  # no weights: no full collection (one per model of a run, growing with the run)


def test_mismatched_files_name_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "zoo.tsv"
    path.write_text(
        "sentence_id\ttoken_id\ttoken\tsurprisal\n1\t1\tThe\t1.0\n1\t2\tfarmer\t2.0\n2\t1\tThe\t1.0\n2\t2\tclerk\t2.0\n"
    )
    scorer = PrecomputedScorer(path)
    # A deduplicated subset, in chunks and out of order, still finds its sentences.
    assert [len(s.tokens) for s in scorer.score(["The clerk"])] == [2]
    assert [s.tokens[1].surprisal for s in scorer.score(["The farmer", "The farmer"])] == [2.0, 2.0]
    with pytest.raises(ConfigurationError) as caught:
        scorer.score(["The clerks' dog"])
    assert f"{path}:3: token 'farmer' of sentence 1" in str(caught.value) or f"{path}:5: the tokens" in str(
        caught.value
    )
    assert "no other sentence of the file spells this text" in str(caught.value)
    fresh = PrecomputedScorer(path)
    with pytest.raises(ConfigurationError, match=r"zoo.tsv:5: the tokens of sentence 2 end at 'The clerk'"):
        fresh.score(["The farmer", "The clerks' dog"])
    with pytest.raises(ConfigurationError, match=r"zoo.tsv:3: token 'farmer' of sentence 1"):
        PrecomputedScorer(path).score(["The baker"])


def test_bad_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.tsv"
    bad.write_text("id\ttoken\n")
    with pytest.raises(ConfigurationError, match="bad.tsv:1: header"):
        PrecomputedScorer(bad)
    bad.write_text("sentence_id\ttoken_id\ttoken\tsurprisal\n1\t2\tThe\t1.0\n")
    with pytest.raises(ConfigurationError, match="bad.tsv:2: token_id 2 of sentence 1, expected 1"):
        PrecomputedScorer(bad)
    bad.write_text("sentence_id\ttoken_id\ttoken\tsurprisal\n1\t1\tThe\tlots\n")
    with pytest.raises(ConfigurationError, match="bad.tsv:2: expected 4"):
        PrecomputedScorer(bad)


def test_align_tokens_markers() -> None:
    assert align_tokens("The farmer", ["The", "Ġfarmer"]) == [(0, 3, False), (3, 10, False)]
    assert align_tokens("The farmer", ["▁The", "▁farm", "er"]) == [(0, 3, False), (3, 8, False), (8, 10, False)]
    assert align_tokens("The farmer", ["The", "Ġbaker"])[-1] is None


def test_refuses_to_write_an_empty_text(tmp_path: Path) -> None:
    from linguagym.scoring.protocol import ScoredText

    with pytest.raises(ConfigurationError, match="no tokens"):
        write_surprisals_tsv([ScoredText("", ())], tmp_path / "x.tsv")
    assert not list(tmp_path.iterdir())


HEADER_LINE = "sentence_id\ttoken_id\ttoken\tsurprisal\n"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("nan", "surprisal 'nan' is not a finite number"),
        ("NaN", "surprisal 'NaN' is not a finite number"),
        ("inf", "surprisal 'inf' is not a finite number"),
        ("-Infinity", "surprisal '-Infinity' is not a finite number"),
        ("1e999", "surprisal '1e999' is not a finite number"),  # float() reads it as inf
        ("-1.5", "surprisal -1.5 is negative"),
        ("1_0", "the surprisal '1_0' is not a number"),  # float() reads it as 10
        (" 2", "the surprisal ' 2' is not a number"),
    ],
)
def test_surprisals_that_are_not_finite_non_negative_numbers_are_refused_with_the_line(
    tmp_path: Path, value: str, message: str
) -> None:
    path = tmp_path / "zoo.tsv"
    path.write_text(f"{HEADER_LINE}1\t1\tThe\t1.0\n1\t2\tfarmer\t{value}\n", encoding="utf-8")
    with pytest.raises(ConfigurationError) as caught:
        PrecomputedScorer(path)
    assert "zoo.tsv:3: " in str(caught.value) and message in str(caught.value)


def test_ids_must_be_ascii_digits(tmp_path: Path) -> None:
    path = tmp_path / "zoo.tsv"
    path.write_text(f"{HEADER_LINE}1\t\u0661\tThe\t1.0\n", encoding="utf-8")  # int() reads Arabic-Indic 1
    with pytest.raises(ConfigurationError, match="zoo.tsv:2: expected 4 tab-separated fields"):
        PrecomputedScorer(path)


def test_bytes_that_are_not_utf8_and_oversized_fields_are_refused_with_the_line(tmp_path: Path) -> None:
    path = tmp_path / "zoo.tsv"
    path.write_bytes(HEADER_LINE.encode() + b"1\t1\tThe\t1.0\n1\t2\tfar\xffmer\t2.0\n")
    with pytest.raises(ConfigurationError, match=r"zoo.tsv:3: not UTF-8 text \(byte 56\)"):
        PrecomputedScorer(path)
    path.write_text(f"{HEADER_LINE}1\t1\tThe\t1.0\n1\t2\t{'x' * 200_000}\t2.0\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="zoo.tsv:3: field larger than field limit"):
        PrecomputedScorer(path)


def test_a_fifo_is_not_read_as_surprisals(tmp_path: Path) -> None:
    fifo = tmp_path / "zoo.tsv"
    os.mkfifo(fifo)
    with pytest.raises(ConfigurationError, match="zoo.tsv' is a FIFO \\(named pipe\\), not a surprisal file"):
        PrecomputedScorer(fifo)


def test_non_finite_surprisals_are_not_written(tmp_path: Path) -> None:
    from linguagym.scoring.protocol import ScoredText, TokenScore

    tokens = (TokenScore("The", 1, 0, 3, 0.5, False), TokenScore("Ġfarmer", 2, 3, 10, math.inf, False))
    scored = ScoredText("The farmer", tokens)
    with pytest.raises(ConfigurationError, match="text 1: token 'Ġfarmer' has surprisal inf"):
        write_surprisals_tsv([scored], tmp_path / "x.tsv")
    assert not list(tmp_path.iterdir())
