"""The executor seam without a cluster: shards copy a local run's calls, options are checked, Ray stays optional
and is never imported by commands that do not use it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from linguagym.evaluation.evaluate import suite_sentences
from linguagym.evaluation.run import RunSettings, run_suites
from linguagym.executors import ExecutorError, make_executor
from linguagym.executors.local import LocalExecutor
from linguagym.executors.shards import CacheWriter, plan_shards
from linguagym.scoring.cache import CachedScorer
from linguagym.suites import example_suite_paths, read_suite
from tests.evaluation.fakes import WordScorer


def example_texts() -> list[str]:
    return [s.text for p in example_suite_paths() for s in suite_sentences(read_suite(p).suite)]


def test_shards_are_the_calls_a_local_run_makes(tmp_path):
    texts = example_texts()
    warm = CachedScorer(WordScorer(), tmp_path, chunk_size=16)
    warm.score(texts[::7])  # some texts cached already, scattered
    planned = plan_shards(CachedScorer(WordScorer(), tmp_path, chunk_size=16), texts)

    local = CachedScorer(WordScorer(), tmp_path, chunk_size=16)
    run_suites(example_suite_paths(), RunSettings(model="fake"), scorer=local)
    assert sorted(s.texts for s in planned) == sorted(tuple(call) for call in local.inner.calls)
    assert len(planned) > 2 and all(s.unit == "characters" for s in planned)  # a scorer that cannot count tokens
    weights = [s.weight for s in planned]
    assert weights == sorted(weights, reverse=True) and weights[0] == sum(map(len, planned[0].texts))


def test_smaller_shards_on_request_and_nothing_when_all_is_cached(tmp_path):
    texts = example_texts()
    scorer = CachedScorer(WordScorer(), tmp_path)
    assert [len(s.texts) for s in plan_shards(scorer, texts, shard_texts=30)] == [30, 30, 20]
    scorer.score(texts)
    assert plan_shards(scorer, texts) == []
    uncached = plan_shards(WordScorer(), texts * 2)
    assert [len(s.texts) for s in uncached] == [len(set(texts))]


def test_cache_writer_stores_results_a_cached_scorer_then_finds(tmp_path):
    computed = WordScorer().score(["The cat sat.", "A dog ran."])
    scorer = CachedScorer(WordScorer(), tmp_path)
    writer = CacheWriter(scorer)
    writer.write(computed)
    writer.close()
    assert writer.written == 2
    assert scorer.missing(["The cat sat.", "A dog ran.", "New text."]) == ["New text."]
    assert scorer.score(["A dog ran."]) == [computed[1]] and scorer.inner.calls == []


def test_the_local_executor_is_the_default_and_is_recorded(tmp_path):
    result = run_suites(example_suite_paths(), RunSettings(model="fake"), scorer=WordScorer(),
                        executor=LocalExecutor())
    assert result.executor == {"name": "local"} and result.record()["executor"] == {"name": "local"}
    assert "executor" not in result.record()["settings"]  # it changes no number


def test_ray_options_need_the_ray_executor():
    with pytest.raises(ExecutorError) as caught:
        make_executor("local", address="10.0.0.1:6379")
    assert "set `executor` ray" in caught.value.hint and "executor" in caught.value.settings
    with pytest.raises(ExecutorError, match="unknown executor 'dask'"):
        make_executor("dask")


def test_without_ray_the_ray_executor_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(ExecutorError) as caught:
        make_executor("ray", workers=2)
    assert "not installed" in caught.value.message
    assert caught.value.hint == "install it with: pip install 'linguagym[ray]'"


def test_cli_without_ray_exits_with_the_install_hint(monkeypatch, capsys):
    from linguagym.cli import main

    monkeypatch.setitem(sys.modules, "ray", None)
    paths = [str(p) for p in example_suite_paths()]
    assert main(["run", *paths, "--model", "fake-model-never-loaded", "--executor", "ray"]) == 1
    assert "pip install 'linguagym[ray]'" in capsys.readouterr().err


def test_an_address_where_nothing_answers_is_refused_at_once():
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'linguagym[ray]')")
    from linguagym.executors.ray_executor import RayExecutor

    assert not ray.is_initialized()  # else connect() would keep the connection it has
    with pytest.raises(ExecutorError) as caught:
        RayExecutor(address="127.0.0.1:1").connect()
    assert "cannot connect to the Ray cluster at 127.0.0.1:1" in caught.value.message
    assert "ray status" in caught.value.hint and not ray.is_initialized()


PROBE = (
    "import json, sys\n"
    "import linguagym, linguagym.evaluation.run, linguagym.executors, linguagym.executors.local\n"
    "from linguagym.cli import main\n"
    "try:\n"
    "    main(['run', '--help'])\n"
    "except SystemExit:\n"
    "    pass\n"
    "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('ray', 'torch'))))\n"
)


def test_importing_linguagym_and_run_help_import_neither_ray_nor_torch():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert "--executor {local,ray}" in done.stdout and "--ray-address" in done.stdout
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
