"""How long the web app's leaderboard takes to show, for a server with many finished runs.

Builds (once, under --work) a data directory of --runs finished runs of --models models each on the 34 SyntaxGym
2020 suites: one real run of a tiny random GPT-2 (tests.tiny_models) on the suites, its folder copied under each
run and model name, as a server that ran them would hold them. Then times, each in a fresh Python process (a
server just started), the first and second GET /leaderboard, a model's page and a suite's page: once with no
results index files (a server upgraded from a version without them: every items.csv is parsed, and the index
files are written), then with them.

    .venv/bin/python benchmarks/web_leaderboard.py --work /tmp/lb-bench            # 50 runs x 4 models
    .venv/bin/python benchmarks/web_leaderboard.py --work /tmp/lb-bench --profile  # and where the first view goes
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INDEX_FILE = ".results-index.json"  # linguagym.web.results.index.INDEX_FILE (not imported: the web extra's imports)
SUITES = ROOT.parent / "shared" / "data" / "syntaxgym" / "suites"


def build(work: Path, runs: int, models: int) -> Path:
    """The data directory (built once: delete --work to build it again)."""
    data = work / "data"
    if (data / "built.json").is_file():
        return data
    sys.path.insert(0, str(ROOT))
    from linguagym.evaluation.model_runs import run_models
    from linguagym.evaluation.run import RunSettings
    from linguagym.suites import read_suite
    from linguagym.web import db, store
    from linguagym.web.config import WebConfig
    from linguagym.web.runs.jobs import results_directory
    from tests.tiny_models import save_example_suites_lm

    paths = sorted(SUITES.glob("*.json"))
    model_dir = work / "tiny-lm"
    if not model_dir.is_dir():
        save_example_suites_lm(model_dir, vocab_size=600, seed=3)
    template = work / "template"
    if not template.is_dir():
        started = time.perf_counter()
        run_models(paths, [RunSettings(model=str(model_dir), device="cpu", cache_dir=str(work / "cache"))],
                   output=template, report=False, summary=None)
        print(f"scored the {len(paths)} suites once in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    [model_folder] = [p.parent for p in template.glob("*/run.json")]
    config = WebConfig.build(data, start_worker=False)
    sessions = db.open_database(config.database_url)
    with sessions.begin() as session:
        versions = [store.save_suite_version(session, read_suite(p).suite).version for p in paths]
        names = [f"lab/model-{k}" for k in range(1, models + 1)]
        start = datetime(2026, 1, 1, tzinfo=UTC)
        for n in range(runs):
            run = store.create_run(session, names, versions, {"device": "cpu"})
            run.status, run.started_at = "done", start + timedelta(hours=n)
            run.finished_at = run.started_at + timedelta(minutes=5)
            session.flush()
            for name in names:
                target = results_directory(config, run.id) / name.replace("/", "_")
                shutil.copytree(model_folder, target)
                record = json.loads((target / "run.json").read_text(encoding="utf-8"))
                record["label"], record["settings"]["model"] = name, name
                (target / "run.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
    sessions.kw["bind"].dispose()
    (data / "built.json").write_text(json.dumps({"runs": runs, "models": models, "suites": len(paths)}))
    return data


CHILD = r"""
import json, sys, time
sys.path.insert(0, {root!r})
from linguagym.web import WebConfig, create_app
app = create_app(WebConfig.build({data!r}, start_worker=False))
client = app.test_client()
times = {{}}
for label, url in (("leaderboard, first view", "/leaderboard"), ("leaderboard, second view", "/leaderboard"),
                   ("a model's page", "/model?name=lab/model-1"), ("a suite's page", "/suites/1")):
    profiler = __import__("cProfile").Profile() if {profile!r} and label.endswith("first view") else None
    started = time.perf_counter()
    if profiler is not None:
        profiler.enable()
    response = client.get(url)
    times[label] = round(time.perf_counter() - started, 3)
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats("/tmp/leaderboard-first-view.prof")
    assert response.status_code == 200, (url, response.status_code)
print(json.dumps(times))
"""


def measure(data: Path, profile: bool) -> dict[str, float]:
    code = CHILD.format(root=str(ROOT), data=str(data), profile=profile)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True, help="where the data directory is built (kept)")
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--models", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes to time (the best is kept)")
    parser.add_argument("--profile", action="store_true",
                        help="cProfile the first view into /tmp/leaderboard-first-view.prof")
    args = parser.parse_args()
    data = build(args.work, args.runs, args.models)
    unindexed, indexed = [], []
    for n in range(args.repeat):  # alternated, so that a change in the machine's load hits both
        for index in (data / "runs").glob(f"*/results/{INDEX_FILE}"):
            index.unlink()  # as a server upgraded from a version without them: every items.csv is parsed
        unindexed.append(measure(data, args.profile and n == 0))
        indexed.append(measure(data, False))
    with open("/proc/loadavg", encoding="ascii") as handle:
        load = handle.read().split()[0]
    print(json.dumps({"runs": args.runs, "models": args.models, "load average": load,
                      f"seconds, no index files yet (best of {args.repeat} fresh processes)": _best(unindexed),
                      f"seconds, index files written (best of {args.repeat})": _best(indexed)}, indent=2))


def _best(results: list[dict[str, float]]) -> dict[str, float]:
    return {key: min(r[key] for r in results) for key in results[0]}


if __name__ == "__main__":
    main()
