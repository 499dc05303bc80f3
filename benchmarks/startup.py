"""Start-up benchmark: where the first seconds of a cold ``linguagym run`` go, and the time to first scored token.

One invocation runs ``linguagym run --model M --no-cache SUITE`` (default: smollm2-135m on the CPU, the first
item of number_prep) ``--repeat`` times, each in a fresh child process under ``python -X importtime``, with
timers around the phases of the real command (nothing is re-implemented here):

  interpreter start     from spawning the child to its first line of Python
  CLI import            ``linguagym.cli.entry`` and what it imports
  suites, before model  reading and checking the suite, resolving the model (until the tokenizer loads)
  tokenizer             ``hf_base.load_tokenizer`` (tokens are counted before scoring, for progress)
  counting tokens       encoding the texts for the count
  weights               ``hf_base.load_hf``: torch and transformers where not yet imported, the weights
  before first pass     encoding, packing the prefix trees
  first forward         the model's first forward pass
  first scored tokens   the first surprisals out (vocabulary projection and normaliser of that pass)
  rest of run           the other passes, evaluation, writing the outputs

Each phase has wall seconds and CPU seconds (user + system, ``resource.getrusage``: on a shared machine the
wall time of a phase depends on the others, its CPU time much less). "time to first scored token" is from
spawning the child to the first surprisals. Imports are summed per top-level package from ``-X importtime``'s
self times (wall microseconds). The load (``/proc/loadavg`` and what other processes use over one second, from
``linguagym.scoring.engine.cpu_load``) is given before each run. The thread count chosen, and why, is reported.

    python benchmarks/startup.py                       # smollm2-135m, 2 runs
    python benchmarks/startup.py --repeat 3 --json startup.json --suite ../shared/data/syntaxgym/suites/cleft.json
    python benchmarks/startup.py --model DIR --suite SUITES_DIR --limit 0 --device auto --dtype bfloat16 --report \
        --repeat 1        # a whole run end to end (the 8B model on a GPU: benchmarks/gpu_session.sh)

``--dtype``, ``--model-args``, ``--bow-correction`` are passed to the command; ``--report`` keeps its HTML report
(off by default: the start-up is measured). On a GPU the child also records torch's peak GPU memory.

The named model must already be in the linguagym cache (``linguagym models --fetch smollm2-135m``). Run from the
repository root.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # linguagym from this checkout, whichever environment runs the script
DEFAULT_SUITE = str(ROOT.parent / "shared" / "data" / "syntaxgym" / "suites" / "number_prep.json")
PHASES = [  # (label, the mark that ends it)
    ("interpreter start", "child_started"),
    ("CLI import", "cli_imported"),
    ("suites, before model", "tokenizer_start"),
    ("tokenizer", "tokenizer_done"),
    ("counting tokens", "weights_start"),
    ("weights (imports, load)", "weights_done"),
    ("before first pass", "forward_start"),
    ("first forward", "forward_done"),
    ("first scored tokens", "first_scored"),
    ("rest of run", "run_done"),
]
IMPORT_LINE = re.compile(r"^import time:\s+(\d+)\s+\|\s+(\d+)\s+\|(\s*)(\S+)")


# -- the child: the real command with marks around its phases ------------------------------------------------------


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def child(args: argparse.Namespace) -> None:
    marks: dict[str, tuple[float, float]] = {"child_started": (time.time(), _cpu_seconds())}

    def mark(name: str) -> None:
        marks.setdefault(name, (time.time(), _cpu_seconds()))  # the first occurrence counts

    from linguagym.cli.entry import main

    mark("cli_imported")
    from linguagym.scoring.engine import device
    from linguagym.scoring.huggingface import base as hf_base
    from linguagym.scoring.huggingface import causal

    load_tokenizer, load_hf = hf_base.load_tokenizer, hf_base.load_hf

    def timed_tokenizer(*a, **k):
        mark("tokenizer_start")
        try:
            return load_tokenizer(*a, **k)
        finally:
            mark("tokenizer_done")

    def timed_load(*a, **k):
        mark("tokenizer_start")  # no separate tokenizer load: it comes with the weights
        mark("tokenizer_done")
        mark("weights_start")
        loaded = load_hf(*a, **k)
        mark("weights_done")
        body = loaded.model.base_model
        body.register_forward_pre_hook(lambda module, inputs: mark("forward_start"))
        body.register_forward_hook(lambda module, inputs, output: mark("forward_done"))
        return loaded

    def first_scored(function):
        def timed(*a, progress=None, **k):
            def first(count: int) -> None:
                mark("first_scored")
                if progress is not None:
                    progress(count)

            return function(*a, progress=first, **k)

        return timed

    hf_base.load_tokenizer, hf_base.load_hf = timed_tokenizer, timed_load
    # the causal scorer calls tree_scores (tree_surprisals in checkpoints before the word-boundary correction)
    for name in ("tree_surprisals", "tree_scores"):
        if hasattr(causal, name):
            setattr(causal, name, first_scored(getattr(causal, name)))
    # causal_lm imported load_hf by name
    from linguagym.scoring.huggingface import causal_lm

    causal_lm.load_hf = timed_load
    with tempfile.TemporaryDirectory() as out:
        argv = ["run", "--model", args.model, "--no-cache", "--device", args.device, "-o", out,
                *([] if args.report else ["--no-report"]), *(["--dtype", args.dtype] if args.dtype else []),
                *(["--model-args", args.model_args] if args.model_args else []),
                *(["--bow-correction"] if args.bow_correction else []),
                *(["--limit", str(args.limit)] if args.limit else []), args.suite]
        status = main(argv)
    mark("run_done")
    import torch  # imported by the run already

    # (last_thread_choice: absent from checkouts before it, which this script also measures for comparisons)
    choice = getattr(device, "last_thread_choice", lambda: None)()
    gpu_peak = torch.cuda.max_memory_allocated() if torch.cuda.is_initialized() else None
    Path(args.child_out).write_text(json.dumps({
        "status": status, "marks": marks, "gpu_peak_bytes": gpu_peak,
        "threads": {"threads": torch.get_num_threads(), "reason": None if choice is None else choice.reason},
    }))


# -- the parent: runs the children, reads their marks and import times ------------------------------------------


def imports_by_package(stderr: str) -> dict[str, float]:
    """Seconds of ``-X importtime`` self time per top-level package."""
    seconds: dict[str, float] = defaultdict(float)
    for line in stderr.splitlines():
        found = IMPORT_LINE.match(line)
        if found:
            seconds[found.group(4).split(".")[0]] += int(found.group(1)) / 1e6
    return dict(seconds)


def load_now() -> dict:
    from linguagym.scoring.engine import device

    try:
        from linguagym.scoring.engine import cpu_load
    except ImportError:  # a checkout from before cpu_load
        busy = None
    else:
        ids = device.usable_cpu_ids()
        before = cpu_load.sample(ids)
        time.sleep(1.0)
        after = cpu_load.sample(ids)
        busy = cpu_load.busy_elsewhere(before, after) if before and after else None
    return {"loadavg": Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else None,
            "cpus_busy_elsewhere": None if busy is None else round(busy, 2), "usable_cpus": device.available_cpus()}


def run_once(args: argparse.Namespace) -> dict:
    with tempfile.TemporaryDirectory() as work:
        out = Path(work) / "marks.json"
        command = [sys.executable, "-X", "importtime", str(Path(__file__).resolve()), "--child", "--child-out",
                   str(out), "--model", args.model, "--suite", args.suite, "--device", args.device]
        for flag in ("dtype", "model_args"):
            if getattr(args, flag):
                command += [f"--{flag.replace('_', '-')}", getattr(args, flag)]
        command += [f"--{flag.replace('_', '-')}" for flag in ("report", "bow_correction") if getattr(args, flag)]
        if args.limit:
            command += ["--limit", str(args.limit)]
        load = load_now()
        spawned, cpu_before = time.time(), _children_cpu()
        done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
        total_cpu = _children_cpu() - cpu_before
        if done.returncode != 0 or not out.exists():
            sys.exit(f"the child failed ({done.returncode}):\n{done.stdout[-2000:]}\n{_not_imports(done.stderr)}")
        record = json.loads(out.read_text())
    if record["status"] != 0:
        sys.exit(f"linguagym run failed with status {record['status']}:\n{_not_imports(done.stderr)}")
    marks = record["marks"]
    phases, last_wall, last_cpu = [], spawned, 0.0
    for label, name in PHASES:
        if name not in marks:
            continue
        wall, cpu = marks[name]
        phases.append({"phase": label, "wall_s": round(wall - last_wall, 3), "cpu_s": round(cpu - last_cpu, 3)})
        last_wall, last_cpu = wall, cpu
    first = marks.get("first_scored")
    return {
        "load_before": load,
        "phases": phases,
        "time_to_first_scored_token_s": None if first is None else round(first[0] - spawned, 3),
        "cpu_to_first_scored_token_s": None if first is None else round(first[1], 3),
        "total_wall_s": round(marks["run_done"][0] - spawned, 3),
        "total_cpu_s": round(total_cpu, 3),
        "imports_s": {k: round(v, 3) for k, v in sorted(imports_by_package(done.stderr).items(),
                                                          key=lambda kv: -kv[1])[:8]},
        "threads": record["threads"],
        "gpu_peak_bytes": record.get("gpu_peak_bytes"),
    }


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _not_imports(stderr: str) -> str:
    return "\n".join(line for line in stderr.splitlines() if not line.startswith("import time:"))[-3000:]


def show(index: int, result: dict) -> None:
    load = result["load_before"]
    print(f"\nrun {index}: load average {' '.join(load['loadavg'] or ['?'])}, "
          f"{load['cpus_busy_elsewhere']} of {load['usable_cpus']} CPUs busy elsewhere just before; "
          f"threads: {result['threads']}")
    print(f"  {'phase':38s} {'wall s':>8s} {'CPU s':>8s}")
    for phase in result["phases"]:
        print(f"  {phase['phase']:38s} {phase['wall_s']:8.2f} {phase['cpu_s']:8.2f}")
    if result["time_to_first_scored_token_s"] is not None:
        print(f"  {'time to first scored token':38s} {result['time_to_first_scored_token_s']:8.2f} "
              f"{result['cpu_to_first_scored_token_s']:8.2f}")
    print(f"  {'whole run':38s} {result['total_wall_s']:8.2f} {result['total_cpu_s']:8.2f}")
    if result.get("gpu_peak_bytes") is not None:
        print(f"  peak GPU memory (torch, allocated): {result['gpu_peak_bytes'] / 2**30:.2f} GiB")
    print("  imports (self time, wall s): " + ", ".join(f"{k} {v:.2f}" for k, v in result["imports_s"].items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--suite", default=DEFAULT_SUITE)
    parser.add_argument("--limit", type=int, default=1, help="items of the suite (default 1: a small first pass; "
                        "0 for all)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--dtype", default=None, help="passed to linguagym run (default: its own)")
    parser.add_argument("--model-args", default=None, help="passed to linguagym run")
    parser.add_argument("--bow-correction", action="store_true", help="passed to linguagym run")
    parser.add_argument("--report", action="store_true", help="write the HTML report too (default: --no-report)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child-out", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    import platform

    import linguagym

    print(f"linguagym {linguagym.__version__}, Python {platform.python_version()}, {args.model} on {args.device}, "
          f"{Path(args.suite).name} (limit {args.limit or 'none'}), {os.cpu_count()} CPUs")
    results = [run_once(args) for _ in range(args.repeat)]
    for index, result in enumerate(results, 1):
        show(index, result)
    if args.json:
        args.json.write_text(json.dumps({"model": args.model, "suite": args.suite, "limit": args.limit,
                                         "device": args.device, "runs": results}, indent=2) + "\n")


if __name__ == "__main__":
    main()
