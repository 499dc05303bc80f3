"""Many checkpoints in a row: one ``linguagym run`` over N checkpoints against N separate runs, same suites.

A training-dynamics study scores tens of checkpoints of one model. This script writes N checkpoints (random
weights, each its own seed) of a real configuration (default: smollm2-135m's config.json and tokenizer, from the
linguagym cache: ``linguagym models --fetch smollm2-135m`` once) to a temporary directory, then times, each in
its own child process(es), end to end, from an empty score cache:

  1. ``separate``: N ``python -m linguagym.cli run SUITES --model ckpt-i`` processes, one after the other;
  2. ``one run, prefetch``: one ``python -m linguagym.cli run SUITES --model ckpt-1 ... --model ckpt-N``
     (the next checkpoint loads while one scores; tokens and prefix trees computed once);
  3. ``one run, no prefetch``: the same with ``LINGUAGYM_PREFETCH=0`` (what prefetching alone buys).

It reports seconds per checkpoint, the ratios, and whether every contender wrote the same surprisals
(``tokens.csv`` of each checkpoint, byte for byte). Every contender uses the same thread count (``--threads``;
default: the count linguagym picks at the start), so that the numbers can be compared bit for bit. The CPU's
name, its usable cores and the load average before and after are printed with the figures: on a shared machine
they say how much the ratios can be trusted. Run from the repository root; ``--help`` lists the options.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # linguagym from this checkout, whichever environment runs the script
DEFAULT_SUITES = str(ROOT.parent / "shared" / "data" / "syntaxgym" / "suites" / "*.json")
COPIED = ("config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json",
          "special_tokens_map.json", "chat_template.jinja")


def write_checkpoints(config_of: str, count: int, root: Path) -> list[Path]:
    """``count`` checkpoints of ``config_of``'s configuration with random weights (seed = step), its tokenizer
    files copied, as ``save_pretrained`` writes them (float32 safetensors)."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    from linguagym.assets import fetch_named_model
    from linguagym.scoring.cache import resolve_cache_dir

    source = fetch_named_model(config_of, resolve_cache_dir()) if not Path(config_of).is_dir() else Path(config_of)
    config = AutoConfig.from_pretrained(source)
    found = []
    for step in range(1, count + 1):
        directory = root / f"ckpt-{step * 1000}"
        torch.manual_seed(step)
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
        model.save_pretrained(directory)
        del model
        for name in COPIED:
            if (source / name).is_file():
                shutil.copy(source / name, directory / name)
        found.append(directory)
    return found


