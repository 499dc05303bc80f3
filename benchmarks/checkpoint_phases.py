"""Where each checkpoint's time goes in one run over many: scoring and evaluating, letting the weights go, writing.

``checkpoints.py`` times whole commands; this script runs ``run_models`` in this process over N checkpoints
(random weights of a configuration, written as ``checkpoints.py`` writes them) and prints, for each checkpoint in
turn, the seconds of its three steps, so that a cost that grows with the number of checkpoints done shows as a
rising column. Run it twice on one score cache (``--cache DIR``) to time a run with nothing left to score: what
remains is the run's own overhead per checkpoint.

``LINGUAGYM_ROOT=/path/to/other/checkout`` times another checkout's linguagym with the same script, for a before
and after in one session (run them one after the other, interleaved). Run from the repository root; ``--help``
lists the options.
"""

from __future__ import annotations

import argparse
import gc
import glob
import inspect
import os
import resource
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = Path(os.environ.get("LINGUAGYM_ROOT", HERE.parent)).resolve()
sys.path.insert(0, str(ROOT))  # the linguagym timed
sys.path.insert(1, str(HERE))
DEFAULT_SUITES = str(HERE.parent.parent / "shared" / "data" / "syntaxgym" / "suites" / "*.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", required=True, help="a named model or a model directory whose config.json "
                        "and tokenizer the checkpoints take (a small configuration keeps scoring short)")
    parser.add_argument("--checkpoints", type=int, default=12, help="how many checkpoints (default 12)")
    parser.add_argument("--suites", nargs="+", default=[DEFAULT_SUITES], help="suite files or globs "
                        "(default: the 34 suites of ../shared/data/syntaxgym/suites/)")
    parser.add_argument("--cache", type=Path, default=None, help="the score cache (default: a fresh one, so "
                        "everything is scored); the checkpoints are written once under it and reused")
    args = parser.parse_args()
    from checkpoints import cpu_name, write_checkpoints

    sys.path.insert(0, str(ROOT))  # again: importing checkpoints.py put this checkout first
    import linguagym
    import linguagym.evaluation.model_runs as models
    import linguagym.evaluation.run as run
    from linguagym.scoring.engine.device import available_cpus

    suites = sorted({p for pattern in args.suites for p in glob.glob(pattern)})
    if not suites:
        raise SystemExit(f"no suites match {args.suites}")
    work = args.cache or Path(tempfile.mkdtemp(prefix="linguagym-phases-"))
    found = sorted((work / "run").glob("ckpt-*"), key=lambda p: int(p.name.split("-")[1]))
    checkpoints = found[:args.checkpoints] if len(found) >= args.checkpoints else write_checkpoints(
        args.config, args.checkpoints, work / "run")
    times: dict[str, list[float]] = defaultdict(list)

    def timed(module: object, name: str, step: str) -> None:
        original = getattr(module, name)

        def wrapper(*a: object, **k: object) -> object:
            started = time.perf_counter()
            try:
                return original(*a, **k)
            finally:
                times[step].append(time.perf_counter() - started)

        setattr(module, name, wrapper)

    timed(models, "_run_one", "score and evaluate")
    timed(models, "release_scorer", "let the weights go")
    timed(models, "_write", "write")
    settings = [run.RunSettings(model=str(c), device="cpu", cache_dir=str(work / "cache")) for c in checkpoints]
    load = os.getloadavg()[0]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        # as `linguagym run` calls it: each model's scores let go once its folder is written (where supported)
        light = {"keep_scores": False} if "keep_scores" in inspect.signature(models.run_models).parameters else {}
        runs = models.run_models(suites, settings, output=out, report=False, prefetch=False, **light)
    total = time.perf_counter() - started
    print(f"linguagym from {Path(linguagym.__file__).parent}; {len(checkpoints)} checkpoints of {args.config}, "
          f"{len(suites)} suites; CPU: {cpu_name()}, {available_cpus()} usable cores; load average {load:.1f} before, "
          f"{os.getloadavg()[0]:.1f} after")
    print(f"whole run {total:.2f} s; peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB; "
          f"objects the cycle collector tracks at the end: {len(gc.get_objects()):,} ({len(runs)} results held"
          f"{', scores let go' if light else ''})")
    print("| step | " + " | ".join(str(i + 1) for i in range(len(checkpoints))) + " | sum |")
    print("| --- |" + " ---: |" * (len(checkpoints) + 1))
    for step, seconds in times.items():
        print(f"| {step} | " + " | ".join(f"{s:.2f}" for s in seconds) + f" | {sum(seconds):.2f} |")


if __name__ == "__main__":
    main()
