"""What researchers coming from lm-evaluation-harness type works: --batch_size (auto), --output_path, --limit,
--model_args, --device cuda:0; and every model folder holds its results in lm-eval's layout."""

from __future__ import annotations

import argparse
import json
import math
import re
from dataclasses import replace
from pathlib import Path

import pytest

from linguagym.cli import main
from linguagym.cli.entry import build_parser
from linguagym.errors import ConfigurationError
from linguagym.evaluation.evaluate import suite_sentences
from linguagym.evaluation.limit import describe_limit, limit_suite, limited_count
from linguagym.evaluation.lm_eval_results import RESULTS_FILE, lm_eval_results
from linguagym.evaluation.model_runs import run_models
from linguagym.evaluation.run import RunSettings, check_settings
from linguagym.evaluation.summary import SummarySettings
from linguagym.scoring.huggingface.memory import CPU_BATCH_SIZE, MAX_AUTO_BATCH_SIZE, batch_size_for_memory
from linguagym.suites import example_suite_paths, read_suite

SUITES = example_suite_paths()


def _settings(model: Path, tmp_path: Path, **changes) -> RunSettings:
    return RunSettings(model=str(model), device="cpu", cache_dir=str(tmp_path / "cache"), **changes)


def _results_file(folder: Path) -> dict:
    [path] = [p for p in folder.iterdir() if p.name.startswith("results_")]
    assert RESULTS_FILE.fullmatch(path.name), path.name  # results_2024-05-01T12-00-00.123456.json, as lm-eval names it
    return json.loads(path.read_text(encoding="utf-8"))


# ------------------------------------------------------------------------------------------------ --limit

def test_limit_counts_items_as_lm_eval_does() -> None:
    assert [limited_count(8, limit) for limit in (2, 2.9, 1.0, 100, None)] == [2, 2, 1, 8, 8]
    assert [limited_count(8, share) for share in (0.1, 0.25, 0.26, 0.999)] == [1, 2, 3, 8]  # ceil(8 * share)
    suite = read_suite(SUITES[0]).suite
    first = limit_suite(suite, 3)
    assert [i.number for i in first.items] == [i.number for i in suite.items[:3]]
    assert (first.region_names, first.predictions, first.meta) == (suite.region_names, suite.predictions, suite.meta)
    assert limit_suite(suite, 100) is suite
    assert describe_limit(None) is None and "first 2 items" in describe_limit(2) and "10%" in describe_limit(0.1)


@pytest.mark.parametrize("limit", [0, -1, 0.0, float("nan"), float("inf"), "2", True])
def test_a_limit_that_is_not_a_count_or_share_is_refused(limit) -> None:
    with pytest.raises(ConfigurationError) as caught:
        check_settings(RunSettings(limit=limit))
    assert "limit" in caught.value.message and "give `limit` a number of items (10)" in caught.value.hint
    assert caught.value.settings == ("limit",)  # each face writes it its own way (--limit on the command line)


def test_limit_scores_only_the_first_items_and_says_so(tiny_lm_dir, tmp_path) -> None:
    out = tmp_path / "out"
    done = run_models(SUITES, [_settings(tiny_lm_dir, tmp_path, limit=2)], output=out)
    [result] = done
    assert [[p.item for p in s.predictions] for s in result.suites] == [[1, 2]] * len(SUITES)  # items 1 and 2 only
    assert result.sentences == sum(2 * len(read_suite(p).suite.condition_names) for p in SUITES)
    record = json.loads((result.directory / "run.json").read_text(encoding="utf-8"))
    assert record["settings"]["limit"] == 2
    assert [(s["items"], s["items_total"]) for s in record["suites"]] == [(2, 8)] * len(SUITES)
    items = (result.directory / "items.csv").read_text(encoding="utf-8").splitlines()
    assert len(items) == 1 + 2 * len(SUITES)
    lm_eval = _results_file(result.directory)
    assert lm_eval["config"]["limit"] == 2
    assert lm_eval["n-samples"] == {read_suite(p).suite.name: {"original": 8, "effective": 2} for p in SUITES}


