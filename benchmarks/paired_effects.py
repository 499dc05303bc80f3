"""What the paired comparison of effects costs (``linguagym.compare_model_effects``): on run folders of two models
(default use: a run of the 34 SyntaxGym 2020 suites), the whole comparison from the folders, and the sign-flip tests
alone (exact up to 32 items, random sign patterns above). Timings depend on the machine and its load.

    python benchmarks/paired_effects.py results/sg2020 [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from linguagym.evaluation.effect_comparison import compare_held_effects
from linguagym.evaluation.paired import pair_items, sign_flip_p
from linguagym.evaluation.runfolder.reader import find_runs
from linguagym.evaluation.summary import SummarySettings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", help="run folders, as linguagym compare takes them (two models)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    whole = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        found = compare_held_effects(find_runs(args.runs), SummarySettings())
        whole.append(time.perf_counter() - start)
    first, second = (
        {(e.suite, e.prediction, e.comparison, e.item): e.effect for e in run.effects()}
        for run in find_runs(args.runs)[:2])
    vectors = []
    for row in found.rows:
        where = (row.key.suite, row.key.prediction, row.key.comparison)
        a = {k[3]: v for k, v in first.items() if k[:3] == where}
        b = {k[3]: v for k, v in second.items() if k[:3] == where}
        items = pair_items(a, b).items
        vectors.append((row.key.suite, [a[i] - b[i] for i in items]))
    tests = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        for key, differences in vectors:
            sign_flip_p(differences, key=key)
        tests.append(time.perf_counter() - start)
    exact = sum(row.exact for row in found.rows if row.paired.n)
    print(f"{len(found.rows)} rows ({exact} exact, {found.tests - exact} from {found.flips:,} random sign patterns)")
    print(f"whole comparison from the folders: median {statistics.median(whole):.2f} s of {args.repeat}")
    print(f"the sign-flip tests alone: median {statistics.median(tests):.2f} s of {args.repeat}")


if __name__ == "__main__":
    main()
