"""Many models in one run without Ray: a models file (comments, paths beside it, checkpoint globs in natural
order), output folders that never collide, and a model that fails while the others are written."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from linguagym.cli import main
from linguagym.errors import ConfigurationError
from linguagym.evaluation.models_file import read_models_file
from linguagym.names import model_labels
from linguagym.suites import example_suite_paths


def test_models_file_reads_comments_paths_and_checkpoint_globs(tmp_path: Path) -> None:
    for step in (10, 2, 1000):
        (tmp_path / "run" / f"checkpoint-{step}").mkdir(parents=True)
    listing = tmp_path / "models.txt"
    listing.write_text("# a training run, every checkpoint\n\nsmollm2-135m\nEleutherAI/pythia-160m@step1000  # hub\n"
                       "run/checkpoint-*\nsmollm2-135m\n", encoding="utf-8")
    run = tmp_path / "run"
    assert read_models_file(listing) == [
        "smollm2-135m", "EleutherAI/pythia-160m@step1000",
        str(run / "checkpoint-2"), str(run / "checkpoint-10"), str(run / "checkpoint-1000"),
    ]


@pytest.mark.parametrize(("text", "message"), [
    ("# nothing but a comment\n\n", "lists no models"),
    ("run/step-*\n", "models.txt:1: 'run/step-*' matches no path"),
])
def test_models_file_errors_say_where(tmp_path: Path, text: str, message: str) -> None:
    listing = tmp_path / "models.txt"
    listing.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigurationError, match=re.escape(message)):
        read_models_file(listing)
    with pytest.raises(ConfigurationError, match="does not exist"):
        read_models_file(tmp_path / "absent.txt")


def test_models_with_the_same_short_name_keep_distinct_labels(tmp_path: Path) -> None:
    a, b = tmp_path / "run-a" / "checkpoint-100", tmp_path / "run-b" / "checkpoint-100"
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    labels = model_labels([str(a), str(b), "smollm2-135m", str(tmp_path / "run-a")])
    assert labels["smollm2-135m"] == "smollm2-135m" and labels[str(tmp_path / "run-a")] == "run-a"
    assert labels[str(a)] == str(a) and labels[str(b)] == str(b)  # full paths: never merged in a table


def test_two_checkpoints_with_one_name_are_written_and_tabled_apart(tiny_lm_dir: Path, tmp_path: Path) -> None:
    first = shutil.copytree(tiny_lm_dir, tmp_path / "run-a" / "checkpoint-100")
    second = shutil.copytree(tiny_lm_dir, tmp_path / "run-b" / "checkpoint-100")
    out = tmp_path / "out"
    assert main(["run", *map(str, example_suite_paths()), "--model", str(first), "--model", str(second),
                 "--device", "cpu", "--cache-dir", str(tmp_path / "cache"), "-o", str(out), "--no-report"]) == 0
    records = [json.loads(p.read_text()) for p in sorted(out.glob("*/run.json"))]
    assert sorted(r["label"] for r in records) == sorted([str(first), str(second)])
    items = [(out / p.parent.name / "items.csv").read_text().splitlines()[1] for p in sorted(out.glob("*/run.json"))]
    assert items[0].split(",")[0] != items[1].split(",")[0]  # each table row names its own checkpoint


def test_a_model_that_fails_does_not_stop_the_others(tiny_lm_dir: Path, tmp_path: Path, capsys) -> None:
    broken = shutil.copytree(tiny_lm_dir, tmp_path / "broken")
    for weights in broken.glob("*.safetensors"):
        weights.unlink()
    out = tmp_path / "out"
    code = main(["run", *map(str, example_suite_paths()), "--model", str(broken), "--model", str(tiny_lm_dir),
                 "--device", "cpu", "--cache-dir", str(tmp_path / "cache"), "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and "1 of 2 models failed" in err and "could not load model" in err
    assert (out / "report.html").is_file() and (out / tiny_lm_dir.name / "run.json").is_file()
    assert not (out / "broken").exists()  # nothing half-written for the model that failed
    assert json.loads((out / tiny_lm_dir.name / "run.json").read_text())["executor"] == {"name": "local"}


def test_each_model_is_let_go_before_the_next_one_runs(tiny_lm_dir: Path, tmp_path: Path) -> None:
    import weakref

    from linguagym.evaluation.model_runs import run_models
    from linguagym.evaluation.run import RunSettings

    made = []
    from linguagym.evaluation.run import settings_scorer as original

    def recording(settings):
        scorer = original(settings)
        made.append(weakref.ref(scorer))
        return scorer

    second = shutil.copytree(tiny_lm_dir, tmp_path / "second")
    alive_when_done = []
    base = RunSettings(device="cpu", cache_dir=str(tmp_path / "cache"))
    outcomes = run_models(example_suite_paths(), [RunSettings(**{**base.__dict__, "model": m})
                                                  for m in (str(tiny_lm_dir), str(second))], scorers=recording,
                          finished=lambda settings, outcome: alive_when_done.append([r() is not None for r in made]))
    assert all(not isinstance(o, Exception) for o in outcomes)
    assert [o.label for o in outcomes] == [tiny_lm_dir.name, "second"]  # the API labels results as the CLI does
    assert alive_when_done == [[False, True], [False, False]]  # the first model is gone before the second runs


def test_a_cancelled_run_keeps_the_models_written_before_it_stopped(tiny_lm_dir: Path, tmp_path: Path) -> None:
    from linguagym.errors import Cancelled
    from linguagym.evaluation.model_runs import run_models
    from linguagym.evaluation.run import RunSettings

    second = shutil.copytree(tiny_lm_dir, tmp_path / "second")
    labels: list[str] = []

    def progress(label: str, total: int, unit: str):
        labels.append(label)
        return None

    out = tmp_path / "out"
    with pytest.raises(Cancelled):
        run_models(example_suite_paths(), [RunSettings(model=str(m), device="cpu", cache_dir=str(tmp_path / "c"))
                                           for m in (tiny_lm_dir, second)],
                   output=out, progress=progress, cancelled=lambda: bool(list(out.glob("*/run.json"))))
    assert f"model 1 of 2: {tiny_lm_dir.name}" in labels  # (after its loading stages)
    assert not any(label.startswith("model 2 of 2") for label in labels)  # the second model never began
    assert [p.parent.name for p in out.glob("*/run.json")] == [tiny_lm_dir.name]  # the first is kept, whole
    assert not (out / "report.html").exists()


def test_without_an_output_folder_the_summary_comes_from_memory_with_the_same_numbers(tmp_path: Path) -> None:
    from linguagym.evaluation.model_runs import run_models
    from linguagym.evaluation.run import RunSettings
    from tests.evaluation.fakes import WordScorer

    def scorers(settings):
        return WordScorer(lambda word, index: float(len(word) * (2 if settings.model == "b" else 1) + index % 3))

    models = [RunSettings(model=name) for name in ("a", "b")]
    in_memory = run_models(example_suite_paths(), models, scorers=scorers)
    written = run_models(example_suite_paths(), models, scorers=scorers, output=tmp_path / "out")
    assert in_memory.report is None and written.report == tmp_path / "out" / "report.html"
    assert [m.model for m in in_memory.summary.models] == ["a", "b"]
    assert in_memory.summary == written.summary  # accuracies, scores and bootstrap intervals alike
    assert run_models(example_suite_paths(), models, scorers=scorers, summary=None).summary is None
