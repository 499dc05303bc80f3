"""What writing a model's run files costs: each CSV of ``runfolder/writer.py`` (and ``long.parquet`` where pyarrow is
installed) for one model's result on a folder of suites, best of ``--repeat`` writes each. Scores come from the score
cache (run the suites once before), so only the writing is timed.

    python benchmarks/run_files.py                     # smollm2-135m on the 34 SyntaxGym 2020 suites
    python benchmarks/run_files.py --suites DIR --model gemma-3-270m --repeat 5
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from linguagym.evaluation.run import RunSettings, run_suites
from linguagym.evaluation.runfolder import writer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suites", default="../shared/data/syntaxgym/suites")
    parser.add_argument("--model", default="smollm2-135m")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    result = run_suites(sorted(Path(args.suites).glob("*.json")), RunSettings(model=args.model))
    out = Path(tempfile.mkdtemp())
    files = {"regions.csv": writer.write_regions, "long.csv": writer.write_long,
             "predictions.csv": writer.write_predictions, "tokens.csv": writer.write_tokens,
             "long.parquet": writer.write_long_parquet}
    for name, write in files.items():
        best = float("inf")
        for _ in range(args.repeat):
            start = time.perf_counter()
            written = write(result, out / name)
            best = min(best, time.perf_counter() - start)
        if written is False:
            print(f"{name}: not written (pyarrow is not installed)")
        else:
            print(f"{name}: {best:.3f} s (best of {args.repeat}), {(out / name).stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
