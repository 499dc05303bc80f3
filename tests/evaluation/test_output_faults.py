"""Run outputs never overwrite, merge, half-write or go stale: models whose folder names collide, suites that
share a name, every output path problem found before scoring, a full disk, an interrupted write, a re-run that
drops suites. Models are fakes (no weights) or lm-zoo TSV files, so each test takes a fraction of a second."""

from __future__ import annotations

import errno
import json
import os
import shutil
from pathlib import Path

import pytest

from linguagym.cli import main
from linguagym.errors import ConfigurationError, OutputError
from linguagym.evaluation import model_runs as models_module
from linguagym.evaluation.model_runs import run_models
from linguagym.evaluation.run import RunSettings, load_suites, suite_texts
from linguagym.suites import example_suite_paths
from tests.evaluation.fakes import WordScorer

SUITES = [str(p) for p in example_suite_paths()]
FAST = ["--bootstrap", "0"]


class CachedWordScorer(WordScorer):
    """A fake whose run records cache statistics, as a model behind the score cache does."""

    hits, misses, path = 0, 0, "cache.sqlite"


@pytest.fixture
def fake_models(monkeypatch) -> list[WordScorer]:
    """Every model of a run is a fake (no weights); the list holds each one made, to see whether any scored."""
    made: list[WordScorer] = []

    def fake(settings: RunSettings) -> WordScorer:
        made.append(CachedWordScorer(lambda word, index: float(len(word) + settings.batch_size)))
        return made[-1]

    monkeypatch.setattr(models_module, "settings_scorer", fake)  # what run_models loads each model with
    return made


def scored(made: list[WordScorer]) -> bool:
    return any(scorer.calls for scorer in made)


def run_cli(capsys, *args: str | Path) -> tuple[int, str]:
    code = main(["run", *map(str, args), *FAST])
    err = capsys.readouterr().err
    assert "internal error" not in err and "Traceback" not in err
    return code, err


def write_tsv(path: Path, offset: float = 0.0) -> Path:
    """An lm-zoo TSV of the example suites' sentences (a precomputed model)."""
    from linguagym.scoring.precomputed import write_surprisals_tsv

    texts = suite_texts(load_suites(SUITES)[0], "natural")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_surprisals_tsv(WordScorer(lambda word, index: len(word) + offset).score(texts), path)
    return path


def hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob(".*"))


# ------------------------------------------------------------------------------------ folder names


def test_models_whose_folder_names_collide_are_written_apart(tmp_path: Path, capsys) -> None:
    spaced, underscored = write_tsv(tmp_path / "m" / "a b.tsv"), write_tsv(tmp_path / "m" / "a_b.tsv", offset=1)
    out = tmp_path / "out"
    code, err = run_cli(capsys, *SUITES, "--model", spaced, "--model", underscored, "-o", out)
    assert code == 0, err
    records = {json.loads(p.read_text())["scorer"]["source"]: p.parent for p in out.glob("*/run.json")}
    assert set(records) == {str(spaced), str(underscored)}  # two folders, each holding its own model's run
    labels = {(folder / "items.csv").read_text().splitlines()[1].split(",")[0] for folder in records.values()}
    assert labels == {str(spaced), str(underscored)}  # and two names in the table
    assert len(list((out / "plots").glob("regions_*.svg"))) == 2 * 3  # no plot overwrote another


def test_models_whose_folder_names_differ_only_in_case_are_written_apart(tmp_path: Path, capsys) -> None:
    """Model.tsv and model.tsv would be one folder on a case-insensitive disk (macOS, Windows)."""
    upper, lower = write_tsv(tmp_path / "x" / "Model.tsv"), write_tsv(tmp_path / "y" / "model.tsv", offset=1)
    out = tmp_path / "out"
    code, err = run_cli(capsys, *SUITES, "--model", upper, "--model", lower, "-o", out, "--no-report")
    assert code == 0, err
    folders = [p.parent.name for p in out.glob("*/run.json")]
    assert len(folders) == 2 and len({f.casefold() for f in folders}) == 2


