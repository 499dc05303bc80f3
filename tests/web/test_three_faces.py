"""The command line, the Python API and the web app are three faces of one library call (``run_models``): the same
settings give the same files, byte for byte, apart from what records when and where a run was made."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

from linguagym.cli import main
from linguagym.evaluation.lm_eval_results import RESULTS_FILE
from linguagym.evaluation.model_runs import run_models
from linguagym.evaluation.run import RunSettings
from linguagym.suites import example_suite_paths
from linguagym.web.jobs.worker import results_directory

SUITES = example_suite_paths()[:2]


def _volatile_free(path: Path) -> bytes:
    """The file's bytes, with what says when and where a run was made set aside: in the report, when it was made
    and the seconds each model took; in a run record, those, the cache's folder and the suite files' paths and
    hashes (the web app scores the canonical text of each suite it stores, not the bytes uploaded)."""
    if path.name == "report.html":
        page = re.sub(r"made \d{4}-\d\d-\d\d \d\d:\d\d UTC", "made WHEN", path.read_text(encoding="utf-8"))
        return re.sub(r"(<td>\d+</td><td>)[\d.]+(</td><td class=wrap>linguagym)", r"\1SECONDS\2", page).encode()
    if RESULTS_FILE.fullmatch(path.name):  # the lm-eval results: when it was made and the suites' hashes set aside
        results = json.loads(path.read_text(encoding="utf-8"))
        for key in ("date", "total_evaluation_time_seconds", "versions"):
            results.pop(key)
        for config in results["configs"].values():
            config["metadata"].clear(), config["linguagym"].pop("path")
        return json.dumps(results, sort_keys=True).encode()
    if path.name != "run.json":
        return path.read_bytes()
    record = json.loads(path.read_text(encoding="utf-8"))
    for key in ("started", "seconds"):
        record.pop(key)
    record["settings"].pop("cache_dir")
    record["cache"].pop("path")
    for suite in record["suites"]:
        suite.pop("path"), suite.pop("sha256")
    return json.dumps(record, sort_keys=True).encode()


def _files(folder: Path) -> dict[str, bytes]:
    """Each file's bytes (``_volatile_free``) by its path, the time in the lm-eval results' name set aside."""
    return {re.sub(r"results_[\d\-T.]+\.json$", "results_WHEN.json", p.relative_to(folder).as_posix()):
            _volatile_free(p) for p in sorted(folder.rglob("*")) if p.is_file()}


def test_cli_api_and_web_write_the_same_files_for_two_models_sharing_a_folder_name(app, client, tiny_lm_dir,
                                                                                  tmp_path):
    models = [tmp_path / run / "checkpoint-1" for run in ("runA", "runB")]
    for model in models:
        shutil.copytree(tiny_lm_dir, model)

    cli_out = tmp_path / "cli"
    argv = ["run", *map(str, SUITES), "-o", str(cli_out), "--cache-dir", str(tmp_path / "cli-cache"),
            "--device", "cpu", "--batch-size", "8"]
    assert main([*argv, *(f"--model={m}" for m in models)]) == 0

    api_out = tmp_path / "api"
    done = run_models(SUITES, [RunSettings(model=str(m), device="cpu", batch_size=8,
                                           cache_dir=str(tmp_path / "api-cache")) for m in models], output=api_out)
    assert done.report == api_out / "report.html" and not done.failed

    for path in SUITES:
        client.post("/suites/upload", data={"suite_file": (io.BytesIO(path.read_bytes()), path.name)},
                    content_type="multipart/form-data")
    response = client.post("/runs", data={"suite": ["1", "2"], "other_models": "\n".join(map(str, models)),
                                          "device": "cpu", "batch_size": "8", "policy": ""})
    run_id = int(response.headers["Location"].rsplit("/", 1)[1])
    assert app.extensions["worker"].run_next()
    assert client.get(f"/api/runs/{run_id}").json["status"] == "done"
    web_out = results_directory(app.extensions["linguagym"], run_id)

    cli, api, web = _files(cli_out), _files(api_out), _files(web_out)
    folders = {name.split("/")[0] for name in cli if "/" in name}
    assert len([f for f in folders if f != "plots"]) == 2  # both checkpoints, each in a folder of its own
    assert "report.html" in cli and any(name.endswith("/items.csv") for name in cli)
    assert len([name for name in cli if name.endswith("/results_WHEN.json")]) == 2  # lm-eval's layout, every face
    assert cli.keys() == api.keys() == web.keys()
    for name in cli:
        assert cli[name] == api[name] == web[name], name
