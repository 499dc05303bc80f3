import json
import os
import subprocess
import sys
import threading

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


def test_validate_warns_about_a_sentence_no_model_can_score(write_suite, capsys):
    """validate accepted a 10 MB region that run refused (2,000,001 tokens; issue 43): now it says so, as a warning
    (the file is valid; a model's context decides)."""
    from linguagym.suites.limits import LONGEST_CONTEXT

    data = minimal_suite()
    data["items"][1]["conditions"][1]["regions"][2]["content"] = "word " * LONGEST_CONTEXT + "today."
    path = write_suite(data)
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert (f"warning item 2, condition 'mismatch': the sentence has {LONGEST_CONTEXT + 4:,} words, so at least as "
            "many tokens") in out
    assert out.count("warning") == 1  # the other sentences fit
    assert main(["validate", str(write_suite(minimal_suite(), "short.json"))]) == 0
    assert "warning" not in capsys.readouterr().out


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


def test_validate_reports_every_hostile_file_in_a_directory_and_goes_on(tmp_path, capsys):
    from tests.suites.hostile_suites import CASES

    folder = tmp_path / "suites"
    folder.mkdir()
    for name, text, _, _ in CASES:
        (folder / f"{name}.json").write_text(text, encoding="utf-8")
    (folder / "good.json").write_text(json.dumps(minimal_suite()), encoding="utf-8")
    os.mkfifo(folder / "pipe.json")  # reading it would wait for a writer forever
    (folder / "folder.json").mkdir()
    latin1 = json.dumps(minimal_suite()).replace("The boy", "Der J\xfcnge").encode("latin-1")
    (folder / "latin1.json").write_bytes(latin1)
    # should reading the FIFO wait for a writer (the bug), be its writer after a while so that the test ends
    unblock = threading.Timer(30, lambda: open(folder / "pipe.json", "wb").close())
    unblock.daemon = True
    unblock.start()
    try:
        assert main(["validate", str(folder)]) == 1
    finally:
        unblock.cancel()
    out, err = capsys.readouterr()
    assert "internal error" not in out + err
    for name, _, location, message in CASES:
        line = next((line for line in err.splitlines() if line.strip().startswith(f"{folder / name}.json:")), "")
        assert line.strip().startswith(f"{folder / name}.json:{location}") and message in line, (name, line)
    assert f"{folder / 'pipe.json'}: is a FIFO (named pipe), not a suite file" in err
    assert f"{folder / 'folder.json'}: is a directory, not a suite file" in err
    assert f"{folder / 'latin1.json'}:line 1, byte " in err and "not UTF-8 text" in err
    assert f"1 of {len(CASES) + 4} suites valid" in err
    assert f"{folder / 'good.json'}: tiny" in out


ZOO_HEADER = "sentence_id\ttoken_id\ttoken\tsurprisal\n"


@pytest.mark.parametrize("case", ["float-region-number", "long-suite-name", "surrogate-in-name", "1e999"])
def test_run_refuses_what_validate_refuses_before_any_model_is_loaded(tmp_path, capsys, case):
    from tests.suites.hostile_suites import CASES

    _, text, location, message = next(c for c in CASES if c[0] == case)
    suite = tmp_path / "s.json"
    suite.write_text(text, encoding="utf-8")
    zoo = tmp_path / "zoo.tsv"
    zoo.write_text(ZOO_HEADER, encoding="utf-8")
    assert main(["run", "--model", str(zoo), "--bootstrap", "0", "-o", str(tmp_path / "out"), str(suite)]) == 1
    err = capsys.readouterr().err
    assert f"{suite}:{location}: " in err and message in err
    assert "internal error" not in err and "models failed" not in err


@pytest.mark.parametrize(("value", "message"), [("nan", "surprisal 'nan' is not a finite number"),
                                                ("-2.5", "surprisal -2.5 is negative")])
def test_run_refuses_a_surprisal_file_with_bad_numbers_naming_the_line(tmp_path, capsys, value, message):
    suite = tmp_path / "s.json"
    suite.write_text(json.dumps(minimal_suite()), encoding="utf-8")
    zoo = tmp_path / "zoo.tsv"
    rows = [f"1\t{i}\t{token}\t1.0" for i, token in enumerate(["The", "boy", "swims", "today."], start=1)]
    rows += [f"2\t{i}\t{token}\t{value if i == 3 else 1.0}"
             for i, token in enumerate(["The", "boy", "swim", "today."], start=1)]
    zoo.write_text(ZOO_HEADER + "\n".join(rows) + "\n", encoding="utf-8")
    assert main(["run", "--model", str(zoo), "--bootstrap", "0", "-o", str(tmp_path / "out"), str(suite)]) == 1
    err = capsys.readouterr().err
    assert f"{zoo}:8: {message}" in err and "internal error" not in err


