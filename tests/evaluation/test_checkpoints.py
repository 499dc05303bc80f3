"""Many checkpoints of one model in a row: the next one loads while the current one scores (the same numbers as
one after the other), a checkpoint that cannot load fails alone, a cancelled run loads nothing more, and
checkpoints with the same tokenizer files tokenise and pack their prefix trees once."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

from linguagym.errors import Cancelled, LinguagymError
from linguagym.evaluation import model_runs as models
from linguagym.evaluation.model_runs import run_models
from linguagym.evaluation.prefetch import Prefetcher, prefetch_wanted
from linguagym.evaluation.run import RunResult, RunSettings
from linguagym.scoring.engine.shared_work import sharing_work, tokenizer_key
from linguagym.scoring.huggingface.sources import resolve_source
from linguagym.scoring.protocol import ScoredText, TokenScore
from linguagym.suites import example_suite_paths


@pytest.fixture(scope="module")
def checkpoints(tiny_lm_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Three checkpoints of one tiny model: the same tokenizer and configuration files, other weights."""
    import torch
    from transformers import AutoModelForCausalLM

    root = tmp_path_factory.mktemp("run")
    found = []
    for step in (1, 2, 3):
        directory = shutil.copytree(tiny_lm_dir, root / f"ckpt-{step}")
        model = AutoModelForCausalLM.from_pretrained(directory)
        torch.manual_seed(step)
        for parameter in model.parameters():
            parameter.data.normal_(0.0, 0.2)
        model.save_pretrained(root / "weights")  # only the weights are taken: config.json stays byte for byte
        shutil.copy(root / "weights" / "model.safetensors", directory / "model.safetensors")
        found.append(directory)
    return found


@pytest.fixture(autouse=True)
def one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LINGUAGYM_THREADS", "1")  # the same kernels however busy the machine is


def _settings(paths: list[Path], cache: Path | None = None) -> list[RunSettings]:
    return [RunSettings(model=str(p), device="cpu", cache=cache is not None, cache_dir=str(cache) if cache else None)
            for p in paths]


class RecordingPrefetcher(Prefetcher):
    made: list[RecordingPrefetcher] = []

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        RecordingPrefetcher.made.append(self)


