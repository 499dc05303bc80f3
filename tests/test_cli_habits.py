"""Command-line habits of the Unix world: ``-`` for stdout in --csv and --markdown."""

from __future__ import annotations

import csv
import io

from linguagym.cli import main

PAPER_ROWS = "model,suite,item,correct\n" + "".join(
    f"gpt2,{suite},{item},{'True' if (item + offset) % 3 else 'False'}\n"
    for offset, suite in enumerate(["suite_a", "suite_b"]) for item in range(1, 7))


def _items(tmp_path):
    path = tmp_path / "items.csv"
    path.write_text(PAPER_ROWS, encoding="utf-8")
    return path


def test_csv_dash_writes_the_csv_alone_on_stdout(tmp_path, capsys):
    assert main(["score", str(_items(tmp_path)), "--policy", "first", "--bootstrap", "0", "--csv", "-"]) == 0
    out, err = capsys.readouterr()
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows and set(rows[0]) == {"collection", "policy", "model", "kind", "name", "accuracy", "ci_low", "ci_high",
                                      "items"}
    by_name = {row["name"]: row for row in rows if row["kind"] == "suite"}
    # suite_a: items 1..6 with offset 0 -> correct unless item % 3 == 0 -> 4 of 6
    assert float(by_name["suite_a"]["accuracy"]) == round(4 / 6, 6) and by_name["suite_a"]["items"] == "6"
    assert not (tmp_path / "-").exists() and not list(tmp_path.glob("-*"))
    assert "wrote" not in out and "─" not in out  # no drawn table mixed into the CSV


def test_markdown_dash_writes_markdown_on_stdout(tmp_path, capsys):
    assert main(["score", str(_items(tmp_path)), "--policy", "first", "--bootstrap", "0", "--markdown", "-"]) == 0
    out, _ = capsys.readouterr()
    lines = out.strip().splitlines()
    assert lines[0].startswith("| | gpt2") and lines[1].startswith("| --- |")
    assert not (tmp_path / "-").exists()


def test_both_on_stdout_is_refused_before_any_work(tmp_path, capsys):
    assert main(["score", str(_items(tmp_path)), "--csv", "-", "--markdown", "-"]) == 1
    assert "both ask for stdout" in capsys.readouterr().err


def test_no_color_drops_bold_too(monkeypatch):
    from linguagym.cli.output import console

    def rendered() -> str:
        out = console()
        with out.capture() as captured:
            out.print("[bold]plain[/] [red]text[/]")
        return captured.get()

    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert "\x1b[1m" in rendered()  # the control: styles are drawn where colour is on
    monkeypatch.setenv("NO_COLOR", "1")
    assert rendered() == "plain text\n"


def test_users_takes_the_server_options_after_the_subcommand_too(tmp_path, capsys):
    import pytest

    pytest.importorskip("sqlalchemy")
    data, other = tmp_path / "d", tmp_path / "other"
    secret = tmp_path / "pw"
    secret.write_text("correct horse\n", encoding="utf-8")
    assert main(["users", "add", "carol", "--admin", "--data-dir", str(data), "--password-file", str(secret)]) == 0
    assert main(["users", "--data-dir", str(data), "add", "dan", "--password-file", str(secret)]) == 0
    # given before the subcommand and not after, the group's value must survive the subcommand's parsing
    assert main(["users", "--data-dir", str(data), "list"]) == 0
    listed = capsys.readouterr().out
    assert "carol" in listed and "dan" in listed
    assert main(["users", "list", "--data-dir", str(other)]) == 0
    assert "no users" in capsys.readouterr().out


def test_exit_statuses_tell_a_bug_from_a_usage_error_and_a_users_error(tmp_path, capsys, monkeypatch):
    import pytest

    def broken():
        raise RuntimeError("a bug")

    monkeypatch.setattr("linguagym.cli.suites.example_suite_paths", broken)
    assert main(["examples"]) == 70  # sysexits' EX_SOFTWARE: a bug of ours
    assert "internal error: RuntimeError: a bug" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        main(["run", "--no-such-option"])
    assert usage.value.code == 2  # argparse's usage error
    assert main(["show", str(tmp_path / "missing.json")]) == 1  # the user's error


def test_the_help_of_commands_that_need_an_extra_names_it():
    import subprocess
    import sys

    for command, extra in ((["serve"], "linguagym[web]"), (["lct", "generate"], "linguagym[lct]")):
        shown = subprocess.run([sys.executable, "-m", "linguagym", *command, "--help"], capture_output=True,
                               text=True, timeout=120)
        assert shown.returncode == 0 and extra in " ".join(shown.stdout.split()), (command, shown.stdout[-500:])


def test_library_warnings_name_settings_as_the_commands_options():
    import logging

    from linguagym.cli.entry import _LevelPrefix, build_parser, option_names

    argv = ["lct", "generate", "--lc", "LC1"]
    formatter = _LevelPrefix(option_names(build_parser("lct"), argv))
    message = "no treebank: `reference` induced chooses the induced grammar; `nothing_known` stays"
    record = logging.LogRecord("linguagym", logging.WARNING, __file__, 1, message, (), None)
    assert formatter.format(record) == ("warning: no treebank: --reference induced chooses the induced grammar; "
                                        "`nothing_known` stays")