def test_folder_names_are_distinct_deterministic_and_leave_the_report_its_names() -> None:
    from linguagym.names import model_folders

    labels = ["m/a b.tsv", "m/a_b.tsv", "Model", "model", "plots", "report.html", "smollm2-135m"]
    folders = model_folders(labels)
    assert folders == model_folders(reversed(labels))  # whatever the order of the models
    assert len({f.casefold() for f in folders.values()} | {"plots", "report.html"}) == len(labels) + 2
    assert folders["smollm2-135m"] == "smollm2-135m"  # a name that collides with nothing is kept as it is


def test_names_too_long_for_a_file_system_are_shortened(tmp_path: Path, capsys) -> None:
    suite = json.loads(Path(SUITES[0]).read_text())
    suite["meta"]["name"] = "agreement " * 10  # 100 characters, the longest a suite name may be
    long_suite = tmp_path / "long.json"
    long_suite.write_text(json.dumps(suite))
    model = write_tsv(tmp_path / ("m" * 240 + ".tsv"))  # a file name that fits, but not with a suffix
    out = tmp_path / "out"
    code, err = run_cli(capsys, long_suite, "--model", model, "-o", out)
    assert code == 0, err
    names = [p.name for p in out.rglob("*")]
    assert max(len(name.encode()) for name in names) <= 255
    [folder] = [p.parent for p in out.glob("*/run.json")]
    assert folder.name.startswith("m" * 100) and len(list((folder / "suites").glob("agreement_agreement*.json"))) == 1
    assert len(list((out / "plots").glob("regions_mmm*.svg"))) == 1


# ------------------------------------------------------------------------------------------- suites


def test_two_suites_with_one_name_are_refused_before_scoring(tmp_path: Path, capsys, fake_models) -> None:
    other = json.loads(Path(SUITES[0]).read_text())
    other["items"] = other["items"][:2]  # another suite, under the same meta.name
    twin = tmp_path / "twin.json"
    twin.write_text(json.dumps(other))
    code, err = run_cli(capsys, *SUITES, twin, "--model", "fake", "-o", tmp_path / "out")
    assert code == 1 and "two suites are named 'agreement_across_pp'" in err
    assert SUITES[0] in err and str(twin) in err and "meta.name" in err
    assert not scored(fake_models) and not (tmp_path / "out").exists()


def test_the_same_suite_given_twice_is_read_once(tmp_path: Path, capsys, fake_models) -> None:
    copy = shutil.copy(SUITES[0], tmp_path / "copy.json")  # the same bytes in another file: the same suite
    out = tmp_path / "out"
    code, err = run_cli(capsys, *SUITES, SUITES[0], copy, "--model", "fake", "-o", out, "--no-report")
    assert code == 0, err
    rows = (out / "fake" / "items.csv").read_text().splitlines()[1:]
    assert len(rows) == len(set(rows)) == 24  # each item once, not merged with itself
    assert [s["path"] for s in json.loads((out / "fake" / "run.json").read_text())["suites"]] == SUITES


def test_one_model_twice_in_one_run_is_refused(fake_models) -> None:
    with pytest.raises(ConfigurationError, match="'fake' is given twice"):
        run_models(SUITES, [RunSettings(model="fake"), RunSettings(model="fake", batch_size=2)])
    assert not scored(fake_models)


# ---------------------------------------------------------------------- output paths, before scoring