def test_a_full_run_records_no_limit(tiny_lm_dir, tmp_path) -> None:
    [result] = run_models(SUITES[:1], [_settings(tiny_lm_dir, tmp_path)], output=tmp_path / "out")
    record = json.loads((result.directory / "run.json").read_text(encoding="utf-8"))
    assert record["settings"]["limit"] is None and "items_total" not in record["suites"][0]
    assert record["batch_size_used"] == 16


# ------------------------------------------------------------------------------------------- batch size

def test_auto_batch_size_is_the_default_on_a_cpu_and_recorded(tiny_lm_dir, tmp_path) -> None:
    check_settings(RunSettings(batch_size="auto"))
    check_settings(RunSettings(batch_size="auto:4"))  # lm-eval's "re-tune 4 times": taken as auto
    assert RunSettings(device="cpu", batch_size="auto").resolved_batch_size() == CPU_BATCH_SIZE
    [result] = run_models(SUITES[:1], [_settings(tiny_lm_dir, tmp_path, batch_size="auto")], output=tmp_path / "o")
    record = json.loads((result.directory / "run.json").read_text(encoding="utf-8"))
    assert record["settings"]["batch_size"] == "auto" and record["batch_size_used"] == CPU_BATCH_SIZE
    config = _results_file(result.directory)["config"]
    assert config["batch_size"] == "auto" and config["batch_sizes"] == [CPU_BATCH_SIZE]


def test_auto_batch_size_on_a_gpu_grows_with_free_memory_within_bounds() -> None:
    gib = 2**30
    small = batch_size_for_memory(4 * gib, 1 * gib, vocab_size=50_000, hidden=768, layers=12, dtype="float32")
    large = batch_size_for_memory(40 * gib, 1 * gib, vocab_size=50_000, hidden=768, layers=12, dtype="float32")
    assert CPU_BATCH_SIZE < small < large <= MAX_AUTO_BATCH_SIZE
    assert batch_size_for_memory(gib, 2 * gib, 50_000, 768, 12, "float32") == CPU_BATCH_SIZE  # no room: the default


def test_auto_batch_size_on_cuda_reads_free_memory_and_the_model(tiny_lm_dir, monkeypatch) -> None:
    torch = pytest.importorskip("torch")
    from linguagym.scoring.engine import device
    from linguagym.scoring.huggingface import memory

    asked = []
    monkeypatch.setattr(device, "probe_device", lambda name: name if name != "auto" else "cuda")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: None)
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda target: asked.append(str(target)) or (2**30, 2**31))
    memory._cuda_batch_size.cache_clear()
    try:
        chosen = memory.auto_batch_size(str(tiny_lm_dir), device="cuda:0", dtype="float32")
        again = memory.auto_batch_size(str(tiny_lm_dir), device="cuda:0", dtype="float32")
    finally:
        memory._cuda_batch_size.cache_clear()
    vocab, hidden, layers = memory._model_shape(tiny_lm_dir)
    weights = memory.parameter_count(tiny_lm_dir) * 4
    assert (vocab, hidden, layers) == (600, 32, 2)  # the tiny GPT-2: n_embd, n_layer
    assert chosen == again == batch_size_for_memory(2**30, weights, vocab, hidden, layers, "float32")
    assert asked == ["cuda:0"]  # measured once: every scorer of a run gets the same size
    assert CPU_BATCH_SIZE < chosen < MAX_AUTO_BATCH_SIZE  # a tiny model in 1 GiB: hundreds of texts a pass


@pytest.mark.parametrize("size", ["big", 0, -3, True, 2.5, "auto:x"])
def test_a_bad_batch_size_is_refused(size) -> None:
    with pytest.raises(ConfigurationError) as caught:
        check_settings(RunSettings(batch_size=size))
    assert "batch_size" in caught.value.message and caught.value.settings == ("batch_size",)


