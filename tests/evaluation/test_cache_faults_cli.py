"""``linguagym run`` past a score cache with garbage in its middle: exit 0, a warning naming the file, the same
results as before, and a quiet, fully cached run after that (issue 17)."""

import csv
import json
import random
import shutil

import pytest

from linguagym.suites import example_suite_paths
from tests.evaluation.test_cli_run import cli, run_dir

NUMBERS = ("sum", "mean", "median", "range", "max", "min")


def regions(out):
    with open(run_dir(out) / "regions.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def same_regions(got, expected):
    """Equal, numbers within float32 rounding: a recomputed text shares its batch with other texts than before,
    which moves the last bits of its surprisals."""
    assert len(got) == len(expected)
    for row, want in zip(got, expected, strict=True):
        assert {k: v for k, v in row.items() if k not in NUMBERS} == {k: v for k, v in want.items() if k not in NUMBERS}
        for key in NUMBERS:
            assert (row[key] == want[key]) if "" in (row[key], want[key]) else \
                float(row[key]) == pytest.approx(float(want[key]), rel=1e-4, abs=1e-4)


def test_run_rebuilds_a_score_cache_with_garbage_in_its_middle(first_cli_run, tiny_lm_dir, tmp_path):
    first, first_cache, first_out = first_cli_run  # the same run on an empty cache, made once (conftest.py)
    assert first.returncode == 0, first.stderr
    cache = shutil.copytree(first_cache, tmp_path / "cache")
    args = ("run", "--model", tiny_lm_dir, "--cache-dir", cache, *example_suite_paths())
    [path] = (cache / "scores").glob("*.sqlite")
    size = path.stat().st_size
    with open(path, "r+b") as handle:  # three pages of garbage from the middle of the file on
        handle.seek(size // 2 // 4096 * 4096)
        handle.write(random.Random(0).randbytes(3 * 4096))

    second = cli(*args, "-o", tmp_path / "b")
    assert second.returncode == 0, second.stderr
    assert str(path) in second.stderr and f"{path.name}.damaged" in second.stderr
    assert second.stderr.startswith("warning: ")
    assert path.with_name(path.name + ".damaged").exists()
    same_regions(regions(tmp_path / "b"), regions(first_out))

    third = cli(*args, "-o", tmp_path / "c")
    assert third.returncode == 0, third.stderr
    assert "damaged" not in third.stderr and str(path) not in third.stderr  # no warning any more
    record = json.loads((run_dir(tmp_path / "c") / "run.json").read_text())
    assert record["cache"]["misses"] == 0 and record["cache"]["hits"] == record["counts"]["unique_sentences"]
    assert regions(tmp_path / "c") == regions(tmp_path / "b")  # read back exactly as the rebuilt cache holds them