def test_show_sends_no_control_characters_or_markup_from_a_suite_to_the_terminal(write_suite, capsys):
    data = minimal_suite(predictions=[{"type": "formula", "formula": "(2;%[red]m[/red]%) > (2;%mismatch%)"}])
    for item in data["items"]:
        item["conditions"][0]["condition_name"] = "[red]m[/red]"
    data["items"][0]["conditions"][0]["regions"][1]["content"] = "sw\x1b[31mims\x07 \x9b2J \u202eevil\r\x08 [bold]x"
    data["region_meta"]["3"] = "[/]rest"
    assert main(["show", str(write_suite(data))]) == 0
    out = capsys.readouterr().out
    for char in "\x1b\x07\x9b\u202e\r\x08":
        assert char not in out, repr(char)
    for shown in ("sw\\x1b[31mims\\x07 \\x9b2J \\u202eevil\\x0d\\x08 [bold]x", "[red]m[/red]", "[/]rest",
                  "(2;%[red]m[/red]%) > (2;%mismatch%)"):
        assert shown in out, shown


def test_messages_show_control_characters_and_undecodable_bytes_of_file_names_escaped(tmp_path, capsys):
    hostile = tmp_path / "e\x1b[31mvil.json"
    hostile.write_text("[1]", encoding="utf-8")
    undecodable = tmp_path / os.fsdecode(b"bad\xff.json")
    undecodable.write_text("[1]", encoding="utf-8")
    assert main(["validate", str(hostile), str(undecodable)]) == 1
    err = capsys.readouterr().err
    assert "e\\x1b[31mvil.json: the top level is an array" in err and "\x1b" not in err
    assert "bad\\udcff.json: the top level is an array" in err
    assert "internal error" not in err


def test_validate_refuses_a_suite_whose_sentences_are_all_empty(write_suite, capsys):
    data = minimal_suite()
    for item in data["items"]:
        for condition in item["conditions"]:
            for region in condition["regions"]:
                region["content"] = " "
    assert main(["validate", str(write_suite(data, "blank.json"))]) == 1
    err = capsys.readouterr().err
    assert "blank.json:items: every region of every condition is empty, so there is no sentence to score" in err


# ------------------------------------------------------------------ the prediction language (#37)

NEW_SYNTAX = minimal_suite(predictions=[
    {"type": "formula", "formula": "[(2;%mismatch%)-(2;%match%)]>=0.5*(1..3;%match%)", "atol": 0.01}])


def test_validate_warns_that_peer_tools_could_not_read_the_new_syntax(write_suite, capsys):
    assert main(["validate", str(write_suite(NEW_SYNTAX))]) == 0  # a warning, not a failure
    out = capsys.readouterr().out
    assert "predictions[0]: uses '>=', '*', a region range 'N..M': syntaxgym-core and the syntaxgym.org website " \
           "could not read this suite" in " ".join(out.split())
    assert "has its own atol" in out
    assert main(["validate", "--strict", str(write_suite(NEW_SYNTAX))]) == 1  # ('[ ]' was normalised)
    capsys.readouterr()
    assert main(["validate", str(write_suite(minimal_suite(), "old.json"))]) == 0
    assert "syntaxgym-core" not in capsys.readouterr().out


def test_upgrade_writes_the_new_syntax_canonically_and_notes_peer_tools(write_suite, tmp_path):
    out = tmp_path / "up.json"
    result = run_cli("upgrade", write_suite(NEW_SYNTAX), "-o", out)
    assert result.returncode == 0, result.stderr
    said = " ".join(result.stderr.split())
    assert "note" in said and "syntaxgym-core and the syntaxgym.org website could not read this suite" in said
    assert json.loads(out.read_text())["predictions"] == [
        {"type": "formula", "formula": "(2;%mismatch%) - (2;%match%) >= 0.5 * (1..3;%match%)", "atol": 0.01}]


def test_run_takes_a_default_tolerance():
    from linguagym.cli.entry import build_parser
    from linguagym.cli.run import _settings

    args = build_parser().parse_args(["run", "--atol", "0.05", "--rtol", "0", "suite.json"])
    settings = _settings(args)
    assert (settings.atol, settings.rtol) == (0.05, 0.0)
    default = _settings(build_parser().parse_args(["run", "suite.json"]))
    assert (default.atol, default.rtol) == (1e-3, 1e-5)


@pytest.mark.parametrize("value", ["-0.1", "inf", "a lot"])
def test_run_refuses_a_tolerance_that_is_no_number_of_at_least_zero(value):
    result = run_cli("run", "--atol", value, "suite.json")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "--atol" in result.stderr and ("at least 0" in result.stderr or "is not a number" in result.stderr)
