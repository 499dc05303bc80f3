from __future__ import annotations

import json
import zipfile

import pytest

from linguagym.capabilities.data.catalog import load_dataset
from linguagym.capabilities.data.datasets import band_label, parse_label_map, read_rotten_tomatoes, read_table
from linguagym.capabilities.data.sst import read_sentence_polarity, read_sst, read_sst2
from linguagym.capabilities.errors import CapabilityError


def test_bands_match_the_sst():
    assert band_label(0.0) == band_label(0.4) == "negative"
    assert band_label(0.4001) == band_label(0.6) == "neutral"
    assert band_label(0.6001) == band_label(1.0) == "positive"
    assert band_label((-0.8 + 4) / 8) == "negative"  # the edge stays on its side despite float rounding
    assert band_label((0.8 + 4) / 8) == "neutral"


def test_rotten_tomatoes_reader(rt_file, tmp_path):
    data = read_rotten_tomatoes(rt_file)
    assert len(data.examples) == 12
    first = data.examples[0]
    assert (first.id, first.text, first.label, first.score) == ("1", "This movie is bad.", "negative", 0.125)
    assert data.describe()["labels"] == {"negative": 6, "neutral": 3, "positive": 3}
    quoted = tmp_path / "q.txt"
    quoted.write_text("7\t2.5\tThe 21st Century's new ''Conan''   and more\r\n")
    assert read_rotten_tomatoes(quoted).examples[0].text == "The 21st Century's new \"Conan\" and more"
    quoted.write_text("7\tgreat\tText\r\n")
    with pytest.raises(CapabilityError, match="line 1: rating 'great' is not a number"):
        read_rotten_tomatoes(quoted)


def test_table_csv_jsonl_and_label_map(tmp_path):
    csv_path = tmp_path / "d.csv"
    csv_path.write_text('sentence,polarity\n"It is n\'t good .",0\nGreat fun.,1\n')
    data = read_table(csv_path, text_column="sentence", label_column="polarity", tokenized=True,
                      label_map=parse_label_map("0=negative,1=pos"))
    assert [(e.text, e.label) for e in data.examples] == [("It isn't good.", "negative"), ("Great fun.", "positive")]
    jsonl = tmp_path / "d.jsonl"
    jsonl.write_text(json.dumps({"text": "Fine.", "label": "Neutral", "uid": 7}) + "\n")
    example = read_table(jsonl, id_column="uid").examples[0]
    assert (example.id, example.label) == ("7", "neutral")


def test_score_column_without_labels_uses_bands(tmp_path):
    path = tmp_path / "s.tsv"
    path.write_text("text\tscore\nA.\t0.1\nB.\t0.5\nC.\t0.9\n")
    assert [e.label for e in read_table(path, score_column="score").examples] == ["negative", "neutral", "positive"]


def test_missing_columns_are_named(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("sentence,label\nGood.,positive\n")
    with pytest.raises(CapabilityError, match="lacks the column\\(s\\) 'text'; it has 'label', 'sentence'"):
        read_table(path)


def test_unknown_label_values_are_listed(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("text,label\nGood.,positive\nBad.,1\nMeh.,so-so\n")
    with pytest.raises(CapabilityError) as info:
        read_table(path)
    assert "'1' (row 2)" in str(info.value) and "'so-so' (row 3)" in str(info.value)
    assert "label_map" in str(info.value) and info.value.settings == ("label_map",)
    with pytest.raises(CapabilityError, match="bad label map entry 'x=great'"):
        parse_label_map("0=negative,x=great")


def test_sst_official_release(tmp_path):
    (tmp_path / "datasetSentences.txt").write_text(
        "sentence_index\tsentence\n1\tIt 's a caf\u00c3\u00a9 -LRB- nice -RRB- .\n2\tDull .\n3\tUnlabelled .\n")
    (tmp_path / "dictionary.txt").write_text("It 's a caf\u00e9 ( nice ) .|10\nDull .|11\nDull|12\n")
    (tmp_path / "sentiment_labels.txt").write_text("phrase ids|sentiment values\n10|0.9\n11|0.1\n12|0.5\n")
    (tmp_path / "datasetSplit.txt").write_text("sentence_index,splitset_label\n1,1\n2,2\n3,1\n")
    data = read_sst(tmp_path)
    assert [(e.id, e.text, e.label) for e in data.examples] == [
        ("1", "It's a caf\u00e9 (nice).", "positive"), ("2", "Dull.", "negative")]
    assert "1 sentences without a phrase" in data.label_rule
    assert [e.id for e in read_sst(tmp_path, split="test").examples] == ["2"]
    (tmp_path / "dictionary.txt").unlink()
    with pytest.raises(CapabilityError, match="lacks dictionary.txt"):
        read_sst(tmp_path)


def test_sst2_and_sentence_polarity(tmp_path):
    tsv = tmp_path / "train.tsv"
    tsv.write_text('sentence\tlabel\nit \'s a " charming " journey . \t1\ni did n\'t care \t0\n')
    assert [(e.text, e.label) for e in read_sst2(tsv).examples] == [
        ('It\'s a "charming" journey.', "positive"), ("I didn't care", "negative")]
    archive = tmp_path / "sentence_polarity.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("sentence_polarity/rt-polarity.pos", "a joy , really . \n".encode("latin-1"))
        z.writestr("sentence_polarity/rt-polarity.neg", "i did n't like the caf\xe9 . \n".encode("latin-1"))
    data = read_sentence_polarity(archive)
    assert [(e.id, e.text, e.label) for e in data.examples] == [
        ("pos-1", "A joy, really.", "positive"), ("neg-1", "I didn't like the caf\u00e9.", "negative")]


def test_catalog_names(tmp_path, rt_file):
    assert load_dataset(f"rotten-tomatoes:{rt_file}").name == "rotten-tomatoes"
    with pytest.raises(CapabilityError, match="unknown dataset 'imdb'"):
        load_dataset("imdb")
    with pytest.raises(CapabilityError, match="does not exist"):
        load_dataset("sst:" + str(tmp_path / "nowhere"))
    with pytest.raises(CapabilityError, match="lacks the column"):
        load_dataset(str(rt_file))  # a .txt path is read as a TSV table, which needs text and label columns
    with pytest.raises(CapabilityError, match="unknown format '.xml'"):
        read_table(rt_file.with_suffix(".xml").write_text("x") and rt_file.with_suffix(".xml"))
