from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path

import pytest

from linguagym.cli.entry import option_names
from linguagym.cli.lct_run_tests import add_test_parser, markdown_table
from linguagym.errors import LinguagymError
from tests.capabilities.lct_fakes import EXPECTED, EXPECTED_ORDER, FlakyClassifier, KeywordClassifier, document

KEYWORDS = "python:tests.capabilities.lct_fakes:keyword_labels"


def _main(argv: list[str]) -> int:
    """``linguagym lct test`` as the main CLI runs it: user errors print their message and return 1."""
    parser = argparse.ArgumentParser(prog="linguagym lct")
    add_test_parser(parser.add_subparsers())
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except LinguagymError as error:  # written as the main CLI writes it: settings as this command's options
        print(f"error: {error.text(option_names(parser, argv).get)}", file=sys.stderr)
        return 1


@pytest.fixture
def tests_file(tmp_path: Path) -> Path:
    path = tmp_path / "tests.json"
    path.write_text(json.dumps(document()), encoding="utf-8")
    return path


def _run(tests_file: Path, tmp_path: Path, *extra: str) -> int:
    return _main(["test", str(tests_file), "-o", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "cache"),
                  *extra])


def test_python_classifier_end_to_end_then_served_from_the_cache(tests_file, tmp_path, capsys):
    assert _run(tests_file, tmp_path, "-c", KEYWORDS) == 0
    out, err = capsys.readouterr()
    for cid in EXPECTED_ORDER:
        assert cid in out
    assert "16 texts to predict" in err and "report:" in err
    out_dir = tmp_path / "out"
    record = json.loads((out_dir / "results.json").read_text(encoding="utf-8"))
    (entry,) = record["classifiers"]
    assert entry["spec"] == KEYWORDS and entry["status"] == "ok" and entry["identity"]["kind"] == "python"
    assert record["settings"]["classifiers"] == [KEYWORDS] and record["settings"]["device"] == "auto"
    assert record["settings"]["cache_dir"] == str(tmp_path / "cache")
    rows = list(csv.DictReader((out_dir / entry["directory"] / "tests.csv").open(encoding="utf-8")))
    assert len(rows) == len(document()["tests"])
    assert sum(r["passed"] == "FALSE" for r in rows) == sum(v[1] + v[3] for v in EXPECTED.values())
    # logical as in every linguagym CSV (docs/data-dictionary.md): R's read.csv and pandas read TRUE/FALSE as logical
    assert {r["passed"] for r in rows} == {"TRUE", "FALSE"}
    assert (out_dir / "report.html").is_file()

    assert _run(tests_file, tmp_path, "-c", KEYWORDS) == 0
    _, err = capsys.readouterr()
    assert "every prediction is cached" in err
    again = json.loads((out_dir / "results.json").read_text(encoding="utf-8"))["classifiers"][0]
    assert again["cached_before"] == again["unique_texts"] == 16


def test_tests_csv_passed_reads_as_logical_in_pandas(tests_file, tmp_path, capsys):
    pandas = pytest.importorskip("pandas")
    assert _run(tests_file, tmp_path, "-c", KEYWORDS) == 0
    [path] = (tmp_path / "out").glob("*/tests.csv")
    frame = pandas.read_csv(path)
    assert frame["passed"].dtype == bool
    assert int((~frame["passed"]).sum()) == sum(v[1] + v[3] for v in EXPECTED.values())


def test_csv_and_markdown_tables_on_stdout(tests_file, tmp_path, capsys):
    assert _run(tests_file, tmp_path, "-c", KEYWORDS, "--csv") == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[0][:4] == ["LC", "name", "seeds", "expansions"] and rows[0][4].endswith("seed fail %")
    assert [r[0] for r in rows[1:]] == [*EXPECTED_ORDER, "all"]
    lc2 = rows[2]
    assert lc2[2:4] == ["3", "0"] and lc2[4] == "33.3" and lc2[5] == "-"
    assert _run(tests_file, tmp_path, "-c", KEYWORDS, "--markdown") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("| LC | name |") and lines[1].startswith("| --- | --- | ---: |")
    assert len(lines) == 2 + len(EXPECTED_ORDER) + 1


