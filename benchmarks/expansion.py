"""Expansions per minute and where the time goes (setup, parse, differentiate, fill, validate, select).

    NLTK_DATA=../shared/data/nltk_data python benchmarks/expansion.py [--lc all] [--expand-seeds 5]

Runs ``generate_suite`` on the default dataset (seed analysis included in the total, reported apart) and
prints the expansion block's timings and counts.
"""

from __future__ import annotations

import argparse
import json
import time

from linguagym.capabilities.expansion.expand import ExpansionSettings
from linguagym.capabilities.pipeline import ExpansionOptions, generate_suite


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lc", default="all")
    ap.add_argument("--expand-seeds", type=int, default=5)
    ap.add_argument("--per-seed", type=int, default=3)
    ap.add_argument("--filler", default="smollm2-135m")
    ap.add_argument("--output", default=None, help="also write the test document here (JSON)")
    args = ap.parse_args()
    options = ExpansionOptions(filler=args.filler, settings=ExpansionSettings(
        seeds_per_capability=args.expand_seeds, per_seed=args.per_seed))
    started = time.perf_counter()
    document = generate_suite(lcs=args.lc, expansion=options)
    total = time.perf_counter() - started
    block = document["expansion"]
    expansions = sum(c["expansions"] for c in document["capabilities"])
    expansion_seconds = sum(block["seconds"].values())
    print(f"total {total:.1f} s, of which expansion {expansion_seconds:.1f} s; {expansions} expansions, "
          f"{60 * expansions / max(expansion_seconds, 1e-9):.1f} per minute of expansion")
    for stage, seconds in block["seconds"].items():
        print(f"  {stage:<14} {seconds:8.1f} s  {100 * seconds / max(expansion_seconds, 1e-9):5.1f} %")
    print("per capability:", json.dumps({k: v["expansions"] for k, v in block["counts"].items()}))
    print("rejections:", json.dumps(block["rejections"]))
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            json.dump(document, handle, ensure_ascii=False, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
