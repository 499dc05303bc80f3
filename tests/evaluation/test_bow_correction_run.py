"""A run with the word-boundary correction: recorded, cached apart, and named wherever its numbers are shown."""

from __future__ import annotations

import csv
import json

from linguagym.evaluation.one_call import run
from linguagym.suites import example_suite_paths

from .test_cli_run import cli, run_dir


def _region_sums(folder) -> dict[tuple[str, str, str, str], float]:
    with (folder / "regions.csv").open(newline="") as handle:
        return {(r["suite"], r["item"], r["condition"], r["region"]): float(r["sum"] or "nan")
                for r in csv.DictReader(handle)}


def test_the_flag_is_recorded_and_named_in_the_table_and_report(first_cli_run, tiny_lm_dir, tmp_path) -> None:
    plain_done, _, plain_out = first_cli_run
    done = cli("run", "--model", tiny_lm_dir, "--bow-correction", "--cache-dir", tmp_path / "cache", "-o",
               tmp_path / "out", *example_suite_paths())
    assert done.returncode == 0, done.stderr
    assert "word-boundary corrected" in " ".join(done.stdout.split())
    assert "no word-boundary correction" in " ".join(plain_done.stdout.split())
    folder = run_dir(tmp_path / "out")
    record = json.loads((folder / "run.json").read_text())
    assert record["settings"]["bow_correction"] is True and record["scorer"]["bow_correction"]
    assert "word-boundary corrected" in (tmp_path / "out" / "report.html").read_text()
    [results] = folder.glob("results_*.json")  # lm-eval's layout
    assert json.loads(results.read_text())["linguagym_surprisal"] == "word-boundary corrected"
    corrected, plain = _region_sums(folder), _region_sums(run_dir(plain_out))
    assert corrected.keys() == plain.keys()
    # each region gains the boundary term after it and loses the one before it: not one region stays as it was
    moved = [key for key in plain if plain[key] == plain[key] and abs(corrected[key] - plain[key]) > 1e-4]
    assert len(moved) > 0.9 * sum(1 for v in plain.values() if v == v)


def test_the_api_and_the_cache_keep_corrected_and_plain_apart(tiny_lm_dir, tmp_path) -> None:
    suites = example_suite_paths()[:1]
    cache = tmp_path / "cache"
    [plain] = run(suites, str(tiny_lm_dir), cache_dir=str(cache), summary=False)
    [corrected] = run(suites, str(tiny_lm_dir), cache_dir=str(cache), bow_correction=True, summary=False)
    assert corrected.cache["misses"] == corrected.unique_sentences  # not served from the uncorrected cache
    [again] = run(suites, str(tiny_lm_dir), cache_dir=str(cache), bow_correction=True, summary=False)
    assert again.cache["hits"] == again.unique_sentences and again.cache["misses"] == 0
    assert corrected.record()["settings"]["bow_correction"] and not plain.record()["settings"]["bow_correction"]


def test_a_precomputed_tsv_refuses_the_correction(tmp_path) -> None:
    tsv = tmp_path / "lm.tsv"
    tsv.write_text("sentence_id\ttoken_id\ttoken\tsurprisal\n1\t1\tThe\t3.0\n")
    done = cli("run", "--model", tsv, "--bow-correction", "-o", tmp_path / "out", *example_suite_paths()[:1])
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "word-boundary correction cannot be applied" in " ".join(done.stderr.split())
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").glob("*/run.json"))


def test_a_run_on_precomputed_surprisals_does_not_claim_how_they_were_summed(tiny_lm_dir, tmp_path) -> None:
    suites = example_suite_paths()[:1]
    tsv = tmp_path / "corrected.tsv"
    made = cli("surprisals", "--model", tiny_lm_dir, "--bow-correction", "--no-cache", "-o", tsv, *suites)
    assert made.returncode == 0, made.stderr
    assert "word-boundary corrected" in made.stderr and "cannot record" in made.stderr
    done = cli("run", "--model", tsv, "-o", tmp_path / "out", *suites)
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())
    assert "as the precomputed file gives them" in said and "no word-boundary correction" not in said