def _file(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("mine\n")


FAULTS = {
    # name: (what to put in the way, extra arguments, what the error says)
    "output is a file": (lambda out: _file(out), [], "is a file, and a folder is written there"),
    "a parent of the output is a file": (lambda out: _file(out.parent), [], "is a file, and a folder"),
    "a file where the model's folder goes": (lambda out: _file(out / "fake"), [], "fake is a file"),
    "a folder that is not a run's where the model's folder goes": (
        lambda out: _file(out / "fake" / "notes.txt"), [], "is not a linguagym run folder"),
    "report.html is a folder": (lambda out: (out / "report.html").mkdir(parents=True), [], "is a folder, and a file"),
    "plots is a file": (lambda out: _file(out / "plots"), [], "plots is a file"),
    "plots holds other files": (lambda out: _file(out / "plots" / "figure.png"), [], "figure.png"),
    "--csv is a folder": (lambda out: (out.parent / "table").mkdir(parents=True), ["--csv", "{parent}/table"],
                          "is a folder"),
    "--markdown under a file": (lambda out: _file(out.parent / "notes"), ["--markdown", "{parent}/notes/t.md"],
                                "is a file"),
    "a name over 255 bytes": (lambda out: None, ["-o", "{parent}/" + "o" * 300], "is 300 bytes long"),
}


@pytest.mark.parametrize("fault", FAULTS)
def test_output_problems_are_clear_errors_before_scoring(fault: str, tmp_path: Path, capsys, fake_models) -> None:
    arrange, extra, message = FAULTS[fault]
    out = tmp_path / "parent" / "out"
    arrange(out)
    before = sorted(p for p in tmp_path.rglob("*"))
    code, err = run_cli(capsys, *SUITES, "--model", "fake", "-o", out, *(a.format(parent=out.parent) for a in extra))
    assert code == 1 and message in err and "hint:" in err
    assert not scored(fake_models)  # found before any work
    assert sorted(p for p in tmp_path.rglob("*")) == before  # and nothing was touched


def test_an_output_folder_that_cannot_be_written_is_a_clear_error_before_scoring(
        tmp_path: Path, capsys, fake_models, monkeypatch) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    make_folder = os.mkdir

    def mkdir(path, mode=0o777, **kwargs):  # as the OS would answer, also where chmod does not bite (root)
        if Path(path).parent == locked:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return make_folder(path, mode, **kwargs)

    monkeypatch.setattr(os, "mkdir", mkdir)
    try:
        code, err = run_cli(capsys, *SUITES, "--model", "fake", "-o", locked / "out")
    finally:
        locked.chmod(0o755)
    assert code == 1 and f"could not write {locked}: Permission denied" in err and "hint:" in err
    assert not scored(fake_models)


def test_surprisals_output_problems_are_clear_errors(tmp_path: Path, capsys, monkeypatch) -> None:
    from linguagym.scoring import precomputed, spec

    scorers: list[WordScorer] = []
    monkeypatch.setattr(spec, "load_scorer", lambda *a, **k: scorers.append(WordScorer()) or scorers[-1])
    (tmp_path / "folder.tsv").mkdir()
    assert main(["surprisals", *SUITES, "--model", "fake", "-o", str(tmp_path / "folder.tsv")]) == 1
    err = capsys.readouterr().err
    assert "folder.tsv is a folder, and a file is written there" in err and not scorers

    def full(scored, path):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(precomputed, "write_surprisals_tsv", full)
    assert main(["surprisals", *SUITES, "--model", "fake", "-o", str(tmp_path / "s.tsv")]) == 1
    err = capsys.readouterr().err
    assert f"could not write {tmp_path / 's.tsv'}: No space left on device" in err and "free some space" in err


# ------------------------------------------------------------- a full disk, an interrupted write


def _failing_regions(monkeypatch, error: BaseException) -> None:
    from linguagym.evaluation import outputs

    original = outputs._write_csv

    def write(path, header, rows):
        if path.name == "regions.csv":
            def rows_then_fail():  # half the file is written when the error comes
                yield from list(rows)[:3]
                raise error
            return original(path, header, rows_then_fail())
        return original(path, header, rows)

    monkeypatch.setattr(outputs, "_write_csv", write)


def test_a_full_disk_is_a_clear_error_and_keeps_the_earlier_results(tmp_path: Path, capsys, fake_models,
                                                                     monkeypatch) -> None:
    out = tmp_path / "out"
    assert run_cli(capsys, *SUITES, "--model", "fake", "-o", out)[0] == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    _failing_regions(monkeypatch, OSError(errno.ENOSPC, "No space left on device"))
    code, err = run_cli(capsys, *SUITES, "--model", "fake", "--batch-size", "2", "-o", out)
    assert code == 1 and f"could not write {out / 'fake' / 'regions.csv'}: No space left on device" in err
    assert "free some space" in err and "recomputes nothing" in err  # the scores are cached
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before  # nothing half-written
    assert hidden(tmp_path) == []


def test_a_full_disk_while_writing_the_report_keeps_the_earlier_report(tmp_path: Path, capsys, fake_models,
                                                                       monkeypatch) -> None:
    from linguagym.evaluation import report

    out = tmp_path / "out"
    assert run_cli(capsys, *SUITES, "--model", "fake", "-o", out)[0] == 0
    before = {p: p.read_bytes() for p in (out / "plots").iterdir()} | {out: (out / "report.html").read_bytes()}
    original = report.atomic_write_text

    def write(path, text):
        if Path(path).name == "suite_accuracy.svg":
            raise OSError(errno.ENOSPC, "No space left on device")
        return original(path, text)

    monkeypatch.setattr(report, "atomic_write_text", write)
    code, err = run_cli(capsys, *SUITES, "--model", "fake", "-o", out)
    assert code == 1 and f"could not write {out / 'plots'}: No space left on device" in err
    assert {p: p.read_bytes() for p in (out / "plots").iterdir()} | {out: (out / "report.html").read_bytes()} == before
    assert hidden(tmp_path) == []


def test_an_interrupted_write_leaves_the_earlier_folder_whole(tmp_path: Path, capsys, fake_models,
                                                             monkeypatch) -> None:
    out = tmp_path / "out"
    assert run_cli(capsys, *SUITES, "--model", "fake", "-o", out)[0] == 0
    before = {p: p.read_bytes() for p in (out / "fake").rglob("*") if p.is_file()}
    from linguagym.evaluation import outputs

    original = outputs.atomic_write_text

    def write(path, text):  # stopped with every file but the run record written
        if Path(path).name == "run.json":
            raise KeyboardInterrupt
        return original(path, text)

    monkeypatch.setattr(outputs, "atomic_write_text", write)
    # other numbers this time (the fake's surprisals follow the batch size): a mix of the two would show
    code, _ = run_cli(capsys, *SUITES, "--model", "fake", "--batch-size", "2", "-o", out)
    assert code == 130
    assert {p: p.read_bytes() for p in (out / "fake").rglob("*") if p.is_file()} == before
    assert hidden(tmp_path) == []


# ---------------------------------------------------------------------------- whole folders, no stale files


def test_a_rerun_replaces_folders_whole_and_leaves_no_stale_file(tmp_path: Path, capsys, fake_models) -> None:
    out = tmp_path / "out"
    assert run_cli(capsys, *SUITES, "--model", "fake", "-o", out)[0] == 0
    assert len(list((out / "fake" / "suites").iterdir())) == 3 and len(list((out / "plots").glob("regions_*"))) == 3
    code, err = run_cli(capsys, SUITES[1], "--model", "fake", "-o", out)
    assert code == 0, err
    assert [p.name for p in (out / "fake" / "suites").iterdir()] == ["npi_ever.json"]
    assert [p.name for p in (out / "plots").glob("regions_*")] == ["regions_fake_npi_ever.svg"]
    suites = {line.split(",")[1] for line in (out / "fake" / "items.csv").read_text().splitlines()[1:]}
    assert suites == {"npi_ever"}
    assert hidden(tmp_path) == []


def test_a_folder_is_swapped_in_whole_and_put_back_if_the_swap_fails(tmp_path: Path, monkeypatch) -> None:
    from linguagym import atomic

    target = tmp_path / "folder"
    with atomic.atomic_directory(target) as work:
        assert work.parent == tmp_path and work.name.startswith(".")  # hidden from listings while written
        (work / "old.txt").write_text("old")
    rename = os.rename

    def failing(source, destination):
        if Path(source).suffix == ".tmp" and Path(destination) == target:  # the new folder into place
            raise OSError(errno.EIO, "Input/output error")
        return rename(source, destination)

    monkeypatch.setattr(os, "rename", failing)
    with pytest.raises(OutputError, match="could not write .*folder: Input/output error"), \
            atomic.atomic_directory(target) as work:
        (work / "new.txt").write_text("new")
    assert [p.name for p in target.iterdir()] == ["old.txt"] and hidden(tmp_path) == []


def test_compare_skips_the_hidden_folder_of_a_write_under_way(tmp_path: Path, capsys, fake_models) -> None:
    out = tmp_path / "out"
    assert run_cli(capsys, *SUITES, "--model", "fake", "-o", out, "--no-report")[0] == 0
    from linguagym.evaluation.report import find_runs

    shutil.copytree(out / "fake", out / ".fake.x1y2.old")  # left by a process killed in the middle of a swap
    assert [run.directory.name for run in find_runs([out])] == ["fake"]  # one run, not the same one twice
    assert main(["compare", str(out), *FAST]) == 0
