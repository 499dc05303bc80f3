"""Expansions per minute and where the time goes (setup, parse, differentiate, fill, validate, select).

    NLTK_DATA=../shared/data/nltk_data python benchmarks/expansion.py [--lc LC2,LC9] [--expand-seeds 5]
        [--compare-baseline [COMMIT]]

Runs ``generate_tests`` on the default dataset with the library's expansion defaults (or the caps given) and
prints the expansion block's timings and counts. With ``--compare-baseline`` the causal filler of COMMIT
(default 059c9f9, before the filler proposed in prefix trees and kept contexts and windows; read with
``git show`` and imported from a temporary folder) fills the very same masked sentences beside today's, in the
same process: today's filler ranks only the candidates the validator keeps, the baseline ranks them all and
keeps the best k; the usable fills per masked sentence and each filler's expansions per minute are reported,
with the ratio.
Absolute seconds on a shared machine are noisy; the ratio of one invocation is the figure to quote.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from linguagym.capabilities import pipeline
from linguagym.capabilities.expansion.settings import ExpansionSettings
from linguagym.capabilities.pipeline import generate_tests
from linguagym.capabilities.settings import ExpansionOptions, GenerateSettings

ROOT = Path(__file__).resolve().parent.parent


def cpu_name() -> str:
    """The CPU's model name as lscpu gives it (the figure is per CPU), and how many CPUs this process may use."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        name = next(line.split(":", 1)[1].strip() for line in out.splitlines() if line.startswith("Model name"))
    except (OSError, subprocess.CalledProcessError, StopIteration):
        name = platform.processor() or "unknown CPU"
    import os

    return f"{name}, {len(os.sched_getaffinity(0))} CPUs usable"


def torch_threads() -> str:
    import torch

    return str(torch.get_num_threads())


