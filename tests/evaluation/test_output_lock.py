"""One run at a time in an output folder (issue 43): a second run into a folder another run holds is refused at
once; temporaries that killed runs left are removed; a run stopped after replacing a model folder leaves no report
that describes the old folders."""

from __future__ import annotations

import pytest

from linguagym.errors import ConfigurationError
from linguagym.evaluation import model_runs
from linguagym.evaluation.model_runs import run_models
from linguagym.evaluation.run import RunSettings
from linguagym.evaluation.runfolder.lock import LOCK_NAME, output_lock
from linguagym.suites import example_suite_paths
from tests.evaluation.fakes import WordScorer

PATHS = [str(p) for p in example_suite_paths()]


def _run(paths, out, **kwargs):
    return run_models(paths, [RunSettings(model="fake")], output=out, scorers=lambda settings: WordScorer(),
                      **kwargs)


def test_a_second_run_into_a_held_folder_is_refused_naming_the_first(tmp_path):
    out = tmp_path / "out"
    with output_lock(out):
        with pytest.raises(ConfigurationError, match="another linguagym run is writing into") as caught:
            _run(PATHS, out)
        assert "pid" in caught.value.message and "-o DIR" in caught.value.hint
        assert not (out / "fake").exists()  # it wrote nothing
    done = _run(PATHS, out)  # once the first lets go, a run goes ahead
    assert not done.failed and (out / "fake" / "run.json").is_file() and not (out / LOCK_NAME).exists()


def test_the_command_line_refuses_the_second_run_with_exit_1(tmp_path, capsys, monkeypatch):
    from linguagym.cli import main

    out = tmp_path / "out"
    with output_lock(out):
        assert main(["run", "--model", "fake.tsv", "-o", str(out), *PATHS]) == 1
    assert "another linguagym run is writing into" in capsys.readouterr().err


def test_temporaries_left_by_killed_runs_are_removed(tmp_path):
    out = tmp_path / "out"
    (out / ".fake.abc123.tmp" / "suites").mkdir(parents=True)  # a model folder half-written when killed
    (out / ".fake.def456.old").mkdir()  # an old folder set aside and never deleted
    (out / ".report.html.x1.tmp").write_text("half a page", encoding="utf-8")
    (out / "notes.txt").write_text("the user's own", encoding="utf-8")
    _run(PATHS, out)
    left = sorted(p.name for p in out.iterdir())
    assert left == sorted(["fake", "notes.txt", "plots", "report.html"])


def test_a_run_stopped_after_its_first_folder_leaves_no_report_of_the_old_folders(tmp_path, monkeypatch):
    out = tmp_path / "out"
    _run(PATHS, out)  # three suites, and a report of three
    assert "npz_comma" in (out / "report.html").read_text(encoding="utf-8")

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # stopped between its model folder and its report

    monkeypatch.setattr(model_runs, "write_report", killed)
    with pytest.raises(KeyboardInterrupt):
        _run(PATHS[:1], out)
    assert sorted(p.name for p in (out / "fake" / "suites").iterdir()) == ["agreement_across_pp.json"]
    assert not (out / "report.html").exists() and not (out / "plots").exists()
