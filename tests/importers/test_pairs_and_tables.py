"""Minimal pairs (CSV, TSV, JSONL) and spreadsheets (CSV, TSV) into suites; bad input named by file and line."""

import pytest

from linguagym.errors import ConfigurationError, SuiteError
from linguagym.importers.pairs import read_pairs
from linguagym.importers.table import read_table

# ------------------------------------------------------------------------------------------------- pairs


def test_pairs_csv_with_item_numbers(tmp_path):
    path = tmp_path / "agreement.csv"
    path.write_text("item,good,bad\n7,The cat sleeps.,The cat sleep.\n9,\"Dogs, too, bark.\",\"Dogs, too, barks.\"\n")
    suite = read_pairs(path)
    assert suite.name == "agreement" and [i.number for i in suite.items] == [7, 9]
    assert suite.items[1].condition("good").content(1) == "Dogs, too, bark."
    assert [p.formula for p in suite.predictions] == ["(1;%good%) < (1;%bad%)"]
    assert "item_ids" not in suite.meta.extra


def test_pairs_tsv_is_read_by_its_suffix(tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_text("good\tbad\nThe cat sleeps, I think.\tThe cat sleep, I think.\n")
    [item] = read_pairs(path, name="commas").items
    assert item.number == 1 and item.condition("bad").content(1) == "The cat sleep, I think."


def test_pairs_jsonl_with_blimp_names_and_text_ids(tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_text('{"id": "a-1", "sentence_good": "She left.", "sentence_bad": "She leaved."}\n\n'
                    '{"id": "b-2", "sentence_good": "They ran.", "sentence_bad": "They runned."}\n')
    suite = read_pairs(path, name="past tense")
    assert suite.name == "past tense" and [i.number for i in suite.items] == [1, 2]
    assert suite.meta.extra["item_ids"] == {"1": "a-1", "2": "b-2"}


@pytest.mark.parametrize("name, content, words", [
    ("p.csv", "good,wrong\nA.,B.\n", r"p\.csv:2: no 'bad' or 'sentence_bad' field"),
    ("p.csv", "good,bad\nA.,B.\nC.\n", r"p\.csv:3: 1 values, but the header has 2 columns"),
    ("p.csv", "item,good,bad\n1,A.,B.\n1,C.,D.\n", r"p\.csv:3: item 1 was already given on line 2"),
    ("p.jsonl", '{"good": "A.", "bad": "B."}\n{"good": "C.", "bad": "D."\n', r"p\.jsonl:2: invalid JSON"),
    ("p.csv", "good,bad\n", r"p\.csv: holds no pairs"),
    ("p.txt", "good bad\n", r"p\.txt: has an unknown format"),
])
def test_bad_pairs_files(tmp_path, name, content, words):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(ConfigurationError, match=words):
        read_pairs(path)


def test_a_bad_byte_is_named_by_its_line(tmp_path):
    path = tmp_path / "p.csv"
    path.write_bytes(b"good,bad\nA.,B.\n\xff,C.\n")
    with pytest.raises(ConfigurationError, match=r"p\.csv:3: not UTF-8"):
        read_pairs(path)


# ------------------------------------------------------------------------------------------------ tables

TABLE = """item,condition,subject,verb,rest
1,match,The boy,swims,today.
1,mismatch,The boy,swim,today.
2,mismatch,The girls,runs,fast.
2,match,The girls,run,fast.
"""


def test_table_csv_with_predictions_given(tmp_path):
    path = tmp_path / "number.csv"
    path.write_text(TABLE)
    suite = read_table(path, ["(2;%mismatch%) > (2;%match%)"])
    assert suite.name == "number" and suite.region_names == ("subject", "verb", "rest")
    assert [i.number for i in suite.items] == [1, 2] and set(suite.condition_names) == {"match", "mismatch"}
    assert suite.items[1].condition("match").content(2) == "run"
    assert [p.formula for p in suite.predictions] == ["(2;%mismatch%) > (2;%match%)"]


def test_table_tsv_with_a_predictions_sidecar(tmp_path):
    path = tmp_path / "number.tsv"
    path.write_text(TABLE.replace(",", "\t"))
    (tmp_path / "number.predictions").write_text("# the verb\n(2;%mismatch%) > (2;%match%)\n\n"
                                                 "(*;%mismatch%) > (*;%match%)\n")
    suite = read_table(path, name="agreement", metric="mean")
    assert suite.name == "agreement" and suite.meta.metric == "mean"
    assert [p.formula for p in suite.predictions] == ["(2;%mismatch%) > (2;%match%)", "(*;%mismatch%) > (*;%match%)"]


def test_a_ragged_item_names_its_row(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(TABLE + "3,match,The dog,barks,loudly.\n")
    with pytest.raises(ConfigurationError, match=r"t\.csv:6: item 3 lacks condition\(s\) 'mismatch'") as caught:
        read_table(path, ["(2;%mismatch%) > (2;%match%)"])
    assert "every item needs a row for each condition: match, mismatch" in str(caught.value)


@pytest.mark.parametrize("content, predictions, words", [
    ("condition,a\nx,A\n", ["(1;%x%) > 0"], r"t\.csv:1: no 'item' column"),
    ("item,condition\n1,x\n", ["(1;%x%) > 0"], r"t\.csv:1: no region columns"),
    (TABLE + "2,match,The girls,run,fast.\n", ["(2;%a%) > 0"],
     r"t\.csv:6: item 2 has condition 'match' twice \(also on line 5\)"),
    (TABLE + "two,match,A,B,C\n", ["(2;%a%) > 0"], r"t\.csv:6: item must be a whole number"),
    (TABLE + "3,match,A,B\n", ["(2;%a%) > 0"], r"t\.csv:6: 4 values, but the header has 5 columns"),
    (TABLE, None, r"t\.csv: no predictions"),
    (TABLE, ["(2;%mismatch%) >"], r"prediction 1: the prediction .* does not parse"),
])
def test_bad_tables(tmp_path, content, predictions, words):
    path = tmp_path / "t.csv"
    path.write_text(content)
    with pytest.raises(ConfigurationError, match=words):
        read_table(path, predictions)


@pytest.mark.parametrize("formula, words", [
    ("(2;%ungrammatical%) > (2;%match%)", "names condition 'ungrammatical', which the table does not have"),
    ("(4;%mismatch%) > (2;%match%)", "names region 4, but the table has 3"),
])
def test_a_prediction_must_name_the_tables_regions_and_conditions(tmp_path, formula, words):
    path = tmp_path / "t.csv"
    path.write_text(TABLE)
    with pytest.raises(ConfigurationError, match=words) as caught:
        read_table(path, [formula])
    assert "1 = subject, 2 = verb, 3 = rest" in str(caught.value) or "match, mismatch" in str(caught.value)


def test_a_table_is_checked_as_a_suite_file_is(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(TABLE.replace("mismatch", "mis%match"))  # '%' delimits condition names in formulas
    with pytest.raises(SuiteError, match="%"):
        read_table(path, ["(2;%match%) < 100"])


def test_a_header_of_100k_columns_is_read_in_linear_time(tmp_path):
    """Finding a column named twice counted each column in the whole header: 100k columns were still being
    checked at 120 s (issue 43). In a child with a time limit, so that a slow reader fails the test, not CI."""
    import subprocess
    import sys

    wide = tmp_path / "wide.csv"
    columns = [f"c{i}" for i in range(100_000)]
    wide.write_text(",".join(["good", "bad", *columns]) + "\n"
                    + ",".join(["The cat sleeps.", "The cat sleep.", *["x"] * len(columns)]) + "\n")
    script = "import sys; from linguagym.importers.pairs import read_pairs; print(len(read_pairs(sys.argv[1]).items))"
    result = subprocess.run([sys.executable, "-c", script, str(wide)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout.strip() == "1", result.stderr[-500:]
    twice = tmp_path / "twice.csv"
    twice.write_text(",".join(["good", "bad", *columns, "c5"]) + "\n")
    with pytest.raises(ConfigurationError, match="column 'c5' is named twice"):
        read_pairs(twice)