def test_several_classifiers_share_one_table(tests_file, tmp_path, capsys):
    assert _run(tests_file, tmp_path, "-c", KEYWORDS, "-c", KEYWORDS, "--csv") == 0
    header = next(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert len(header) == 4 + 2 * 3
    assert len({h.split(" ")[0] for h in header[4:]}) == 2  # the second one is told apart (-2)


def test_markdown_escapes_pipes():
    text = markdown_table(["a", "b"], [["x|y", "1"]])
    assert "x\\|y" in text


def test_a_classifier_failing_mid_run_leaves_the_others_reported_and_exits_1(tests_file, tmp_path, capsys,
                                                                            monkeypatch):
    from linguagym.capabilities import run as run_module
    from linguagym.capabilities.classifiers.cache import CachedClassifier

    real = run_module.open_classifier
    state = {"broken": True}

    def fake_open(spec, options):
        if spec != "flaky":
            return real(spec, options)
        inner = FlakyClassifier(fail_on=2, name="flaky") if state["broken"] else KeywordClassifier(name="flaky")
        return CachedClassifier(inner, cache_dir=options.cache_dir, chunk_size=5)

    monkeypatch.setattr(run_module, "open_classifier", fake_open)
    assert _run(tests_file, tmp_path, "-c", "flaky", "-c", KEYWORDS) == 1
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    assert "1 of 2 classifiers failed" in err and "failed after 5 of 16 predictions" in err
    assert "went away" in err and "run the same command again" in err
    assert "LC1" in out  # the table of the one that finished
    out_dir = tmp_path / "out"
    record = json.loads((out_dir / "results.json").read_text(encoding="utf-8"))
    status = {c["label"]: (c["status"], c["predictions_kept"]) for c in record["classifiers"]}
    assert status["flaky"] == ("failed", 5) and status[KEYWORDS][0] == "ok"
    assert (out_dir / record["classifiers"][1]["directory"] / "tests.csv").is_file()
    assert "flaky failed" in (out_dir / "report.html").read_text(encoding="utf-8")

    state["broken"] = False  # mended: the run resumes from the five cached predictions
    assert _run(tests_file, tmp_path, "-c", "flaky") == 0
    _, err = capsys.readouterr()
    assert "11 texts to predict" in err


@pytest.mark.parametrize("argv, message", [
    (["-c", KEYWORDS, "missing.json"], "does not exist"),
    (["-c", "no-such:classifier:x"], "classifier"),
    (["-c", KEYWORDS, "--batch-size", "0"], "--batch-size must be 1 or more"),
    (["-c", KEYWORDS, "--timeout", "0"], "--timeout"),
    (["-c", KEYWORDS, "--label-map", "0=happy"], "bad label map entry"),
    (["-c", "python:tests.capabilities.lct_fakes:nothing_here"], "has no attribute"),
])
def test_user_errors_print_a_message_not_a_traceback(tests_file, tmp_path, capsys, argv, message):
    if "missing.json" in argv:
        argv = [a if a != "missing.json" else str(tmp_path / "missing.json") for a in argv]
        code = _main(["test", *argv, "-o", str(tmp_path / "out")])
    else:
        code = _run(tests_file, tmp_path, *argv)
    err = capsys.readouterr().err
    assert code == 1 and message in err and "Traceback" not in err
    assert not (tmp_path / "out" / "results.json").exists()


def test_an_invalid_test_file_is_a_user_error(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "something else"}), encoding="utf-8")
    assert _run(bad, tmp_path, "-c", KEYWORDS) == 1
    assert "not a valid capability-test file" in capsys.readouterr().err


def test_vader_end_to_end(tests_file, tmp_path, capsys):
    pytest.importorskip("vaderSentiment")
    assert _run(tests_file, tmp_path, "-c", "vader") == 0
    record = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    (entry,) = record["classifiers"]
    assert entry["status"] == "ok" and entry["name"] == "vader"
    rows = list(csv.DictReader((tmp_path / "out" / entry["directory"] / "tests.csv").open(encoding="utf-8")))
    assert {r["predicted"] for r in rows} <= {"negative", "neutral", "positive"} and len(rows) == 16


def test_the_main_cli_runs_lct_test(tests_file, tmp_path, capsys):
    from linguagym.cli import main

    code = main(["lct", "test", str(tests_file), "-c", KEYWORDS, "-o", str(tmp_path / "out"),
                 "--cache-dir", str(tmp_path / "cache"), "--csv"])
    out = capsys.readouterr().out
    assert code == 0 and "LC10" in out
    assert json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))["settings"]["classifiers"] \
        == [KEYWORDS]
