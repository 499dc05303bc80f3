"""``linguagym run`` and ``linguagym surprisals`` end to end, on a tiny model built offline."""

import csv
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from linguagym.suites import example_suite_paths


def cli(*args, env_extra=None):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "linguagym.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=300, env=env)


def run_dir(out):
    """``run -o OUT`` writes one folder per model inside OUT."""
    [record] = out.glob("*/run.json")
    return record.parent


def read_csv(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def surprisals_tsv(tiny_lm_dir, tmp_path_factory):
    """``linguagym surprisals`` of the example suites on the tiny model, made once for the two tests that read it:
    its CompletedProcess and the file."""
    tsv = tmp_path_factory.mktemp("surprisals") / "surprisals.tsv"
    return cli("surprisals", "--model", tiny_lm_dir, "--no-cache", "-o", tsv, *example_suite_paths()), tsv


def test_run_writes_results_and_a_second_run_is_served_from_the_cache(first_cli_run, tiny_lm_dir, tmp_path):
    first, first_cache, first_out = first_cli_run  # run -o OUT with an empty cache (conftest.py)
    assert first.returncode == 0, first.stderr
    assert "agreement_across_pp" in first.stdout and "accuracy" in first.stdout
    cache = shutil.copytree(first_cache, tmp_path / "cache")  # the second run reads a copy: others share the first
    record = json.loads((run_dir(first_out) / "run.json").read_text())
    assert record["cache"]["misses"] == record["counts"]["unique_sentences"] == 80 and record["cache"]["hits"] == 0
    assert record["scorer"]["device"] == "cpu" or record["scorer"]["device"].startswith("cuda")
    assert record["scorer"]["bos_token"] == "<|endoftext|>" and len(record["scorer"]["revision"]) == 64
    assert "torch" in record["environment"]

    second = cli("run", "--model", tiny_lm_dir, "--cache-dir", cache, "-o", tmp_path / "b", *example_suite_paths())
    assert second.returncode == 0, second.stderr
    record = json.loads((run_dir(tmp_path / "b") / "run.json").read_text())
    assert record["cache"] == {**record["cache"], "hits": 80, "misses": 0}
    assert "torch" not in record["environment"]  # nothing computed: torch was never imported
    assert read_csv(run_dir(first_out) / "regions.csv") == read_csv(run_dir(tmp_path / "b") / "regions.csv")


def test_no_cache_writes_no_cache(tiny_lm_dir, tmp_path):
    cache = tmp_path / "cache"
    result = cli("run", "--model", tiny_lm_dir, "--cache-dir", cache, "--no-cache", "-o", tmp_path / "out",
                 example_suite_paths()[0])
    assert result.returncode == 0, result.stderr
    assert json.loads((run_dir(tmp_path / "out") / "run.json").read_text())["cache"] is None
    assert not (cache / "scores").exists()


def test_surprisals_tsv_evaluates_to_the_same_results(surprisals_tsv, tiny_lm_dir, tmp_path):
    suites = example_suite_paths()
    made, tsv = surprisals_tsv
    assert made.returncode == 0, made.stderr
    lines = tsv.read_text().splitlines()
    assert lines[0].split("\t") == ["sentence_id", "token_id", "token", "surprisal"]
    assert lines[1].split("\t")[:2] == ["1", "1"]
    direct = cli("run", "--model", tiny_lm_dir, "--no-cache", "-o", tmp_path / "direct", *suites)
    via_tsv = cli("run", "--model", tsv, "-o", tmp_path / "tsv", *suites)
    assert direct.returncode == 0 and via_tsv.returncode == 0, via_tsv.stderr
    a = read_csv(run_dir(tmp_path / "direct") / "predictions.csv")
    b = read_csv(run_dir(tmp_path / "tsv") / "predictions.csv")
    assert [r["holds"] for r in a] == [r["holds"] for r in b]
    sums_a = [float(r["sum"]) for r in read_csv(run_dir(tmp_path / "direct") / "regions.csv")]
    sums_b = [float(r["sum"]) for r in read_csv(run_dir(tmp_path / "tsv") / "regions.csv")]
    assert max(abs(x - y) for x, y in zip(sums_a, sums_b, strict=True)) < 1e-4


def test_missing_model_offline_is_a_clear_error(tmp_path):
    result = cli("run", "--model", "no-such-org/no-such-model", "--cache-dir", tmp_path, "-o", tmp_path / "out",
                 example_suite_paths()[0])
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "no-such-org/no-such-model" in result.stderr and "hint:" in result.stderr
    assert not list((tmp_path / "out").glob("*/run.json"))


def test_bad_options_are_clear_errors(tiny_lm_dir, tmp_path):
    result = cli("run", "--model", tiny_lm_dir, "--pll", "original", "-o", tmp_path / "o", example_suite_paths()[0])
    assert result.returncode == 1 and "causal" in result.stderr and "Traceback" not in result.stderr
    result = cli("run", "--model", tiny_lm_dir, "--metric", "total", "--no-cache", "-o", tmp_path / "o",
                 example_suite_paths()[0])
    assert result.returncode == 1 and "unknown metric 'total'" in result.stderr


def test_two_models_one_table_and_one_report(surprisals_tsv, tiny_lm_dir, tmp_path):
    made, tsv = surprisals_tsv
    assert made.returncode == 0, made.stderr
    out = tmp_path / "both"
    result = cli("run", "--model", tiny_lm_dir, "--model", tsv, "--no-cache", "-o", out, *example_suite_paths())
    assert result.returncode == 0, result.stderr
    header = next(line for line in result.stdout.splitlines() if tiny_lm_dir.name in line and "┃" in line)
    assert "surprisals.tsv" in header  # models across, in one table
    assert "mean accuracy" in result.stdout and "npz_comma" in result.stdout
    assert sorted(p.parent.name for p in out.glob("*/run.json")) == sorted([tiny_lm_dir.name, "surprisals.tsv"])
    page = (out / "report.html").read_text()
    assert page.count("<svg") == 1 + 3 * (1 + 2)  # accuracy bars; per suite, both models overlaid and one per model
    assert page.count("prediction 0: <code>") == 3 and "of items</span>" in page  # each prediction's share
    # self-contained: no stylesheet, script, image or font is loaded from anywhere
    for loader in ("<link", "<script", "<img", "@import", "src="):
        assert loader not in page, loader
    assert not re.search(r"url\((?!#)", page)  # only references inside the page
    compared = cli("compare", out, "--report", tmp_path / "cmp", "--csv", tmp_path / "cmp.csv")
    assert compared.returncode == 0, compared.stderr
    assert (tmp_path / "cmp" / "report.html").is_file()
    assert (tmp_path / "cmp" / "plots" / "suite_accuracy.svg").is_file()
    rows = read_csv(tmp_path / "cmp.csv")
    assert {r["model"] for r in rows} == {tiny_lm_dir.name, "surprisals.tsv"}


def test_score_prints_the_papers_sg_score(shared_data):
    from tests.conftest import SHARED_DATA

    result = cli("score", SHARED_DATA / "syntaxgym" / "hu2020-results" / "gpt-2-pretrained_.csv", "--bootstrap", "0")
    assert result.returncode == 0, result.stderr
    line = next(line for line in result.stdout.splitlines() if "SG score" in line)
    assert "0.784" in line
    circuits = [next(line for line in result.stdout.splitlines() if f"({c})" in line).split()[-2]
                for c in ("Agr", "CE", "GPE", "GSS", "Lic", "LDD")]
    assert [c.strip("│") for c in circuits] == ["0.737", "0.893", "0.881", "0.891", "0.658", "0.814"]


def test_run_a_collection_from_a_suites_directory(shared_data, tiny_lm_dir, tmp_path):
    from tests.conftest import SUITES_DIR

    # a user collection of two real suites, with a group
    collection = tmp_path / "two.toml"
    collection.write_text('name = "two"\nsuites = ["number_prep", "npz_obj"]\n'
                          '[[groups]]\nname = "Agreement"\nshort = "Agr"\nsuites = ["number_*"]\n')
    result = cli("run", "--collection", collection, "--suites-dir", SUITES_DIR, "--model", tiny_lm_dir,
                 "--no-cache", "--no-report", "-o", tmp_path / "out")
    assert result.returncode == 0, result.stderr
    assert "two score" in result.stdout and "Agreement (Agr)" in result.stdout
    assert not (tmp_path / "out" / "report.html").exists()
    missing = cli("run", "--model", tiny_lm_dir, "-o", tmp_path / "none")
    assert missing.returncode == 1 and "no suite files given" in missing.stderr
