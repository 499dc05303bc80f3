import json
import subprocess
import sys

import pytest

from linguagym.cli import main
from linguagym.suites import example_suite_paths, read_suite
from tests.conftest import MASTER_SUITES_DIR, SUITES_DIR, minimal_suite


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "linguagym.cli", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def test_validate_real_suites_directory(shared_data, capsys):
    assert main(["validate", "-q", str(SUITES_DIR), str(MASTER_SUITES_DIR)]) == 0
    assert "68 of 68 suites valid" in capsys.readouterr().out


def test_validate_reports_every_bad_file_and_exits_1(write_suite, tmp_path):
    good = write_suite(minimal_suite(), "good.json")
    bad = write_suite("[1]", "bad.json")
    data = minimal_suite()
    del data["meta"]["name"]
    nameless = write_suite(data, "nameless.json")
    result = run_cli("validate", good, bad, nameless, tmp_path / "missing.json")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "bad.json: the top level is an array" in result.stderr
    assert "nameless.json:meta.name: missing required key 'name'" in result.stderr
    assert "missing.json: no such file" in result.stderr
    assert "1 of 4 suites valid" in result.stderr
    assert "good.json: tiny" in result.stdout


def test_validate_strict_fails_on_warnings(write_suite):
    data = minimal_suite()
    data["items"][0]["conditions"][0]["regions"][0]["content"] = " The boy"
    path = write_suite(data)
    assert main(["validate", str(path)]) == 0
    assert main(["validate", "--strict", str(path)]) == 1


def test_upgrade_writes_canonical_form(shared_data, tmp_path):
    out = tmp_path / "fgd.json"
    result = run_cli("upgrade", MASTER_SUITES_DIR / "fgd_hierarchy.json", "-o", out)
    assert result.returncode == 0, result.stderr
    assert "read '[ ]' as '( )'" in result.stderr
    written = json.loads(out.read_text())
    assert written["predictions"][1]["formula"] == \
        "(9;%what_nogap%) = (9;%that_nogap%) & (6;%what_subjgap%) = (6;%that_subjgap%)"
    assert read_suite(out).suite == read_suite(MASTER_SUITES_DIR / "fgd_hierarchy.json").suite


def test_upgrade_of_an_invalid_suite_writes_nothing(write_suite, tmp_path):
    data = minimal_suite(predictions=[{"type": "formula", "formula": "(2;%match%) <"}])
    out = tmp_path / "out.json"
    result = run_cli("upgrade", write_suite(data), "-o", out)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "predictions[0].formula" in result.stderr
    assert not out.exists() and list(tmp_path.glob(".out.json*")) == []


def test_show_prints_the_grid():
    path = [p for p in example_suite_paths() if p.name == "npz_comma.json"][0]
    result = run_cli("show", path, "--items", "1")
    assert result.returncode == 0
    out = result.stdout
    for text in ("npz_comma", "main_verb", "ambig_nocomma", "unambig_comma", "scratched", "sneezed",
                 "off the muzzle."):
        assert text in out
    assert "more items" in out
    assert "the band" not in out  # item 2 is not shown with --items 1


def test_demo_runs_on_the_bundled_examples():
    result = run_cli("demo")
    assert result.returncode == 0, result.stderr
    for path in example_suite_paths():
        assert read_suite(path).suite.name in result.stdout


@pytest.mark.parametrize("args", [["--help"], ["validate", "--help"], []])
def test_help(args):
    result = run_cli(*args)
    assert result.returncode == 0 and "usage: linguagym" in result.stdout


def test_no_traceback_on_unexpected_directory(tmp_path):
    result = run_cli("show", tmp_path / "nothere.json")
    assert result.returncode == 1 and "no such file" in result.stderr and "Traceback" not in result.stderr
