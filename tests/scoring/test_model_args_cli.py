"""``--model-args`` on ``linguagym run`` and ``linguagym surprisals``: they reach the scorer, run.json shows them as
a JSON object, and bad ones are one clear line (exit 1, no traceback)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from linguagym.cli import main
from linguagym.suites import example_suite_paths


def read_tsv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def test_run_records_model_args_as_an_object_and_scores_with_them(gpt2_dir: Path, tmp_path: Path) -> None:
    suite = example_suite_paths()[0]
    out = tmp_path / "out"
    status = main(["run", str(suite), "--model", str(gpt2_dir), "--device", "cpu", "--bootstrap", "0",
                   "--cache-dir", str(tmp_path / "cache"), "--model-args", "dtype=bfloat16,trust_remote_code=true",
                   "-o", str(out)])
    assert status == 0
    [record_path] = out.glob("*/run.json")
    record = json.loads(record_path.read_text(encoding="utf-8"))
    assert record["settings"]["model_args"] == {"dtype": "bfloat16", "trust_remote_code": True}
    assert record["scorer"]["dtype"] == "bfloat16" and record["scorer"]["trust_remote_code"] is True


def test_run_takes_dtype_bfloat16_mixed_and_records_it(gpt2_dir: Path, tmp_path: Path) -> None:
    suite = example_suite_paths()[0]
    status = main(["run", str(suite), "--model", str(gpt2_dir), "--device", "cpu", "--bootstrap", "0", "--cache-dir",
                   str(tmp_path / "cache"), "--dtype", "bfloat16-mixed", "-o", str(tmp_path / "out")])
    assert status == 0
    [record_path] = (tmp_path / "out").glob("*/run.json")
    record = json.loads(record_path.read_text(encoding="utf-8"))
    assert record["settings"]["dtype"] == "bfloat16-mixed" and record["scorer"]["dtype"] == "bfloat16-mixed"


def test_surprisals_takes_model_args(gpt2_dir: Path, tmp_path: Path) -> None:
    suite = str(example_suite_paths()[0])
    common = ["surprisals", suite, "--model", str(gpt2_dir), "--device", "cpu", "--no-cache"]
    assert main([*common, "-o", str(tmp_path / "full.tsv")]) == 0
    assert main([*common, "--model-args", "dtype=bfloat16", "-o", str(tmp_path / "half.tsv")]) == 0
    full, half = read_tsv(tmp_path / "full.tsv"), read_tsv(tmp_path / "half.tsv")
    assert [row["token"] for row in full] == [row["token"] for row in half]
    assert [row["surprisal"] for row in full] != [row["surprisal"] for row in half]  # bfloat16 rounds


@pytest.mark.parametrize(("model_args", "message"), [
    ("dtype", "model argument 'dtype' is not key=value"),
    ("revison=main", "unknown model argument 'revison' (did you mean 'revision'?)"),
    ("revision=main", "revision= does not apply to"),
    ("dtype=float16", "dtype is given twice: --dtype bfloat16 and model argument dtype=float16"),
])
def test_bad_model_args_are_one_clear_error(gpt2_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            model_args: str, message: str) -> None:
    suite = str(example_suite_paths()[0])
    status = main(["surprisals", suite, "--model", str(gpt2_dir), "--dtype", "bfloat16", "--no-cache",
                   "--model-args", model_args, "-o", str(tmp_path / "s.tsv")])
    err = capsys.readouterr().err
    assert status == 1
    assert message in err and "hint:" in err and "Traceback" not in err
    assert not (tmp_path / "s.tsv").exists()
