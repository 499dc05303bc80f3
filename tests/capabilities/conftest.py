from __future__ import annotations

from pathlib import Path

import pytest

# A tiny SentiWordNet in the official format: enough words for the fixture sentences below.
SWN_LINES = [
    "# POS\tID\tPosScore\tNegScore\tSynsetTerms\tGloss",
    "a\t00000001\t0.75\t0\tgood#1 fine#2\tgood",
    "a\t00000002\t0\t0.75\tbad#1 awful#1\tbad",
    "a\t00000003\t0\t0\tred#1 long#1 new#1\tneutral adjectives",
    "a\t00000004\t0\t0\tfine#1\tfine, neutral first sense",
    "n\t00000005\t0\t0\tmovie#1 film#1 plot#1 car#1 book#1\tneutral nouns",
    "n\t00000006\t0\t0.5\tmess#1 disaster#1\tnegative nouns",
    "n\t00000007\t0.5\t0\tjoy#1\tpositive noun",
    "v\t00000008\t0\t0.625\thate#1\tnegative verb",
    "v\t00000009\t0.625\t0\tlove#1\tpositive verb",
    "r\t00000010\t0\t0\tquite#1\tadverb",
    "",
]

# id, rating (-4..4), sentence: ratings -3 negative, 0 neutral, 3 positive
RT_ROWS = [
    ("1", -3.0, "This movie is bad."),
    ("2", -3.0, "That plot is an awful mess."),
    ("3", -3.0, "The movie is bad."),  # no demonstrative start
    ("4", -3.0, "This film isn't bad at all, sadly."),  # already negated
    ("5", -3.0, "I hate this awful film."),
    ("6", 3.0, "A good film."),
    ("7", 3.0, "What a good new movie!"),
    ("8", 0.0, "A red car."),
    ("9", 0.0, "These long books are red."),
    ("10", 0.0, "The long film has a new plot."),
    ("11", -3.0, "Those films, he said, are bad."),
    ("12", 3.0, "I love this good book."),
]


@pytest.fixture
def swn_file(tmp_path: Path) -> Path:
    path = tmp_path / "SentiWordNet_3.0.0.txt"
    path.write_text("\n".join(SWN_LINES), encoding="utf-8")
    return path


@pytest.fixture
def rt_file(tmp_path: Path) -> Path:
    path = tmp_path / "movieReviewSnippets_GroundTruth.txt"
    path.write_text("".join(f"{i}\t{r}\t{t}\r\n" for i, r, t in RT_ROWS), encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def spacy_ready() -> None:
    pytest.importorskip("spacy")
    from linguagym.capabilities.data.analysis import load_spacy

    load_spacy()
