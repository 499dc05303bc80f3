from __future__ import annotations

import pytest

from linguagym.capabilities.data.lexicon import label_senses, read_sentiwordnet
from linguagym.capabilities.errors import CapabilityError


def test_weighted_means_use_one_over_sense_number():
    word = label_senses([(0.0, 0.5), (0.5, 0.0)])  # weights 1 and 1/2
    assert word.negative == pytest.approx(0.5 / 1.5)
    assert word.positive == pytest.approx(0.25 / 1.5)
    assert word.label == "negative"


def test_the_second_sense_never_flips_sign():
    # the original raised differences to the power i; with i = 2 a negative term became positive
    assert label_senses([(0.0, 0.0), (0.0, 0.5)]).label == "negative"


def test_neutral_only_when_every_sense_is_zero():
    assert label_senses([(0.0, 0.0), (0.0, 0.0)]).label == "neutral"
    assert label_senses([(0.0, 0.0), (0.0, 0.0), (0.125, 0.0)]).label == "positive"
    assert label_senses([(0.25, 0.25)]).label == "mixed"


def test_official_format_and_csv_agree(swn_file, tmp_path):
    official = read_sentiwordnet(swn_file)
    rows = ["POS,ID,PosScore,NegScore,SynsetTerms,Gloss"]
    for line in swn_file.read_text().splitlines():
        if line and not line.startswith("#"):
            fields = line.split("\t")
            rows.append(",".join(fields[:5]) + ',"' + fields[5] + '"')
    csv_path = tmp_path / "swn.csv"
    csv_path.write_text("\n".join(rows) + "\n")
    from_csv = read_sentiwordnet(csv_path)
    assert len(official) == len(from_csv) == 18
    for word, cls in [("good", "adjective"), ("fine", "adjective"), ("mess", "noun"), ("hate", "verb")]:
        assert official.lookup(word, cls) == from_csv.lookup(word, cls)


def test_labels_and_unknown_words(swn_file):
    lexicon = read_sentiwordnet(swn_file)
    assert lexicon.label("good", "adjective") == "positive"
    assert lexicon.label("Movie", "noun") == "neutral"
    assert lexicon.label("good", "noun") is None  # the class matters
    assert lexicon.label("splendiferous", "adjective") is None  # unknown is not neutral
    # "fine": sense 1 neutral (0, 0), sense 2 positive -> positive, not neutral
    assert lexicon.label("fine", "adjective") == "positive"


def test_bad_lexicon_files(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("POS,ID,PosScore\na,1,0.5\n")
    with pytest.raises(CapabilityError, match="lacks the column"):
        read_sentiwordnet(bad)
    bad.write_text("x\t1\t0\t0\tword#1\tgloss\n")
    with pytest.raises(CapabilityError, match="line 1: unknown part of speech"):
        read_sentiwordnet(bad)
    with pytest.raises(CapabilityError, match="does not exist"):
        read_sentiwordnet(tmp_path / "missing.txt")