def run_command(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds ``python -m linguagym.cli ARGS`` took, end to end; its output goes
    to the terminal on failure. CPU seconds hardly depend on what else runs on the machine; wall seconds do."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "linguagym.cli", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, check=False)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"linguagym {' '.join(args[:3])} ... failed ({done.returncode})")
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def same_surprisals(first: Path, second: Path, names: list[str]) -> bool:
    return all((first / n / "tokens.csv").read_bytes() == (second / n / "tokens.csv").read_bytes() for n in names)


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoints", type=int, default=10, help="how many checkpoints (default 10)")
    parser.add_argument("--config", default="smollm2-135m", help="a named model or a model directory whose "
                        "config.json and tokenizer the checkpoints take (default smollm2-135m)")
    parser.add_argument("--suites", nargs="+", default=[DEFAULT_SUITES], help="suite files or globs "
                        "(default: the 34 suites of ../shared/data/syntaxgym/suites/)")
    parser.add_argument("--threads", type=int, default=None, help="torch threads for every contender "
                        "(default: what linguagym picks now)")
    parser.add_argument("--device", default="cpu", help="where every contender scores (default cpu)")
    parser.add_argument("--rounds", type=int, default=1, help="times each one-run contender runs, in ABBA "
                        "order; the best time is kept (default 1)")
    parser.add_argument("--skip-separate", action="store_true", help="time only the one-run contenders")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()
    suites = sorted({p for pattern in args.suites for p in glob.glob(pattern)})
    if not suites:
        raise SystemExit(f"no suites match {args.suites}")
    from linguagym.scoring.engine.device import available_cpus, configure_cpu_threads

    threads = args.threads or configure_cpu_threads()
    load_before = os.getloadavg()
    work = Path(tempfile.mkdtemp(prefix="linguagym-checkpoints-"))
    try:
        started = time.perf_counter()
        checkpoints = write_checkpoints(args.config, args.checkpoints, work / "run")
        print(f"wrote {len(checkpoints)} checkpoints of {args.config} in {time.perf_counter() - started:.1f} s",
              flush=True)
        names = [c.name for c in checkpoints]
        path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)  # keep the caller's
        env = {**os.environ, "LINGUAGYM_THREADS": str(threads), "PYTHONPATH": path}
        common = [*suites, "--device", args.device, "--no-report"]
        # the first process to import torch reads it from disk: warm the page cache before anything is timed
        subprocess.run([sys.executable, "-c", "import torch, transformers"], env=env, check=True)
        times: dict[str, float] = {}
        cpu: dict[str, float] = {}
        outputs: dict[str, Path] = {}
        contenders = [("one run, prefetch", "1"), ("one run, no prefetch", "0")]
        # rounds in ABBA order, so that a machine getting busier or quieter favours neither; the best of each kept
        order = [c for r in range(args.rounds) for c in (contenders if r % 2 == 0 else contenders[::-1])]
        for number, (label, prefetch) in enumerate(order):
            out = work / f"one-{number}"
            models = [a for c in checkpoints for a in ("--model", str(c))]
            seconds, cpu_seconds = run_command(["run", *common, *models, "--cache-dir", str(out / "cache"), "-o",
                                                str(out)], {**env, "LINGUAGYM_PREFETCH": prefetch})
            times[label] = min(seconds, times.get(label, seconds))
            cpu[label] = min(cpu_seconds, cpu.get(label, cpu_seconds))
            outputs[label] = out
            print(f"{label}: {seconds:.1f} s ({cpu_seconds:.1f} CPU s)", flush=True)
        if not args.skip_separate:
            out = work / "separate"
            times["separate"] = cpu["separate"] = 0.0
            for checkpoint in checkpoints:  # each with a cache of its own: nothing is shared between processes
                seconds, cpu_seconds = run_command(["run", *common, "--model", str(checkpoint), "--cache-dir",
                                                    str(out / "cache" / checkpoint.name), "-o", str(out)], env)
                times["separate"] += seconds
                cpu["separate"] += cpu_seconds
            outputs["separate"] = out
            print(f"separate: {times['separate']:.1f} s ({cpu['separate']:.1f} CPU s)", flush=True)
        load_after = os.getloadavg()
        reference = outputs["one run, no prefetch"]
        identical = {label: same_surprisals(reference, out, names) for label, out in outputs.items()}
        n = len(checkpoints)
        print(f"\n{n} checkpoints of {args.config}, {len(suites)} suites; CPU: {cpu_name()}, {available_cpus()} "
              f"usable cores, {threads} torch threads; load average {load_before[0]:.1f} before, "
              f"{load_after[0]:.1f} after (1 min)")
        print("| contender | wall time | s per checkpoint | separate / this | CPU time | separate / this (CPU) | "
              "same surprisals as no prefetch |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for label, seconds in times.items():
            ratio = f"{times['separate'] / seconds:.2f}x" if "separate" in times else "-"
            cpu_ratio = f"{cpu['separate'] / cpu[label]:.2f}x" if "separate" in cpu else "-"
            same = "yes" if identical[label] else "NO"
            print(f"| {label} | {seconds:.1f} s | {seconds / n:.1f} | {ratio} | {cpu[label]:.1f} s | {cpu_ratio} | "
                  f"{same} |")
        print(f"prefetch gain: no prefetch / prefetch = "
              f"{times['one run, no prefetch'] / times['one run, prefetch']:.2f}x")
        if args.json is not None:
            args.json.write_text(json.dumps({
                "checkpoints": n, "config": args.config, "suites": len(suites), "cpu": cpu_name(),
                "usable_cpus": available_cpus(), "threads": threads, "load_before": load_before,
                "load_after": load_after, "seconds": times, "cpu_seconds": cpu, "identical": identical,
                "python": platform.python_version()}, indent=2) + "\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
