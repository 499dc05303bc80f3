"""``linguagym run --executor ray`` from the shell: starts its own local cluster offline, says nothing of Ray's
own, writes the run, and exits (the cluster shut down)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from linguagym.suites import example_suite_paths


def test_cli_starts_a_quiet_local_cluster_and_exits(tiny_lm_dir, tmp_path):
    pytest.importorskip("ray", reason="Ray is not installed (pip install 'linguagym[ray]')")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env["HF_HUB_OFFLINE"] = "1"
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "linguagym.cli", "run", *map(str, example_suite_paths()), "--model", str(tiny_lm_dir),
         "--device", "cpu", "--cache-dir", str(tmp_path / "cache"), "-o", str(out), "--no-report",
         "--executor", "ray", "--ray-workers", "1"],
        capture_output=True, text=True, timeout=180, env=env)
    assert done.returncode == 0, done.stderr
    [record_path] = out.glob("*/run.json")
    record = json.loads(record_path.read_text())
    assert record["executor"]["cluster"] == "local" and record["executor"]["workers"] == 1
    assert record["cache"]["misses"] == 80 == record["counts"]["unique_sentences"]
    noise = [line for line in done.stderr.splitlines() if "ray" in line.lower() or "WARNING" in line]
    assert noise == []