def test_prefetching_gives_the_numbers_of_one_model_after_the_other(checkpoints: list[Path], tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    RecordingPrefetcher.made.clear()
    monkeypatch.setattr(models, "Prefetcher", RecordingPrefetcher)
    ahead = run_models(example_suite_paths(), _settings(checkpoints, tmp_path / "a"), prefetch=True)
    assert RecordingPrefetcher.made[0].loaded_ahead == [1, 2]  # checkpoints 2 and 3 were loaded in the background
    alone = run_models(example_suite_paths(), _settings(checkpoints, tmp_path / "b"), prefetch=False)
    assert len(RecordingPrefetcher.made) == 1  # none without prefetching
    for first, second in zip(ahead, alone, strict=True):
        assert isinstance(first, RunResult) and isinstance(second, RunResult)
        assert first.suites == second.suites  # every region value and prediction, to the last bit
        assert first.scorer == second.scorer
    assert ahead[0].suites != ahead[1].suites  # (the checkpoints do differ)
    # the caches hold the same entries
    for one in ("a", "b"):
        assert len(list((tmp_path / one / "scores").glob("*.sqlite"))) == 3
    again = run_models(example_suite_paths(), _settings(checkpoints, tmp_path / "a"), prefetch=True)
    assert [o.cache["misses"] for o in again] == [0, 0, 0]
    assert RecordingPrefetcher.made[-1].loaded_ahead == []  # a cached checkpoint is never loaded


def test_a_checkpoint_that_cannot_load_fails_alone(checkpoints: list[Path], tmp_path: Path) -> None:
    broken = shutil.copytree(checkpoints[1], tmp_path / "ckpt-broken")
    (broken / "model.safetensors").unlink()
    outcomes = run_models(example_suite_paths(), _settings([checkpoints[0], broken, checkpoints[2]]), prefetch=True)
    assert isinstance(outcomes[0], RunResult) and isinstance(outcomes[2], RunResult)
    assert isinstance(outcomes[1], LinguagymError) and "could not load model" in str(outcomes[1])


class SlowLoadingScorer:
    """A scorer whose weights 'load' in ``warm_up``; records what was loaded and scored."""

    def __init__(self, name: str, log: list[str]) -> None:
        self.name, self.log = name, log

    @property
    def identity(self) -> dict:
        return {"kind": "fake", "model": self.name}

    def warm_up(self) -> None:
        self.log.append(f"load {self.name}")

    def score(self, texts):
        self.log.append(f"score {self.name}")
        return [ScoredText(t, (TokenScore(t, 0, 0, len(t), 1.0, False),)) for t in texts]


def test_a_cancelled_run_loads_nothing_more_and_leaves_no_thread(tmp_path: Path) -> None:
    log: list[str] = []
    settings = [RunSettings(model=name) for name in ("c1", "c2", "c3", "c4")]
    with pytest.raises(Cancelled):
        run_models(example_suite_paths(), settings, prefetch=True,
                   scorers=lambda one: SlowLoadingScorer(one.model, log),
                   cancelled=lambda: "score c1" in log)
    assert log.index("load c1") < log.index("score c1")  # the first model loads before it scores
    assert "load c3" not in log and "load c4" not in log and "score c2" not in log  # c2 at most loaded ahead
    assert not [t for t in threading.enumerate() if t.name.startswith("linguagym-prefetch")]


def test_without_prefetching_each_model_loads_when_it_scores(tmp_path: Path) -> None:
    log: list[str] = []
    run_models(example_suite_paths(), [RunSettings(model=name) for name in ("c1", "c2")], prefetch=False,
               scorers=lambda one: SlowLoadingScorer(one.model, log))
    assert "load c1" not in log and log[0] == "score c1"  # loading is the scorer's own business, as before


def test_checkpoints_with_one_tokenizer_load_it_encode_and_pack_once(checkpoints: list[Path],
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from transformers import AutoTokenizer

    from linguagym.scoring.engine import prefix
    from linguagym.scoring.huggingface import base as hf_base
    from linguagym.scoring.huggingface import causal

    calls = {"encode": 0, "pack": 0, "tokenizer": 0}

    def counting(name, original, count=lambda *args: 1):
        def wrapper(*args, **kwargs):
            calls[name] += count(*args)
            return original(*args, **kwargs)
        return wrapper

    encode_many = counting("encode", hf_base.encode_many, lambda tokenizer, texts: len(texts))  # texts encoded
    monkeypatch.setattr(hf_base, "encode_many", encode_many)
    monkeypatch.setattr(causal, "encode_many", encode_many)
    monkeypatch.setattr(prefix, "pack", counting("pack", prefix.pack))
    monkeypatch.setattr(AutoTokenizer, "from_pretrained", counting("tokenizer", AutoTokenizer.from_pretrained))
    outcomes = run_models(example_suite_paths(), _settings(checkpoints), prefetch=False)
    unique = outcomes[0].unique_sentences
    # one encoding per text for the whole run: not per checkpoint, nor again when scoring after counting
    assert calls["encode"] == unique
    assert calls["pack"] == -(-unique // 256)  # one packing per chunk of 256 texts, shared by the checkpoints
    assert calls["tokenizer"] == 1  # loaded for the first checkpoint, used by all three
    run_models(example_suite_paths(), _settings(checkpoints[:1]), prefetch=False)
    assert calls["tokenizer"] == 2  # nothing is kept from one run to the next


def test_tokenizer_key_follows_the_tokenizer_files(checkpoints: list[Path], tmp_path: Path) -> None:
    keys = [tokenizer_key(resolve_source(str(p), tmp_path)) for p in checkpoints]
    assert keys[0] is not None and len(set(keys)) == 1  # other weights, the same tokenizer
    other = shutil.copytree(checkpoints[0], tmp_path / "other")
    config = other / "tokenizer_config.json"
    config.write_text(config.read_text().replace("}", ', "model_max_length": 7}', 1))
    assert tokenizer_key(resolve_source(str(other), tmp_path)) != keys[0]
    with sharing_work() as shared, sharing_work() as inner:
        assert inner is shared  # nested: one scope


def test_prefetch_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    from linguagym.evaluation import prefetch

    monkeypatch.delenv("LINGUAGYM_PREFETCH", raising=False)
    # on where measured to win (a GPU), off on the CPU
    assert prefetch_wanted(None, ["cpu", "cpu"]) is False and prefetch_wanted(None, ["cpu", "cuda:1"]) is True
    monkeypatch.setattr(prefetch, "ON_BY_DEFAULT", frozenset())
    assert prefetch_wanted(None, ["cpu", "cuda:1"]) is False
    assert prefetch_wanted(True, ["cpu"]) is True and prefetch_wanted(False, ["cuda"]) is False
    monkeypatch.setenv("LINGUAGYM_PREFETCH", "1")
    assert prefetch_wanted(None, ["cpu"]) is True and prefetch_wanted(False, ["cpu"]) is False
    monkeypatch.setenv("LINGUAGYM_PREFETCH", "0")
    assert prefetch_wanted(None) is False and prefetch_wanted(True) is True
    monkeypatch.setenv("LINGUAGYM_PREFETCH", "maybe")
    with pytest.raises(LinguagymError, match="LINGUAGYM_PREFETCH"):
        prefetch_wanted(None)


def test_checkpoint_files_are_hashed_side_by_side_once(checkpoints: list[Path], tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from linguagym import hashing

    hashed: list[tuple[str, str]] = []  # (file, thread)
    original = hashing.sha256_file
    started = threading.Barrier(2, timeout=10)  # two hashes under way at once, or the test waits and fails

    def recording(path: Path) -> str:
        if path.name == "model.safetensors" and threading.current_thread() is not threading.main_thread():
            started.wait()
        hashed.append((str(path), threading.current_thread().name))
        return original(path)

    monkeypatch.setattr(hashing, "sha256_file", recording)
    monkeypatch.setattr("linguagym.scoring.engine.device.available_cpus", lambda: 2)
    settings = _settings(checkpoints[:2], tmp_path / "cache")
    run_models(example_suite_paths(), settings, summary=None)
    files = [name for name, _ in hashed]
    assert sorted(files) == sorted(set(files))  # every file once: the scorers found them remembered
    weights = [(name, thread) for name, thread in hashed if name.endswith("model.safetensors")]
    assert len(weights) == 2 and all(thread != threading.main_thread().name for _, thread in weights)
    # the same identity as a model resolved alone, which hashes in this thread
    memo = hashing.HashMemo(tmp_path / "cache" / "hashes.json")
    assert memo.prefill(checkpoints[:2], 2) == 0
    assert memo.directory(checkpoints[0]) == hashing.HashMemo(None).directory(checkpoints[0])


def test_a_run_can_let_each_models_scores_go_once_its_folder_is_written(checkpoints: list[Path],
                                                                         tmp_path: Path) -> None:
    seen: list[int] = []
    light = run_models(example_suite_paths(), _settings(checkpoints, tmp_path / "cache"), output=tmp_path / "light",
                       keep_scores=False, finished=lambda one, outcome: seen.append(len(outcome.suites[0].conditions)))
    full = run_models(example_suite_paths(), _settings(checkpoints, tmp_path / "cache"), output=tmp_path / "full")
    assert seen and all(seen)  # ``finished`` sees every score (the command line reports crossings from them)
    for kept, let_go in zip(full, light, strict=True):
        assert isinstance(kept, RunResult) and isinstance(let_go, RunResult)
        assert all(result.conditions == () for result in let_go.suites)
        assert [r.predictions for r in let_go.suites] == [r.predictions for r in kept.suites]
        assert [r.accuracy() for r in let_go.suites] == [r.accuracy() for r in kept.suites]
        for name in ("tokens.csv", "regions.csv", "items.csv"):  # the folders hold everything
            assert (let_go.directory / name).read_bytes() == (kept.directory / name).read_bytes()
    assert light.summary == full.summary
    with pytest.raises(LinguagymError, match="needs an output folder"):
        run_models(example_suite_paths(), _settings(checkpoints[:1]), keep_scores=False)