def test_scores_and_the_cache_do_not_depend_on_the_batch_size(tiny_lm_dir, tmp_path) -> None:
    from linguagym.scoring.registry import load_scorer

    texts = [s.text for p in SUITES for s in suite_sentences(read_suite(p).suite)]
    one_by_one = load_scorer(str(tiny_lm_dir), device="cpu", batch_size=1, batch_tokens=16, score_cache=False)
    all_at_once = load_scorer(str(tiny_lm_dir), device="cpu", batch_size=512, score_cache=False)
    assert one_by_one.identity == all_at_once.identity  # the cache key
    for a, b in zip(one_by_one.score(texts), all_at_once.score(texts), strict=True):
        assert [t.token for t in a.tokens] == [t.token for t in b.tokens]
        assert [t.surprisal for t in a.tokens] == pytest.approx([t.surprisal for t in b.tokens], abs=1e-4)
    run_models(SUITES[:1], [_settings(tiny_lm_dir, tmp_path, batch_size=2)])
    [again] = run_models(SUITES[:1], [_settings(tiny_lm_dir, tmp_path, batch_size="auto")])
    assert again.cache["misses"] == 0 and again.cache["hits"] > 0  # another batch size, the same cached scores


# ------------------------------------------------------------------------------------------- the flags

def _run_args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["run", *argv])


def test_lm_eval_spellings_are_the_same_options(tmp_path) -> None:
    lm_eval = vars(_run_args("--batch_size", "auto", "--output_path", str(tmp_path), "--limit", "0.5",
                             "--model_args", "revision=main", "--device", "cuda:0"))
    ours = vars(_run_args("--batch-size", "auto", "-o", str(tmp_path), "--limit", "0.5",
                          "--model-args", "revision=main", "--device", "cuda:0"))
    assert lm_eval == ours
    assert (ours["batch_size"], ours["output"], ours["limit"], ours["device"]) == ("auto", tmp_path, 0.5, "cuda:0")
    assert vars(_run_args("--batch_size", "4")) == vars(_run_args("--batch-size", "4"))
    assert _run_args("--batch_size", "auto:4").batch_size == "auto:4" and _run_args("--limit", "3").limit == 3