def baseline_module(commit: str):
    """``linguagym/capabilities/expansion/fill.py`` as it was at ``commit``, imported under another name."""
    source = subprocess.run(["git", "show", f"{commit}:linguagym/capabilities/expansion/fill.py"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    path = Path(tempfile.mkdtemp(prefix="baseline-fill-")) / "baseline_fill.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("baseline_fill", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["baseline_fill"] = module
    spec.loader.exec_module(module)
    return module


class Twin:
    """Today's filler, with the baseline's filling the same masked sentences beside it (timed apart). Today's
    filler asks the expander's ``keep`` about every complete candidate before ranking; the baseline ranks them all
    and keeps the best k, which the expander then validated. The verdicts recorded from ``keep`` cover every
    candidate, so the baseline's usable fills (valid, fluent) are counted without validating twice."""

    def __init__(self, today, baseline, max_disruption: float) -> None:
        self.today, self.baseline = today, baseline
        self.max_disruption = max_disruption
        self.seconds = {"today": 0.0, "baseline": 0.0}
        self.cpu = {"today": 0.0, "baseline": 0.0}  # CPU seconds: less disturbed by other processes than wall time
        self.masked = 0
        self.candidates = {"checked": 0, "today_ranked": 0}
        self.usable = {"today": 0, "baseline": 0}  # valid and fluent fills (before duplicates)
        # masked sentences where today's fills hold every baseline fill that passed validation (or k others)
        self.agree = {"held": 0, "other": 0}
        self.worst = 0.0  # largest confidence difference (bits) between the two fillers' fills

    @property
    def identity(self) -> dict:
        return self.today.identity

    def fill(self, masked, k, keep=None):
        self.masked += len(masked)
        verdicts: dict = {}

        inside = [0.0, 0.0]  # wall and CPU seconds in keep: the expander counts them as validation

        def recording(candidates):
            began, began_cpu = time.perf_counter(), time.process_time()
            answers = list(keep(candidates)) if keep is not None else [True] * len(candidates)
            inside[0] += time.perf_counter() - began
            inside[1] += time.process_time() - began_cpu
            verdicts.update(zip(candidates, answers, strict=True))
            self.candidates["checked"] += len(candidates)
            self.candidates["today_ranked"] += sum(answers)
            return answers

        started, cpu = time.perf_counter(), time.process_time()
        new = self.today.fill(masked, k, keep=recording)
        self.seconds["today"] += time.perf_counter() - started - inside[0]
        self.cpu["today"] += time.process_time() - cpu - inside[1]
        started, cpu = time.perf_counter(), time.process_time()
        old = self.baseline.fill(masked, k)
        self.seconds["baseline"] += time.perf_counter() - started
        self.cpu["baseline"] += time.process_time() - cpu
        for i, (a, b) in enumerate(zip(new, old, strict=True)):
            fluent = lambda f: f.disruption <= self.max_disruption  # noqa: E731
            kept_old = [f for f in b if verdicts.get((i, f.words)) and fluent(f)]
            self.usable["today"] += sum(1 for f in a if fluent(f))
            self.usable["baseline"] += len(kept_old)
            filtered = [f for f in b if verdicts.get((i, f.words))]
            by_words = {f.words: f for f in a}
            held = len(a) == k or all(f.words in by_words for f in filtered)
            self.agree["held" if held else "other"] += 1
            self.worst = max([self.worst, *(abs(f.confidence - by_words[f.words].confidence)
                                            for f in filtered if f.words in by_words)])
        return new


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lc", default="all")
    defaults = ExpansionSettings()
    ap.add_argument("--expand-seeds", type=int, default=defaults.seeds_per_capability,
                    help="seeds expanded per capability (default: the library's)")
    ap.add_argument("--per-seed", type=int, default=defaults.per_seed)
    ap.add_argument("--masked-per-seed", type=int, default=defaults.masked_per_seed)
    ap.add_argument("--fills-per-mask", type=int, default=defaults.fills_per_mask)
    ap.add_argument("--filler", default="smollm2-135m")
    ap.add_argument("--compare-baseline", nargs="?", const="059c9f9", default=None, metavar="COMMIT",
                    help="also fill with the causal filler of COMMIT (default 059c9f9) and report the ratio")
    ap.add_argument("--last-pool", type=int, default=None,
                    help="the causal filler's proposals at a sentence's last mask (default: the library's)")
    ap.add_argument("--output", default=None, help="also write the test document here (JSON)")
    args = ap.parse_args()
    settings = ExpansionSettings(seeds_per_capability=args.expand_seeds, per_seed=args.per_seed,
                                 masked_per_seed=args.masked_per_seed, fills_per_mask=args.fills_per_mask)
    twin = None
    if args.last_pool is not None:
        load_default = pipeline.fill.load_filler

        def load_wider(model, *, cache_dir=None, accept=None):
            filler = load_default(model, cache_dir=cache_dir, accept=accept)
            filler.last_pool = args.last_pool
            return filler

        pipeline.fill.load_filler = load_wider
    if args.compare_baseline:
        old = baseline_module(args.compare_baseline)
        load = pipeline.fill.load_filler

        def load_twin(model, *, cache_dir=None, accept=None):
            nonlocal twin
            today = load(model, cache_dir=cache_dir, accept=accept)
            # the same pool and beam as today's: the baseline ranks the candidates today's validates (and, with a
            # wider last pool, some of them)
            baseline = old.CausalFiller(model, cache_dir=cache_dir, accept=accept, beam=today.beam, pool=today.pool)
            twin = Twin(today, baseline, settings.max_disruption)
            return twin

        pipeline.fill.load_filler = load_twin
    started, cpu_started = time.perf_counter(), time.process_time()
    document = generate_tests(GenerateSettings(lcs=args.lc, expansion=ExpansionOptions(filler=args.filler,
                                                                                   settings=settings)))
    total, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    block = document.expansion
    expansions = sum(c.expansions or 0 for c in document.capabilities)
    seconds = dict(block["seconds"])
    print(f"CPU: {cpu_name()}")
    print(f"settings: {json.dumps(block['settings'])}; filler: {json.dumps(block['filler'])}")
    if twin is not None:  # the fill stage timed both fillers: give each its own
        seconds["fill"] = round(twin.seconds["today"], 2)
    expansion_seconds = sum(seconds.values())
    # CPU seconds: what the run costs with the machine to itself and one thread (on a shared machine wall time is
    # mostly waiting); the estimate for an idle machine.
    print(f"total {total:.1f} s wall, {cpu:.1f} s CPU (threads: {torch_threads()}), of which expansion "
          f"{expansion_seconds:.1f} s; {expansions} expansions, "
          f"{60 * expansions / max(expansion_seconds, 1e-9):.1f} per minute of expansion")
    for stage, value in seconds.items():
        print(f"  {stage:<14} {value:8.1f} s  {100 * value / max(expansion_seconds, 1e-9):5.1f} %")
    print("per capability:", json.dumps({k: v["expansions"] for k, v in block["counts"].items()}))
    print("masked sentences:", sum(v["masked"] for v in block["counts"].values()))
    print("rejections:", json.dumps(block["rejections"]))
    if twin is not None:
        # The baseline's run: its fill time, and the same other stages (its validation checked only the k fills it
        # kept, today's checks every candidate: at most a few seconds either way). Its expansions: the usable
        # fills among those it kept, as today's expansions are today's usable fills less duplicates.
        duplicates = twin.usable["today"] - expansions
        baseline_expansions = twin.usable["baseline"] - max(duplicates, 0)
        baseline_seconds = expansion_seconds - seconds["fill"] + twin.seconds["baseline"]
        print(f"baseline filler ({args.compare_baseline}): fill {twin.seconds['baseline']:.1f} s against "
              f"{twin.seconds['today']:.1f} s wall ({twin.cpu['baseline']:.1f} s against {twin.cpu['today']:.1f} s "
              f"CPU) for {twin.masked} masked sentences; today's filler validated {twin.candidates['checked']} "
              f"candidates and re-ranked {twin.candidates['today_ranked']} (the baseline re-ranks every candidate "
              f"of its pool)")
        print(f"usable fills (valid and fluent) per masked sentence: today {twin.usable['today'] / twin.masked:.2f}, "
              f"baseline {twin.usable['baseline'] / twin.masked:.2f}; masked sentences whose validated baseline "
              f"fills are all among today's (or today has k): {twin.agree['held']} of {twin.masked}; largest "
              f"confidence difference "
              f"{twin.worst:.2g} bits")
        print(f"expansions per minute: today {60 * expansions / max(expansion_seconds, 1e-9):.1f} ({expansions}), "
              f"baseline {60 * baseline_expansions / max(baseline_seconds, 1e-9):.1f} ({baseline_expansions}), "
              f"ratio {expansions * baseline_seconds / max(baseline_expansions * expansion_seconds, 1e-9):.2f}; "
              f"fill stage alone {twin.seconds['baseline'] / max(twin.seconds['today'], 1e-9):.2f}x wall, "
              f"{twin.cpu['baseline'] / max(twin.cpu['today'], 1e-9):.2f}x CPU")
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            json.dump(document.to_json() if hasattr(document, "to_json") else document, handle, ensure_ascii=False,
                      indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