@pytest.mark.parametrize(("flag", "value"), [("--batch_size", "lots"), ("--limit", "0"), ("--limit", "few")])
def test_a_bad_flag_value_is_a_usage_error_not_a_traceback(flag, value, capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        _run_args(flag, value)
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert value in error and "Traceback" not in error


def test_the_cli_with_lm_eval_flags_writes_the_same_files_and_marks_the_limit(tiny_lm_dir, tmp_path, capsys) -> None:
    common = [str(SUITES[0]), "--model", str(tiny_lm_dir), "--device", "cpu", "--cache-dir", str(tmp_path / "c"),
              "--no-report", "--limit", "3"]
    assert main(["run", *common, "--batch_size", "4", "--output_path", str(tmp_path / "a")]) == 0
    shown = capsys.readouterr().out
    assert "limit: the first 3 items of each suite" in shown
    assert main(["run", *common, "--batch-size", "4", "-o", str(tmp_path / "b")]) == 0
    [a] = (tmp_path / "a").glob("*/run.json")
    [b] = (tmp_path / "b").glob("*/run.json")
    for first, second in ((a.parent / "items.csv", b.parent / "items.csv"),
                          (a.parent / "regions.csv", b.parent / "regions.csv")):
        assert first.read_bytes() == second.read_bytes()
    record = json.loads(a.read_text(encoding="utf-8"))
    assert record["settings"]["batch_size"] == 4 and record["settings"]["limit"] == 3


def test_a_cuda_device_without_cuda_is_a_clear_error(tiny_lm_dir, tmp_path, capsys) -> None:
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    status = main(["run", str(SUITES[0]), "--model", str(tiny_lm_dir), "--device", "cuda:0", "--no-cache",
                   "--no-report", "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert status != 0 and "Traceback" not in err
    assert "device 'cuda:0' was chosen but torch" in err and "cannot use CUDA here" in err


# -------------------------------------------------------------------------------------- the lm-eval file

def test_the_results_file_has_lm_eval_s_layout_and_our_numbers(tiny_lm_dir, tmp_path) -> None:
    [result] = run_models(SUITES, [_settings(tiny_lm_dir, tmp_path, batch_size=8)], output=tmp_path / "out")
    record = json.loads((result.directory / "run.json").read_text(encoding="utf-8"))
    data = _results_file(result.directory)
    names = [s["name"] for s in record["suites"]]
    for key in ("results", "group_subtasks", "configs", "versions", "n-shot", "higher_is_better", "n-samples",
                "config", "date", "model_name", "model_name_sanitized", "transformers_version"):
        assert key in data, key
    assert set(data["results"]) == set(names) == set(data["configs"]) == set(data["versions"])
    for suite, result_suite in zip(record["suites"], result.suites, strict=True):
        entry = data["results"][suite["name"]]
        assert entry["alias"] == suite["name"] and entry["acc,none"] == suite["accuracy"]
        correct = [bool(v) for v in result_suite.item_correct(suite["policy"]).values()]
        n, p = len(correct), sum(correct) / len(correct)
        assert entry["acc_stderr,none"] == pytest.approx(math.sqrt(p * (1 - p) / (n - 1)))  # lm-eval's mean_stderr
        assert entry["acc_ci_low,none"] <= entry["acc,none"] <= entry["acc_ci_high,none"]
        assert data["versions"][suite["name"]] == suite["sha256"][:12]
        assert data["configs"][suite["name"]]["metadata"]["sha256"] == suite["sha256"]
        assert data["n-shot"][suite["name"]] == 0 and data["higher_is_better"][suite["name"]] == {"acc": True}
        assert data["n-samples"][suite["name"]] == {"original": 8, "effective": 8}
    assert data["config"]["batch_size"] == 8 and data["config"]["limit"] is None
    assert data["config"]["bootstrap_iters"] == 1000 and data["config"]["device"] == "cpu"
    assert data["config"]["model_args"].startswith(f"pretrained={tiny_lm_dir}")
    assert data["model_name"] == str(tiny_lm_dir) and "/" not in data["model_name_sanitized"]
    assert isinstance(data["date"], float)


def test_a_collection_gives_lm_eval_groups(tiny_lm_dir, tmp_path) -> None:
    collection = tmp_path / "mine.toml"
    collection.write_text('name = "mine"\nsuites = ["agreement_across_pp", "npi_ever", "npz_comma"]\n'
                          '[[groups]]\nname = "Agreement"\nshort = "agr"\nsuites = ["agreement_*"]\n',
                          encoding="utf-8")
    [result] = run_models(SUITES, [_settings(tiny_lm_dir, tmp_path)])
    data = lm_eval_results(result, SummarySettings(collection=str(collection), bootstrap=50))
    assert data["group_subtasks"]["mine"] == ["agr", "npi_ever", "npz_comma"]
    assert data["group_subtasks"]["agr"] == ["agreement_across_pp"]
    accuracy = {s.suite.name: s.accuracy("all") for s in result.suites}
    assert data["groups"]["mine"]["acc,none"] == pytest.approx(sum(accuracy.values()) / 3)
    assert data["groups"]["agr"]["acc,none"] == pytest.approx(accuracy["agreement_across_pp"])
    assert set(data["results"]) == {"mine", "agr", *accuracy}  # lm-eval lists groups among the results too


def test_lm_eval_s_own_table_reads_the_file(tiny_lm_dir, tmp_path) -> None:
    utils = pytest.importorskip("lm_eval.utils")  # (not a dependency: checked where lm_eval is installed)
    pytest.importorskip("pytablewriter")
    [result] = run_models(SUITES, [_settings(tiny_lm_dir, tmp_path)], output=tmp_path / "out")
    data = _results_file(result.directory)
    table = utils.make_table(data)
    for suite in result.suites:
        row = next(line for line in table.splitlines() if re.search(rf"\|\s*{suite.suite.name}\s*\|", line))
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert cells[4] == "acc" and float(cells[6]) == pytest.approx(suite.accuracy("all"), abs=1e-3)


def test_a_second_run_replaces_the_results_file(tiny_lm_dir, tmp_path) -> None:
    settings = [_settings(tiny_lm_dir, tmp_path)]
    run_models(SUITES[:1], settings, output=tmp_path / "out")
    [result] = run_models(SUITES[:1], [replace(settings[0], limit=1)], output=tmp_path / "out")
    assert _results_file(result.directory)["config"]["limit"] == 1  # one file: the folder is replaced whole
